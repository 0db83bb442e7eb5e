package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wblab/wblab/engine/report"
)

func TestPerDiskChart(t *testing.T) {
	res := &report.Result{
		Series: &report.Series{Names: []string{"time_s", "dirty_MB", "disk1_dirty_MB", "disk1_bdi_thresh_MB", "disk2_dirty_MB", "disk2_bdi_thresh_MB"}},
		Disks:  []report.DiskResult{{Device: "usb2-stick"}, {Device: "wu2011-hdd"}},
	}
	runs := []Run{{Label: "A", Result: res}}
	assert.Equal(t, []string{"dirty_MB", "bdi_thresh_MB"}, DiskMetrics(runs))
	for _, tc := range []struct {
		metric, title string
		cols          []string
	}{
		{"bdi_thresh_MB", "Per disk: bdi_thresh", []string{"disk1_bdi_thresh_MB", "disk2_bdi_thresh_MB"}},
		{"", "Per disk: dirty", []string{"disk1_dirty_MB", "disk2_dirty_MB"}},
		{"nope", "Per disk: dirty", []string{"disk1_dirty_MB", "disk2_dirty_MB"}},
	} {
		sp, ok := PerDiskChart(runs, tc.metric)
		assert.True(t, ok)
		assert.Equal(t, tc.title, sp.Title)
		var cols []string
		for _, s := range sp.Series {
			cols = append(cols, s.Col)
		}
		assert.Equal(t, tc.cols, cols)
		assert.Equal(t, "disk 2 wu2011-hdd", sp.Series[1].Label)
	}
	for _, c := range OtherCharts(runs) {
		for _, s := range c.Series {
			_, _, perDisk := report.DiskColumn(s.Col)
			assert.False(t, perDisk, "%s drawn in Other series", s.Col)
		}
	}
	_, ok := PerDiskChart([]Run{{Result: &report.Result{Series: &report.Series{Names: []string{"dirty_MB"}}}}}, "")
	assert.False(t, ok, "one disk: no per-disk chart")
}
