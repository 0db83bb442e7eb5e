package ui

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

func TestExportRuns(t *testing.T) {
	res := func(c string) *engine.Result {
		r := fakeResult([]string{"time_s", "dirty_MB"}, nil)
		r.Case = c
		return r
	}
	a := &RunState{Run: defaultRun(), Res: res("c/a"), Trace: "ta\n"}
	b := &RunState{Run: defaultRun(), Res: res("c/a"), Trace: "tb\n"}
	for _, tc := range []struct {
		kind  string
		runs  []*RunState
		name  string
		check func(t *testing.T, text string)
	}{
		{"json", []*RunState{a}, "wblab-c_a.json", func(t *testing.T, s string) { assert.Contains(t, s, `"case": "c/a"`) }},
		{"json", []*RunState{a, b}, "wblab-c_a-ab.json", func(t *testing.T, s string) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(s), &m))
			assert.Contains(t, m, "A")
			assert.Contains(t, m, "B")
		}},
		{"csv", []*RunState{a, b}, "wblab-c_a-ab.csv", func(t *testing.T, s string) {
			lines := strings.Split(strings.TrimSpace(s), "\n")
			assert.Equal(t, "run,time_s,dirty_MB", lines[0])
			assert.Len(t, lines, 11)
			assert.Equal(t, "B,1,1", lines[6])
		}},
		{"trace", []*RunState{a, b}, "wblab-c_a-ab.trace.txt", func(t *testing.T, s string) {
			assert.True(t, strings.HasPrefix(s, "# A: c/a on "), s)
			assert.Contains(t, s, "ta\n# B: c/a on ")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ExportRuns(tc.kind, tc.runs)
			require.NoError(t, err)
			assert.Equal(t, tc.name, f.Name)
			tc.check(t, f.Text)
		})
	}
	_, err := ExportRuns("json", []*RunState{{}})
	assert.ErrorContains(t, err, "nothing to export")
}

func TestExportMatrix(t *testing.T) {
	m := &Matrix{Base: "k1", Test: "k2", Cases: []string{"c1", "c2"}, Cells: [][2]Cell{
		{{Done: true, BW: 50}, {Done: true, BW: 55}}, {{Done: true, BW: 40}, {Err: "fs: bad"}}}}
	for _, tc := range []struct{ kind, want string }{
		{"csv", "c1,k1,k2,50.00,10.00,55.00,,,\nc2,k1,k2,40.00,,,,,fs: bad\n"},
		{"json", `"delta_pct": 10`},
		{"text", "TOTAL"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			f, err := ExportMatrix(tc.kind, m)
			require.NoError(t, err)
			assert.Contains(t, f.Text, tc.want)
		})
	}
}

func TestPageMsg(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`device x: unknown key "a" for model hdd (keys: qd, bw)`, `device x: unknown key "a" for model hdd (see the device fields in the form)`},
		{`kernel: "9" is not a kernel preset (presets: a, b)`, `kernel: "9" is not a kernel preset (see the list in the form)`},
		{"runtime: 1ns out of range [1ms, 24h0m0s]", "runtime: 1ns out of range [1ms, 24h0m0s]"},
	} {
		assert.Equal(t, tc.want, pageMsg(tc.in))
	}
}

func TestBucket(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	x, cols := bucket([]float64{0, 1, 2, 3, 4}, [][]*float64{{v(1), v(3), nil, v(5), v(7)}}, 2)
	assert.Equal(t, []float64{0, 2, 4}, x)
	assert.Equal(t, 2.0, *cols[0][0])
	assert.Equal(t, 5.0, *cols[0][1])
	assert.Equal(t, 7.0, *cols[0][2])
}

func TestChartSummary(t *testing.T) {
	r := fakeResult([]string{"time_s", "dirty_MB", "writeback_MB"}, nil)
	s := ChartSummary(Charts[0], []Run{{Label: "A", Result: r}})
	assert.Contains(t, s, "A dirty 1.00 to 5.00, mean 3.00 MiB")
	assert.Contains(t, s, "over 5 samples")
}
