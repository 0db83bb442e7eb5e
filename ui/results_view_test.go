package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wblab/wblab/engine/report"
)

// TestFillSeries: a streamed run's result without series data takes the chunks' rows
// when the columns match, and has no series otherwise (never a series without data).
func TestFillSeries(t *testing.T) {
	live := &report.Series{Names: []string{"time_s", "dirty_MB"}, Data: [][]float64{{1, 2}, {5, 6}}}
	for _, tc := range []struct {
		name   string
		series *report.Series
		live   *report.Series
		want   *report.Series
	}{
		{"filled from the chunks", &report.Series{IntervalS: 1, Names: live.Names}, live,
			&report.Series{IntervalS: 1, Names: live.Names, Data: live.Data}},
		{"other columns", &report.Series{IntervalS: 1, Names: []string{"time_s"}}, live, nil},
		{"no chunks", &report.Series{IntervalS: 1, Names: live.Names}, nil, nil},
		{"a whole series stays", &report.Series{IntervalS: 1, Names: []string{"time_s"}, Data: [][]float64{{9}}}, live,
			&report.Series{IntervalS: 1, Names: []string{"time_s"}, Data: [][]float64{{9}}}},
		{"no series", nil, live, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &report.Result{Series: tc.series}
			fillSeries(res, tc.live)
			assert.Equal(t, tc.want, res.Series)
		})
	}
}
