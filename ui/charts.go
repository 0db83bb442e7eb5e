package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/wblab/wblab/engine/report"
)

// SeriesSpec is one line of a chart: a column of the engine's time series, or the sum
// of several (Sum), drawn against the left (Axis 0) or right (Axis 1) y-axis.
type SeriesSpec struct {
	Col   string   // column name; for a sum, the derived series' name
	Label string   // legend text (default: Col without its unit suffix)
	Sum   []string // when set, the series is the sum of these columns (all must exist)
	Axis  int      // 0 left, 1 right
	Step  bool     // a step line (limits and counts that change in jumps)
	Width float64  // line width (default 1.5)
	Color string   // stroke (default: the palette colour of its position)
	// PerCall marks a mean per event (per writeback_single_inode call, per pause):
	// a sample with no event holds 0, which is no value, so it is left out.
	PerCall bool
}

// ChartSpec is one graph with at most two y-axes (Units[0] left, Units[1] right).
// Columns the engine does not produce are skipped; a chart with none is hidden.
type ChartSpec struct {
	ID, Title string
	Log       bool
	Units     [2]string
	Series    []SeriesSpec
	HideZero  bool   // hide when every value is 0 (blk-wbt off)
	Note      string // said after the numbers in the chart's "in words" text
	Saves     bool   // the editors' saves (saves_chart.go), not the series' columns
}

// Charts are the graphs, in page order. Columns no chart names go to "Other series"
// charts (OtherCharts), two units per chart.
var Charts = []ChartSpec{
	{ID: "dirty", Title: "Global dirty state", Units: [2]string{"MB"}, Series: []SeriesSpec{
		{Col: "dirty_MB"}, {Col: "writeback_MB"},
		{Col: "dirty+writeback", Sum: []string{"dirty_MB", "writeback_MB"}, Width: 2, Color: "#111"},
		{Col: "bg_thresh_MB"}, {Col: "thresh_MB"}, {Col: "limit_MB"}, {Col: "setpoint_MB", Width: 2}}},
	{ID: "bdp", Title: "balance_dirty_pages ratelimits (log scale)", Log: true, Units: [2]string{"MB/s"}, Series: []SeriesSpec{
		{Col: "dirty_ratelimit_MBps"}, {Col: "balanced_ratelimit_MBps"}, {Col: "task_ratelimit_MBps"}}},
	{ID: "pause", Title: "balance_dirty_pages pauses", Units: [2]string{"ms"}, Series: []SeriesSpec{
		{Col: "bdp_pause_ms", Label: "mean pause", PerCall: true}}},
	{ID: "wsi", Title: "writeback_single_inode", Units: [2]string{"MB", "s"}, Series: []SeriesSpec{
		{Col: "wsi_nr_to_write_MB", Label: "nr_to_write per call", Step: true, PerCall: true},
		{Col: "wsi_wrote_MB", Label: "wrote per call", PerCall: true},
		{Col: "inode_dirty_age_max_s", Label: "oldest dirty inode age", Axis: 1}}},
	{ID: "bw", Title: "Bandwidth", Units: [2]string{"MB/s"}, Series: []SeriesSpec{
		{Col: "write_bw_MBps"}, {Col: "avg_write_bw_MBps"}, {Col: "iostat_wMBps", Label: "iostat wMB/s"},
		{Col: "iostat_rMBps", Label: "iostat rMB/s"}}},
	{ID: "lists", Title: "Writeback lists", Units: [2]string{"inodes"}, Note: "Counts: with more samples than points, each point is the largest count of its samples, not a mean of whole counts.", Series: []SeriesSpec{
		{Col: "b_dirty_inodes", Step: true}, {Col: "b_io_inodes", Step: true},
		{Col: "b_more_io_inodes", Step: true}, {Col: "b_more_io_wait_inodes", Step: true}}},
	// w/s and wMB/s differ by the request size only: on two axes of one chart they
	// drew on the same pixels; the throughput is in Bandwidth, the size in iostat2
	{ID: "iostat", Title: "iostat -x: requests per second", Units: [2]string{"IO/s"}, Series: []SeriesSpec{
		{Col: "iostat_r_s", Label: "r/s"}, {Col: "iostat_w_s", Label: "w/s"}},
		Note: "Throughput (rMB/s, wMB/s) is in the Bandwidth chart: wMB/s is w/s times the request size (avgrq-sz), so on one chart the two lines lay on each other."},
	{ID: "iostat2", Title: "iostat -x: request size and utilisation", Units: [2]string{"sectors", "%"}, Series: []SeriesSpec{
		{Col: "iostat_avgrq_sz", Label: "avgrq-sz"}, {Col: "iostat_util_pct", Label: "%util", Axis: 1}}},
	{ID: "device", Title: "Device queue", Units: [2]string{"requests", "ms"}, Series: []SeriesSpec{
		{Col: "iostat_avgqu_sz", Label: "avgqu-sz (mean over the interval)"}, {Col: "device_queue", Label: "in queue (at the sample)", Step: true},
		{Col: "iostat_await_ms", Label: "await", Axis: 1}},
		Note: "avgqu-sz is iostat's: the requests queued or in service, averaged over each sampling interval (time-weighted), so it takes fractional values; in queue counts the requests waiting in the device's queue at the sampling instant, a whole number that can miss short bursts."},
	{ID: "wbt", Title: "blk-wbt", Units: [2]string{"requests", "step"}, HideZero: true, Series: []SeriesSpec{
		{Col: "wbt_max", Step: true}, {Col: "wbt_normal", Step: true}, {Col: "wbt_background", Step: true},
		{Col: "wbt_inflight"}, {Col: "wbt_step", Axis: 1, Step: true, Width: 2}}},
}

