package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wblab/wblab/engine"
)

// fakeResult has every column of names, value i+1 (or 0 for zero) at sample i.
func fakeResult(names []string, zero map[string]bool) *engine.Result {
	s := &engine.Series{IntervalS: 1, Names: names}
	for _, n := range names {
		col := make([]float64, 5)
		for i := range col {
			if !zero[n] {
				col[i] = float64(i + 1)
			}
		}
		s.Data = append(s.Data, col)
	}
	return &engine.Result{Series: s}
}

func chartOpts(t *testing.T, sp ChartSpec, runs []Run) (map[string]any, []any) {
	t.Helper()
	o, d, ok := ChartJSON(sp, runs)
	if !ok {
		return nil, nil
	}
	var om map[string]any
	var dm []any
	if err := json.Unmarshal([]byte(o), &om); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(d), &dm); err != nil {
		t.Fatal(err)
	}
	return om, dm
}

// Every engine column is drawn, by a chart of Charts or, for a column no chart
// names (a new one), by an "Other series" chart; each chart has labelled axes.
func TestEveryColumnIsCharted(t *testing.T) {
	res, err := engine.Run(t.Context(), func() engine.Config {
		c := engine.DefaultConfig()
		c.Runtime = engine.Duration(5e9)
		return c
	}())
	if err != nil {
		t.Fatal(err)
	}
	runs := []Run{{Label: "", Result: res}}
	drawn := map[string]bool{}
	for _, sp := range AllCharts(runs) {
		for _, s := range sp.Series {
			drawn[s.Col] = true
		}
	}
	for _, n := range res.Series.Names {
		if !notPlotted[n] && !drawn[n] {
			t.Errorf("column %s is in no chart", n)
		}
	}
	for _, sp := range AllCharts(runs) {
		om, _ := chartOpts(t, sp, runs)
		if om == nil {
			continue
		}
		axes := om["axes"].([]any)
		if len(axes) < 2 || len(axes) > 3 {
			t.Errorf("%s: %d axes (x plus one or two y)", sp.ID, len(axes))
		}
		for _, a := range axes {
			if a.(map[string]any)["label"] == "" {
				t.Errorf("%s: an axis without a unit", sp.ID)
			}
		}
	}
}

func TestDirtyPlusWriteback(t *testing.T) {
	res := fakeResult([]string{"time_s", "dirty_MB", "writeback_MB", "setpoint_MB"}, nil)
	om, dm := chartOpts(t, Charts[0], []Run{{Label: "", Result: res}})
	var labels []string
	for _, s := range om["series"].([]any) {
		labels = append(labels, s.(map[string]any)["label"].(string))
	}
	if got := strings.Join(labels, ","); got != "time,dirty,writeback,dirty+writeback,setpoint" {
		t.Fatalf("series %s", got)
	}
	sum := dm[3].([]any)
	if sum[4].(float64) != 10 {
		t.Errorf("dirty+writeback at 4: %v, want 10", sum[4])
	}
}

func TestOtherAndWBTCharts(t *testing.T) {
	names := []string{"time_s", "dirty_MB", "wbt_max", "wbt_step", "wbt_inflight", "foo_ms", "bar_pct", "baz_pages", "qux", "b_more_io_wait_inodes"}
	res := fakeResult(names, map[string]bool{"wbt_max": true, "wbt_step": true, "wbt_inflight": true})
	runs := []Run{{Label: "", Result: res}}
	for _, sp := range Charts {
		if sp.ID == "wbt" {
			if _, _, ok := ChartJSON(sp, runs); ok {
				t.Error("blk-wbt chart shown with wbt off (all zero)")
			}
		}
		if sp.ID == "lists" {
			om, _ := chartOpts(t, sp, runs)
			if om == nil || !strings.Contains(om["series"].([]any)[1].(map[string]any)["label"].(string), "b_more_io_wait") {
				t.Errorf("b_more_io_wait_inodes not in the writeback lists chart: %v", om)
			}
		}
	}
	other := OtherCharts(runs)
	if len(other) != 2 {
		t.Fatalf("other charts %+v", other)
	}
	n := 0
	for _, sp := range other {
		if sp.Units[0] == "" {
			t.Errorf("%s: no unit", sp.ID)
		}
		n += len(sp.Series)
	}
	if n != 4 {
		t.Errorf("%d other series, want foo_ms, bar_pct, baz_pages, qux", n)
	}
	res2 := fakeResult(names, nil)
	for _, sp := range Charts {
		if sp.ID == "wbt" {
			om, _ := chartOpts(t, sp, []Run{{Label: "A", Result: res2}, {Label: "B", Result: res2}})
			if om == nil {
				t.Fatal("no blk-wbt chart with wbt on")
			}
			steps := 0
			for _, s := range om["series"].([]any) {
				if s.(map[string]any)["step"] == true {
					steps++
				}
			}
			if steps != 4 || len(om["axes"].([]any)) != 3 {
				t.Errorf("blk-wbt chart: %d step series (want wbt_max, wbt_step for A and B), %d axes", steps, len(om["axes"].([]any)))
			}
		}
	}
}

