package ui

import "fmt"

// ChartsView draws the uPlot charts of the shown runs after each render, building
// each chart's options and data once per result set and mode.
type ChartsView struct {
	ver       int // bumped when the shown runs change
	drawn     int
	drawnMode string
	memoKey   string
	memo      map[string]drawn

	lab *Root
}

// changed marks the charts for redrawing.
func (c *ChartsView) changed() { c.ver++ }

// draw (re)draws the charts when the runs or the mode changed, or when a re-render
// replaced their elements.
func (c *ChartsView) draw() {
	if c.drawn == c.ver && c.drawnMode == c.lab.Mode && c.alive() {
		return
	}
	m := c.data()
	c.drawn, c.drawnMode = c.ver, c.lab.Mode
	for _, id := range c.IDs() {
		DrawChart(id, m[id].opts, m[id].data)
	}
}

// drawn is one chart's uPlot options and data, and its text alternative.
type drawn struct{ opts, data, summary string }

// data is the uPlot options and data of every chart with something to show, by
// element id.
func (c *ChartsView) data() map[string]drawn {
	key := fmt.Sprintf("%d/%s", c.ver, c.lab.Mode)
	if c.memoKey == key {
		return c.memo
	}
	runs := c.lab.Results.Runs()
	m := map[string]drawn{}
	for _, sp := range AllCharts(runs) {
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

// Summary is a chart's text alternative.
func (c *ChartsView) Summary(id string) string { return c.data()[id].summary }

func (c *ChartsView) alive() bool {
	if a := c.lab.Results.A; a == nil || a.Res == nil {
		return true
	}
	return ChartAlive("chart-dirty")
}

// IDs are the chart element ids.
func (c *ChartsView) IDs() []string {
	var out []string
	for _, s := range AllCharts(c.lab.Results.Runs()) {
		out = append(out, "chart-"+s.ID)
	}
	return out
}