// notPlotted are columns no chart shows: the x axis and the cumulative counters.
var notPlotted = map[string]bool{"time_s": true, "dirtied_MB": true, "written_MB": true}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// units maps column-name suffixes to axis units, first match wins.
var units = []struct{ suf, unit string }{
	{"MBps", "MB/s"}, {"_MB", "MB"}, {"_r_s", "IO/s"}, {"_w_s", "IO/s"}, {"_ms", "ms"}, {"_us", "µs"},
	{"_s", "s"}, {"_inodes", "inodes"}, {"rq_sz", "sectors"}, {"_sz", "requests"}, {"_pages", "pages"},
	{"_pct", "%"},
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

// Label is a column name without its unit suffix ("dirty_MB" → "dirty").
func Label(name string) string {
	for _, suf := range []string{"_MBps", "_MB", "_ms", "_us", "_inodes", "_pages", "_pct"} {
		if strings.HasSuffix(name, suf) {
			return strings.TrimSuffix(name, suf)
		}
	}
	return name
}

// claimed lists every column some chart in Charts names.
func claimed() map[string]bool {
	used := map[string]bool{}
	for k := range notPlotted {
		used[k] = true
	}
	for _, c := range Charts {
		for _, s := range c.Series {
			used[s.Col] = true
		}
	}
	return used
}

// OtherCharts are charts for the columns of runs no chart in Charts names, grouped by
// unit, two units per chart ("Other series").
func OtherCharts(runs []Run) []ChartSpec {
	used := claimed()
	var order []string
	byUnit := map[string][]string{}
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		for _, n := range r.Result.Series.Names {
			if _, _, perDisk := report.DiskColumn(n); used[n] || seen[n] || perDisk {
				continue // the per-disk columns have their own chart
			}
			seen[n] = true
			u := unitOf(n)
			if _, ok := byUnit[u]; !ok {
				order = append(order, u)
			}
			byUnit[u] = append(byUnit[u], n)
		}
	}
	var out []ChartSpec
	for i := 0; i < len(order); i += 2 {
		sp := ChartSpec{ID: fmt.Sprintf("other%d", i/2), Title: "Other series"}
		for a := 0; a < 2 && i+a < len(order); a++ {
			u := order[i+a]
			sp.Units[a] = u
			for _, n := range byUnit[u] {
				sp.Series = append(sp.Series, SeriesSpec{Col: n, Axis: a})
			}
		}
		out = append(out, sp)
	}
	return out
}

// AllCharts are Charts plus the "Other series" charts for runs.
func AllCharts(runs []Run) []ChartSpec {
	return append(append([]ChartSpec(nil), Charts...), OtherCharts(runs)...)
}

// column returns a series' values in s (a sum when sp.Sum is set).
func column(sp SeriesSpec, s *report.Series) ([]float64, bool) {
	if len(sp.Sum) == 0 {
		return s.Column(sp.Col)
	}
	var out []float64
	for _, n := range sp.Sum {
		v, ok := s.Column(n)
		if !ok {
			return nil, false
		}
		if out == nil {
			out = append([]float64(nil), v...)
			continue
		}
		for i := range out {
			if i < len(v) {
				out[i] += v[i]
			}
		}
	}
	return out, out != nil
}

// Run is one labelled result for a chart ("" for a single run, "A"/"B" in A/B mode).
type Run struct {
	Label  string
	Result *report.Result
	Absent map[string]bool // columns the run's kernel does not have (AbsentColumns)
}

// MaxPoints is how many points a chart draws per series at most: denser series
// (a 10 ms sample over an hour) are averaged over buckets of samples, which would
// otherwise draw as solid noise.
const MaxPoints = 400

// bucket averages x and every column over groups of n samples (n = 1: unchanged).
func bucket(x []float64, cols [][]*float64, n int) ([]float64, [][]*float64) {
	return bucketSteps(x, cols, n, nil)
}

