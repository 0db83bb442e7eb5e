package ui

import (
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/report"

	"github.com/vugu/vugu"
)

// Per-disk series: a machine with several disks has each of the engine's per-disk
// series once per disk, named "diskN_" + metric (N = 1 for the first disk). The
// "Per disk" chart draws one metric for every disk; a select picks the metric.

// DiskMetrics are the per-disk metrics the runs' series have, in series order.
func DiskMetrics(runs []Run) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		for _, n := range r.Result.Series.Names {
			if _, m, ok := report.DiskColumn(n); ok && !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// PerDiskChart is the "Per disk" chart of metric: one series per disk the runs
// have; ok is false when they have no per-disk series.
func PerDiskChart(runs []Run, metric string) (ChartSpec, bool) {
	ms := DiskMetrics(runs)
	if len(ms) == 0 {
		return ChartSpec{}, false
	}
	found := false
	for _, m := range ms {
		found = found || m == metric
	}
	if !found {
		metric = ms[0]
	}
	sp := ChartSpec{ID: "disks", Title: "Per disk: " + Label(metric), Units: [2]string{unitOf(metric)}}
	seen := map[int]bool{}
	for _, r := range runs {
		if r.Result == nil || r.Result.Series == nil {
			continue
		}
		for _, n := range r.Result.Series.Names {
			if d, m, ok := report.DiskColumn(n); ok && m == metric && !seen[d] {
				seen[d] = true
				label := "disk " + strconv.Itoa(d)
				if d-1 < len(r.Result.Disks) {
					label += " " + r.Result.Disks[d-1].Device
				}
				sp.Series = append(sp.Series, SeriesSpec{Col: n, Label: label, Step: strings.HasSuffix(metric, "thresh_MB")})
			}
		}
	}
	return sp, true
}

// AllChartsFor are Charts, the per-disk chart of metric, the editors' saves
// (SavesChart) and the "Other series" charts for runs.
func AllChartsFor(runs []Run, metric string) []ChartSpec {
	out := append([]ChartSpec(nil), Charts...)
	if sp, ok := PerDiskChart(runs, metric); ok {
		out = append(out, sp)
	}
	if savesHas(runs) {
		out = append(out, SavesChart)
	}
	return append(out, OtherCharts(runs)...)
}

// DiskMetrics are the metrics the per-disk chart can show ("" when there is none).
func (c *ChartsView) DiskMetrics() []string { return DiskMetrics(c.lab.Results.Runs()) }

// Metric is the metric the per-disk chart shows.
func (c *ChartsView) Metric() string {
	ms := c.DiskMetrics()
	for _, m := range ms {
		if m == c.DiskMetric {
			return m
		}
	}
	if len(ms) > 0 {
		return ms[0]
	}
	return ""
}

// SetDiskMetric handles the per-disk chart's select.
func (c *ChartsView) SetDiskMetric(e vugu.DOMEvent) {
	c.DiskMetric = e.PropString("target", "value")
	c.changed()
}

func (c *ChartsView) all(runs []Run) []ChartSpec { return AllChartsFor(runs, c.Metric()) }
