package lab

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"strings"

	"github.com/wblab/wblab/engine"
)

// FirstPageConfigJSON is the Config JSON of the first page's case, as the worker runs
// it for boot.js's early run and as the catalog names it (FirstPageJSON).
func FirstPageConfigJSON() string {
	b, _ := json.Marshal(engine.FirstPageConfig())
	return string(b)
}

// ResultMessage is a finished run's "result" message fields (PROTOCOL.md): the Result
// JSON and the trace text. The worker and the prerendered first run both use it. A
// streamed run's chunks carried the series' rows: when they carried every column
// (engine.SeriesNames: no per-disk columns), the series goes without its data
// ("data": null) and the page fills it from the chunks (ui.ResultsView).
func ResultMessage(res *engine.Result, streamed bool) (result, trace string, err error) {
	if s := res.Series; streamed && s != nil && slices.Equal(s.Names, engine.SeriesNames()) {
		r := *res
		r.Series = &engine.Series{IntervalS: s.IntervalS, Names: s.Names}
		res = &r
	}
	out, err := json.Marshal(res)
	if err != nil {
		return "", "", err
	}
	var tr strings.Builder
	_ = res.WriteTrace(&tr)
	return string(out), tr.String(), nil
}

// FirstRun is the first page's case computed ahead (./build.sh build writes it as
// static/first.json): the messages the worker streams for boot.js's early run, in one
// chunk. Data is the rows, row-major, as little-endian float64 in base64 (exact, and
// NaN-safe unlike JSON numbers).
type FirstRun struct {
	Config string   `json:"config"`
	Names  []string `json:"names"`
	Rows   int      `json:"rows"`
	Cols   int      `json:"cols"`
	Data   string   `json:"data"`
	Done   float64  `json:"done"`
	Total  float64  `json:"total"`
	Result string   `json:"result"`
	Trace  string   `json:"trace"`
}

// RunFirstPage runs the first page's case as the worker does for a streamed run and
// returns its messages.
func RunFirstPage(ctx context.Context) (*FirstRun, error) {
	f := &FirstRun{Config: FirstPageConfigJSON(), Names: engine.SeriesNames()}
	var cfg engine.Config
	if err := json.Unmarshal([]byte(f.Config), &cfg); err != nil {
		return nil, err
	}
	var rows []float64
	res, err := engine.RunWith(ctx, cfg, engine.RunOptions{Sample: func(row []float64) { rows = append(rows, row...) }})
	if err != nil {
		return nil, err
	}
	f.Cols = len(f.Names)
	f.Rows = len(rows) / f.Cols
	b := make([]byte, 8*len(rows))
	for i, v := range rows {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	f.Data = base64.StdEncoding.EncodeToString(b)
	f.Done = float64(engine.Time(res.RuntimeS*1e9)) / 1e9
	f.Total = f.Done
	if f.Result, f.Trace, err = ResultMessage(res, true); err != nil {
		return nil, err
	}
	return f, nil
}