// bucketSteps is bucket where a step column (steps[i]: counts and limits, which
// change in whole jumps) takes the largest of its samples instead, a value it had.
func bucketSteps(x []float64, cols [][]*float64, n int, steps []bool) ([]float64, [][]*float64) {
	if n <= 1 {
		return x, cols
	}
	nb := (len(x) + n - 1) / n
	bx := make([]float64, nb)
	for i := range bx {
		bx[i] = x[i*n]
	}
	out := make([][]*float64, len(cols))
	for ci, c := range cols {
		bc := make([]*float64, nb)
		step := ci < len(steps) && steps[ci]
		for i := range bc {
			sum, k, top := 0.0, 0, math.Inf(-1)
			for j := i * n; j < min((i+1)*n, len(c)); j++ {
				if c[j] != nil {
					sum += *c[j]
					top = max(top, *c[j])
					k++
				}
			}
			if k > 0 {
				v := sum / float64(k)
				if step {
					v = top
				}
				bc[i] = &v
			}
		}
		out[ci] = bc
	}
	return bx, out
}

// ChartJSON builds uPlot options (minus size) and data for spec over runs; ok is false
// when no run has any of its columns (or, with HideZero, when all of them are 0).
// Series with "step": true are drawn as steps by static/lab.js.
func ChartJSON(spec ChartSpec, runs []Run) (opts, data string, ok bool) {
	if spec.Saves {
		return savesChartJSON(spec, runs)
	}
	type axis struct {
		Scale  string `json:"scale,omitempty"`
		Label  string `json:"label"`
		Side   int    `json:"side,omitempty"`
		Size   int    `json:"size"`
		Grid   *grid  `json:"grid,omitempty"`
		Stroke string `json:"stroke,omitempty"`
	}
	type series struct {
		Label  string    `json:"label"`
		Scale  string    `json:"scale,omitempty"`
		Stroke string    `json:"stroke,omitempty"`
		Width  float64   `json:"width,omitempty"`
		Dash   []float64 `json:"dash,omitempty"`
		Spans  bool      `json:"spanGaps"`
		Step   bool      `json:"step,omitempty"`
		Unit   string    `json:"unit,omitempty"`
		Doc    string    `json:"doc,omitempty"` // the legend entry's tooltip (static/lab.js)
		// A/B: Pair is the index of A's line's B line, PairOf that of B's A line
		// (static/lab.js shows both values in A's legend row and hides B's)
		Pair   int `json:"pair,omitempty"`
		PairOf int `json:"pairOf,omitempty"`
	}
	var x []float64
	cols := [][]*float64{}
	steps := []bool{}
	ser := []series{{Label: "time", Unit: "s"}}
	first := map[int]int{} // spec series -> the first run's line (its index in ser)
	used := [2]bool{}
	nonzero := false
	for ri, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		s := r.Result.Series
		t, _ := s.Column("time_s")
		if x == nil {
			x = t
		}
		for ci, sp := range spec.Series {
			if r.Absent[sp.Col] {
				continue
			}
			v, ok := column(sp, s)
			if !ok {
				continue
			}
			col := make([]*float64, len(x))
			for i := range col {
				if i < len(v) && !math.IsNaN(v[i]) && !math.IsInf(v[i], 0) && !(spec.Log && v[i] <= 0) && !(sp.PerCall && v[i] == 0) {
					val := v[i]
					col[i] = &val
					nonzero = nonzero || val != 0
				}
			}
			cols = append(cols, col)
			steps = append(steps, sp.Step)
			lab := sp.Label
			if lab == "" {
				lab = Label(sp.Col)
			}
			if r.Label != "" {
				lab = r.Label + ": " + lab
			}
			w := sp.Width
			if w == 0 {
				w = 1.5
			}
			stroke := sp.Color
			if stroke == "" {
				stroke = palette[ci%len(palette)]
			}
			sr := series{Label: lab, Scale: spec.Units[sp.Axis], Stroke: stroke, Width: w,
				Step: sp.Step, Unit: PageUnit(spec.Units[sp.Axis]), Spans: sp.PerCall}
			if d, ok := SeriesDoc(sp.Col); ok {
				sr.Doc = d.Text()
			}
			if a, ok := first[ci]; ok && ri > 0 {
				// B: the same hue, lighter and dashed; one legend row with A's
				sr.Dash = []float64{6, 4}
				sr.Stroke = lighter(stroke)
				sr.PairOf = a
				ser[a].Pair = len(ser)
				ser[a].Label = strings.TrimPrefix(ser[a].Label, runs[0].Label+": ")
			} else if !ok {
				first[ci] = len(ser)
			}
			used[sp.Axis] = true
			ser = append(ser, sr)
		}
	}
	if len(cols) == 0 || (spec.HideZero && !nonzero) {
		return "", "", false
	}
	title := spec.Title
	if n := (len(x) + MaxPoints - 1) / MaxPoints; n > 1 {
		x, cols = bucketSteps(x, cols, n, steps) // ChartSummary says so
	}
	scales := map[string]any{"x": map[string]any{"time": false}}
	axes := []axis{{Label: "time (s)", Size: 40}}
	for i, u := range spec.Units {
		if u == "" || !used[i] {
			continue
		}
		sc := map[string]any{"auto": true}
		if spec.Log {
			sc["distr"] = 3
			sc["log"] = 10
		}
		scales[u] = sc
		a := axis{Scale: u, Label: PageUnit(u), Size: 60}
		if i > 0 {
			a.Side = 1
			a.Grid = &grid{false}
		}
		axes = append(axes, a)
	}
	o := map[string]any{
		"title":  title,
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

// ChartHas reports whether ChartJSON draws spec over runs (its ok), without building
// the chart: some run has one of its columns, and with HideZero one of them has a
// value other than 0.
func ChartHas(spec ChartSpec, runs []Run) bool {
	if spec.Saves {
		return savesHas(runs)
	}
	for _, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		for _, sp := range spec.Series {
			if r.Absent[sp.Col] {
				continue
			}
			v, ok := column(sp, r.Result.Series)
			if !ok {
				continue
			}
			if !spec.HideZero {
				return true
			}
			for _, x := range v {
				if x != 0 && !math.IsNaN(x) && !math.IsInf(x, 0) && !(spec.Log && x <= 0) {
					return true
				}
			}
		}
	}
	return false
}

