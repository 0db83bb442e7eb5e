package ui

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/report"
)

func TestSavesChart(t *testing.T) {
	withSaves := func(pts ...report.SavePoint) *report.Result {
		return &report.Result{Disks: []report.DiskResult{{BDI: "8:0"}, {BDI: "8:16", Editors: []report.LatencyResult{{N: int64(len(pts)), Series: pts}}}}}
	}
	a := withSaves(report.SavePoint{TimeS: 1, LatencyMs: 30, Wait: "journal_commit"}, report.SavePoint{TimeS: 3, LatencyMs: 900, Wait: "page_writeback"},
		report.SavePoint{TimeS: 5, LatencyMs: 40, Wait: "journal_commit"})
	b := withSaves(report.SavePoint{TimeS: 2, LatencyMs: 50, Wait: "wbt"}, report.SavePoint{TimeS: 3, LatencyMs: 60, Wait: "journal_commit"})
	for _, tc := range []struct {
		name   string
		runs   []Run
		labels []string
		x      []float64
	}{
		{"A", []Run{{Result: a}}, []string{"save start", "longest in journal_commit", "longest in page_writeback"}, []float64{1, 3, 5}},
		{"A/B", []Run{{Label: "A", Result: a}, {Label: "B", Result: b}},
			[]string{"save start", "A: longest in journal_commit", "A: longest in page_writeback", "B: longest in journal_commit", "B: longest in wbt"},
			[]float64{1, 2, 3, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.True(t, ChartHas(SavesChart, tc.runs))
			opts, data, ok := ChartJSON(SavesChart, tc.runs)
			require.True(t, ok)
			var o struct {
				Series []struct {
					Label, Doc string
					Dots       bool
				}
			}
			require.NoError(t, json.Unmarshal([]byte(opts), &o))
			var labels []string
			for i, s := range o.Series {
				labels = append(labels, s.Label)
				if i > 0 {
					assert.True(t, s.Dots, s.Label)
					assert.NotEmpty(t, s.Doc, s.Label)
				}
			}
			assert.Equal(t, tc.labels, labels)
			var d [][]*float64
			require.NoError(t, json.Unmarshal([]byte(data), &d))
			require.Len(t, d, len(tc.labels))
			var x []float64
			for _, v := range d[0] {
				x = append(x, *v)
			}
			assert.Equal(t, tc.x, x)
			// A's page_writeback save: 900 ms at 3 s, nothing else in its series
			var pw []float64
			for i, v := range d[2] {
				if v != nil {
					pw = append(pw, x[i], *v)
				}
			}
			assert.Equal(t, []float64{3, 900}, pw)
			assert.Contains(t, ChartSummary(SavesChart, tc.runs), "longest 900 ms at 3.0 s (page_writeback)")
			var ids []string
			for _, sp := range AllChartsFor(tc.runs, "") {
				ids = append(ids, sp.ID)
			}
			assert.Contains(t, ids, "saves")
		})
	}
	none := []Run{{Result: &report.Result{}}}
	assert.False(t, ChartHas(SavesChart, none))
	_, _, ok := ChartJSON(SavesChart, none)
	assert.False(t, ok)
	for _, sp := range AllChartsFor(none, "") {
		assert.NotEqual(t, "saves", sp.ID)
	}
	title, items := HelpFor("wait:journal_commit")
	assert.Equal(t, "time in journal_commit", title)
	assert.NotEmpty(t, items)
	lines := savesSeries([]Run{{Result: a}})
	require.Len(t, lines, 2)
	assert.Equal(t, "wait:journal_commit", lines[0].Key)
}