func TestUnits(t *testing.T) {
	for n, want := range map[string]string{"iostat_r_s": "IO/s", "iostat_wMBps": "MB/s", "iostat_avgrq_sz": "sectors",
		"iostat_avgqu_sz": "requests", "iostat_util_pct": "%", "dirty_MB": "MB", "x_inodes": "inodes", "wbt_step": "count"} {
		if got := unitOf(n); got != want {
			t.Errorf("unitOf(%s) = %s, want %s", n, got, want)
		}
	}
}

// ChartHas answers as ChartJSON's ok, without building the chart.
func TestChartHasIsChartJSONsOK(t *testing.T) {
	names := []string{"time_s", "dirty_MB", "writeback_MB", "wbt_max", "wbt_normal"}
	tests := []struct {
		name string
		runs []Run
	}{
		{"no run", nil},
		{"every column", []Run{{Result: fakeResult(names, nil)}}},
		{"wbt all zero", []Run{{Result: fakeResult(names, map[string]bool{"wbt_max": true, "wbt_normal": true})}}},
		{"dirty absent", []Run{{Result: fakeResult(names, nil), Absent: map[string]bool{"dirty_MB": true, "writeback_MB": true}}}},
		{"A and B", []Run{{Label: "A", Result: fakeResult(names, nil)}, {Label: "B", Result: fakeResult(names, map[string]bool{"wbt_max": true})}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, sp := range AllCharts(tc.runs) {
				_, _, ok := ChartJSON(sp, tc.runs)
				if got := ChartHas(sp, tc.runs); got != ok {
					t.Errorf("%s: ChartHas %v, ChartJSON ok %v", sp.ID, got, ok)
				}
			}
		})
	}
}

// A dense step column (a count) keeps whole values: each point is the largest of
// its samples; other columns are averaged.
func TestBucketStepsKeepCounts(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	tests := []struct {
		name  string
		steps []bool
		want  []float64
	}{
		{"mean", nil, []float64{0.5, 0.5}},
		{"step: largest", []bool{true}, []float64{1, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, cols := bucketSteps([]float64{0, 1, 2, 3}, [][]*float64{{v(0), v(1), v(1), v(0)}}, 2, tc.steps)
			for i, w := range tc.want {
				if *cols[0][i] != w {
					t.Errorf("point %d: %v, want %v", i, *cols[0][i], w)
				}
			}
		})
	}
}

// In A/B, B's line is A's colour, lighter and dashed, and A's legend row stands for
// both (pair, pairOf); the title has no sampling note.
func TestABLinesPaired(t *testing.T) {
	names := []string{"time_s", "dirty_MB", "writeback_MB"}
	runs := []Run{{Label: "A", Result: fakeResult(names, nil)}, {Label: "B", Result: fakeResult(names, nil)}}
	o, _ := chartOpts(t, Charts[0], runs)
	ser := o["series"].([]any)
	a, b := ser[1].(map[string]any), ser[4].(map[string]any) // A: dirty, writeback, their sum; then B
	if a["label"] != "dirty" || b["label"] != "B: dirty" {
		t.Fatalf("labels %v, %v", a["label"], b["label"])
	}
	if a["pair"] != 4.0 || b["pairOf"] != 1.0 {
		t.Errorf("pair %v, pairOf %v", a["pair"], b["pairOf"])
	}
	if a["stroke"] == b["stroke"] || b["stroke"] != lighter(a["stroke"].(string)) {
		t.Errorf("strokes A %v, B %v", a["stroke"], b["stroke"])
	}
	if lighter("#000000") != "#7f7f7f" || lighter("#111") != "#888888" {
		t.Errorf("lighter: %s, %s", lighter("#000000"), lighter("#111"))
	}
	if strings.Contains(o["title"].(string), "mean") {
		t.Errorf("title %q", o["title"])
	}
}
