package ui

import (
	"fmt"
	"time"
)

// ChartsView draws the uPlot charts of the shown runs after each render, building
// each chart's options and data once per result set and mode.
type ChartsView struct {
	ver       int // bumped when the shown runs change
	drawn     int
	drawnMode string
	memoKey   string
	memo      map[string]drawn
	shown     map[string]string // element id -> the options its chart was drawn with
	lastLive  time.Time         // when live (running) data was last drawn
	// Explain opens every chart's "what is this?" list.
	Explain bool
	// DiskMetric is the per-disk chart's metric (disk_charts.go).
	DiskMetric string

	lab *Root
}

// LiveEvery is how often the charts of a running run are redrawn at most (building
// the chart data is the page's largest cost while the worker streams).
const LiveEvery = time.Second

// changed marks the charts for redrawing.
func (c *ChartsView) changed() { c.ver++ }

// draw (re)draws the charts when the runs or the mode changed, or when a re-render
// replaced their elements.
func (c *ChartsView) draw() {
	alive := c.alive()
	if c.drawn == c.ver && c.drawnMode == c.lab.Mode && alive {
		return
	}
	if c.lab.Results.live() && alive && time.Since(c.lastLive) < LiveEvery {
		return // the next render after LiveEvery draws the rows that came meanwhile
	}
	if c.lab.Results.live() {
		c.lastLive = time.Now()
		c.lab.w.renderAfter(LiveEvery)
	}
	m := c.data()
	c.drawn, c.drawnMode = c.ver, c.lab.Mode
	if c.shown == nil || !alive {
		c.shown = map[string]string{}
	}
	for _, id := range c.IDs() {
		d := m[id]
		if d.opts != "" && c.shown[id] == d.opts && ChartAlive(id) {
			UpdateChart(id, d.data) // same chart, more rows
			continue
		}
		DrawChart(id, d.opts, d.data)
		c.shown[id] = d.opts
	}
}

// Class dims the charts of a run that is not the form's.
func (c *ChartsView) RootClass() string {
	if r := c.lab.Results; r.showPrev() || r.Stale {
		return "charts stale"
	}
	return "charts"
}

// drawn is one chart's uPlot options and data, and its text alternative.
type drawn struct{ opts, data, summary string }

// data is the uPlot options and data of every chart with something to show, by
// element id.
func (c *ChartsView) data() map[string]drawn {
	key := fmt.Sprintf("%d/%s/%s", c.ver, c.lab.Mode, c.DiskMetric)
	if c.memoKey == key {
		return c.memo
	}
	runs := c.lab.Results.Runs()
	m := map[string]drawn{}
	for _, sp := range c.all(runs) {
		if o, d, ok := ChartJSON(sp, runs); ok {
			m["chart-"+sp.ID] = drawn{o, d, ChartSummary(sp, runs)}
		}
	}
	c.memoKey, c.memo = key, m
	return m
}

// Class shows the charts that have data (Vugu owns the attribute, so a re-render
// keeps it).
func (c *ChartsView) Class(id string) string {
	if _, ok := c.data()[id]; ok {
		return "chart shown"
	}
	return "chart"
}

// SeriesLine is one drawn series' explanation under a chart.
type SeriesLine struct{ Col, Label, Text string }

// Docs explain the series chart id draws.
func (c *ChartsView) Docs(id string) []SeriesLine {
	runs := c.lab.Results.Runs()
	for _, sp := range c.all(runs) {
		if "chart-"+sp.ID != id {
			continue
		}
		var out []SeriesLine
		for _, s := range DrawnSeries(sp, runs) {
			lab := s.Label
			if lab == "" {
				lab = Label(s.Col)
			}
			d, _ := SeriesDoc(s.Col)
			out = append(out, SeriesLine{s.Col, lab, d.Text()})
		}
		return out
	}
	return nil
}

// Summary is a chart's text alternative.
func (c *ChartsView) Summary(id string) string { return c.data()[id].summary }

func (c *ChartsView) alive() bool {
	if len(c.lab.Results.Runs()) == 0 {
		return true
	}
	return ChartAlive("chart-dirty")
}

// IDs are the chart element ids.
func (c *ChartsView) IDs() []string {
	var out []string
	for _, s := range c.all(c.lab.Results.Runs()) {
		out = append(out, "chart-"+s.ID)
	}
	return out
}

// ToggleExplain opens or closes every chart's explanation list.
func (c *ChartsView) ToggleExplain() { c.Explain = !c.Explain }

// ExplainText is the toggle's text.
func (c *ChartsView) ExplainText() string {
	if c.Explain {
		return "Hide the explanations"
	}
	return "Explain every chart"
}
