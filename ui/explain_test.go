package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/report"
)

// Every series a chart can draw and every card has an explanation.
func TestEverythingIsExplained(t *testing.T) {
	for _, n := range engine.SeriesNames() {
		if notPlotted[n] {
			continue
		}
		d, ok := SeriesDoc(n)
		if assert.True(t, ok, "series %s has no explanation", n) {
			assert.NotEmpty(t, d.Meaning, n)
			assert.NotEmpty(t, d.Kernel+d.Function, "%s: no kernel variable or function", n)
		}
	}
	for _, c := range Charts {
		for _, s := range c.Series {
			_, ok := SeriesDoc(s.Col)
			assert.True(t, ok, "chart %s series %s has no explanation", c.ID, s.Col)
		}
	}
	for _, c := range engine.DiskSeries { // the "Per disk" chart's series, on any disk
		for _, n := range []int{1, 16} {
			d, ok := SeriesDoc(report.DiskColumnName(n, c.Name))
			if assert.True(t, ok, "per-disk series %s has no explanation", c.Name) {
				assert.NotEmpty(t, d.Kernel, c.Name)
			}
		}
	}
	r := &engine.Result{WriteBWMBps: 1, Tasks: []engine.TaskResult{{Done: true, RuntimeS: 1}}, Reads: engine.ReadSummary{Count: 1},
		FSStats: nil}
	for _, cd := range Cards(&RunState{Run: defaultRun(), Res: r}, nil) {
		_, ok := CardDoc(cd.ID)
		assert.True(t, ok, "card %s has no explanation", cd.ID)
	}
	for _, key := range []string{"series:dirty_MB", "card:data_age", "switch:more_io_wait", "preset:6.1", "repro:wu2011"} {
		title, items := HelpFor(key)
		assert.NotEmpty(t, title, key)
		assert.NotEmpty(t, items, key)
	}
}
