package ui

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/wblab/wblab/engine"
)

// ChartSpec is one graph: the series it shows, by column name (missing ones are skipped).
type ChartSpec struct {
	ID, Title string
	Log       bool
	Series    []string
}

// Charts are the graphs, in page order. "other" collects columns no chart names.
var Charts = []ChartSpec{
	{ID: "dirty", Title: "Global dirty state", Series: []string{"dirty_MB", "writeback_MB", "bg_thresh_MB", "thresh_MB", "limit_MB", "setpoint_MB"}},
	{ID: "bdp", Title: "balance_dirty_pages ratelimits (log)", Log: true, Series: []string{"dirty_ratelimit_MBps", "balanced_ratelimit_MBps", "task_ratelimit_MBps"}},
	{ID: "bw", Title: "Bandwidth", Series: []string{"write_bw_MBps", "avg_write_bw_MBps", "iostat_wMBps"}},
	{ID: "lists", Title: "Writeback lists (inodes)", Series: []string{"b_dirty_inodes", "b_io_inodes", "b_more_io_inodes", "b_more_io_wait_inodes"}},
	{ID: "device", Title: "Device queue", Series: []string{"iostat_avgqu_sz", "iostat_await_ms", "wbt_limit", "wbt_step"}},
	{ID: "other", Title: "Other series"},
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// units maps column-name suffixes to axis units, longest match first.
var units = []struct{ suf, unit string }{
	{"MBps", "MB/s"}, {"_MB", "MB"}, {"_ms", "ms"}, {"_s", "s"}, {"_inodes", "inodes"},
	{"_sz", "requests"}, {"_pages", "pages"}, {"_pct", "%"},
}

// unitOf reads the unit from a column name's suffix.
func unitOf(name string) string {
	for _, u := range units {
		if strings.HasSuffix(name, u.suf) {
			return u.unit
		}
	}
	return "count"
}

// Label is a column name without a "_unit" suffix.
func Label(name string) string {
	for _, u := range units {
		if strings.HasSuffix(name, "_"+strings.TrimPrefix(u.suf, "_")) {
			return strings.TrimSuffix(name, "_"+strings.TrimPrefix(u.suf, "_"))
		}
	}
	return name
}

// columnsFor lists the columns of spec present in s (for "other": every column no
// other chart names, except time and the cumulative counters).
func columnsFor(spec ChartSpec, s *engine.Series) []string {
	if s == nil {
		return nil
	}
	var out []string
	if spec.ID == "other" {
		used := map[string]bool{"time_s": true, "dirtied_MB": true, "written_MB": true}
		for _, c := range Charts {
			for _, n := range c.Series {
				used[n] = true
			}
		}
		for _, n := range s.Names {
			if !used[n] {
				out = append(out, n)
			}
		}
		return out
	}
	for _, n := range spec.Series {
		if _, ok := s.Column(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// Run is one labelled result for a chart ("" for a single run, "A"/"B" in A/B mode).
type Run struct {
	Label  string
	Result *engine.Result
}

// ChartJSON builds uPlot options (minus size) and data for spec over runs; ok is false
// when no run has any of its columns.
func ChartJSON(spec ChartSpec, runs []Run) (opts, data string, ok bool) {
	type axis struct {
		Scale string `json:"scale,omitempty"`
		Label string `json:"label"`
		Side  int    `json:"side,omitempty"`
		Size  int    `json:"size"`
		Grid  *struct {
			Show bool `json:"show"`
		} `json:"grid,omitempty"`
	}
	type series struct {
		Label  string    `json:"label"`
		Scale  string    `json:"scale,omitempty"`
		Stroke string    `json:"stroke,omitempty"`
		Width  float64   `json:"width,omitempty"`
		Dash   []float64 `json:"dash,omitempty"`
		Spans  bool      `json:"spanGaps"`
	}
	var x []float64
	cols := [][]*float64{}
	ser := []series{{Label: "time (s)"}}
	units := []string{}
	scaleOf := map[string]string{}
	for ri, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		s := r.Result.Series
		t, _ := s.Column("time_s")
		if x == nil {
			x = t
		}
		for ci, n := range columnsFor(spec, s) {
			u := unitOf(n)
			if _, ok := scaleOf[u]; !ok {
				scaleOf[u] = u
				units = append(units, u)
			}
			v, _ := s.Column(n)
			col := make([]*float64, len(x))
			for i := range col {
				if i < len(v) && !math.IsNaN(v[i]) && !math.IsInf(v[i], 0) && !(spec.Log && v[i] <= 0) {
					val := v[i]
					col[i] = &val
				}
			}
			cols = append(cols, col)
			lab := Label(n)
			if r.Label != "" {
				lab = r.Label + ": " + lab
			}
			sr := series{Label: lab, Scale: u, Stroke: palette[ci%len(palette)], Width: 1.5}
			if ri > 0 {
				sr.Dash = []float64{6, 4}
			}
			ser = append(ser, sr)
		}
	}
	if len(cols) == 0 {
		return "", "", false
	}
	scales := map[string]any{"x": map[string]any{"time": false}}
	axes := []axis{{Label: "time (s)", Size: 40}}
	for i, u := range units {
		sc := map[string]any{"auto": true}
		if spec.Log {
			sc["distr"] = 3
			sc["log"] = 10
		}
		scales[u] = sc
		a := axis{Scale: u, Label: u, Size: 60}
		if i > 0 {
			a.Side = 1
			a.Grid = &struct {
				Show bool `json:"show"`
			}{false}
		}
		axes = append(axes, a)
	}
	o := map[string]any{
		"title":  spec.Title,
		"scales": scales,
		"axes":   axes,
		"series": ser,
		"cursor": map[string]any{"drag": map[string]any{"x": true, "y": false, "setScale": true}},
		"legend": map[string]any{"live": true},
	}
	ob, _ := json.Marshal(o)
	all := make([]any, 0, len(cols)+1)
	all = append(all, x)
	for _, c := range cols {
		all = append(all, c)
	}
	db, _ := json.Marshal(all)
	return string(ob), string(db), true
}