// lighter mixes a "#rrggbb" colour half-way to white (B's line in A/B).
func lighter(c string) string {
	if len(c) == 4 && c[0] == '#' { // #rgb
		c = string([]byte{'#', c[1], c[1], c[2], c[2], c[3], c[3]})
	}
	if len(c) != 7 || c[0] != '#' {
		return c
	}
	out := []byte{'#'}
	for i := 1; i < 7; i += 2 {
		v := hexVal(c[i])<<4 | hexVal(c[i+1])
		v += (255 - v) / 2
		out = append(out, "0123456789abcdef"[v>>4], "0123456789abcdef"[v&15])
	}
	return string(out)
}

type grid struct {
	Show bool `json:"show"`
}

// DrawnSeries are spec's series that some run has (and its kernel does not lack).
func DrawnSeries(spec ChartSpec, runs []Run) []SeriesSpec {
	var out []SeriesSpec
	for _, sp := range spec.Series {
		for _, r := range runs {
			if r.Result == nil || r.Result.Series == nil || r.Absent[sp.Col] {
				continue
			}
			if _, ok := column(sp, r.Result.Series); ok {
				out = append(out, sp)
				break
			}
		}
	}
	return out
}

// ChartSummary is a chart's text alternative: per drawn series its range and mean,
// and the sample count (from the same columns ChartJSON draws).
func ChartSummary(spec ChartSpec, runs []Run) string {
	if spec.Saves {
		return savesSummary(spec, runs)
	}
	var parts []string
	samples := 0
	for _, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		for _, sp := range spec.Series {
			if r.Absent[sp.Col] {
				continue
			}
			v, ok := column(sp, r.Result.Series)
			if !ok || len(v) == 0 {
				continue
			}
			samples = max(samples, len(v))
			lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
			for _, x := range v {
				if math.IsNaN(x) || math.IsInf(x, 0) || (sp.PerCall && x == 0) {
					continue
				}
				lo, hi, sum, n = min(lo, x), max(hi, x), sum+x, n+1
			}
			if n == 0 {
				continue
			}
			lab := sp.Label
			if lab == "" {
				lab = Label(sp.Col)
			}
			if r.Label != "" {
				lab = r.Label + " " + lab
			}
			parts = append(parts, fmt.Sprintf("%s %s to %s, mean %s %s", lab, num(lo), num(hi), num(sum/float64(n)), PageUnit(spec.Units[sp.Axis])))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	out := fmt.Sprintf("%s over %d samples: %s.", spec.Title, samples, strings.Join(parts, "; "))
	if n := (samples + MaxPoints - 1) / MaxPoints; n > 1 {
		out += fmt.Sprintf(" Each point of the chart stands for %d samples: their mean (for counts and limits, drawn as steps: their largest).", n)
	}
	if spec.Note != "" {
		out += " " + spec.Note
	}
	return out
}

// num prints a value with about three significant digits.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0 || a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.2g", v)
}

// PageUnit is how the page writes a unit: sizes are binary (MB is MiB, as the
// kernel's trace and the harness count them).
func PageUnit(u string) string {
	switch u {
	case "MB":
		return "MiB"
	case "MB/s":
		return "MiB/s"
	}
	return u
}
