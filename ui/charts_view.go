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
	memo      map[string]string // element id -> the chart's text alternative
	memoAt    time.Time
	jsonKey   string
	json      map[string]drawn // element id -> its chart's options and data
	pending   []string         // the charts to draw, one per task
	drawing   bool             // drawNext is scheduled
	docsKey   string
	docs      map[string][]SeriesLine
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
// replaced their elements: one chart per main-thread task (Workers.later), each
// chart's options and data built when it is drawn.
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
	c.drawn, c.drawnMode = c.ver, c.lab.Mode
	if c.shown == nil || !alive {
		c.shown = map[string]string{}
	}
	c.pending = c.IDs()
	if !c.drawing && c.lab.w != nil {
		c.drawing = true
		// the page's style and layout first, in a task of their own: uPlot measures
		// its box, and a first chart after a render paid for the whole page's layout
		// (with the browser's font lookups) in its own task
		c.lab.w.later(func() {
			Layout()
			c.lab.w.later(c.drawNext)
		})
	}
}

// drawNext draws the next pending chart and leaves the rest to the next task.
func (c *ChartsView) drawNext() {
	if len(c.pending) == 0 {
		c.drawing = false
		return
	}
	id := c.pending[0]
	if !c.built(id) { // its options and data in one task, its draw in the next
		t0 := time.Now()
		c.chart(id)
		Took("chart json", t0)
		c.lab.w.later(c.drawNext)
		return
	}
	c.pending = c.pending[1:]
	t0 := time.Now()
	d := c.chart(id)
	switch {
	case d.opts != "" && c.shown[id] == d.opts && ChartAlive(id):
		UpdateChart(id, d.data) // same chart, more rows
	default:
		DrawChart(id, d.opts, d.data)
		c.shown[id] = d.opts
	}
	Took("draw "+id, t0)
	c.lab.w.later(c.drawNext)
}

// built reports whether chart id's options and data for the runs shown now are
// made (chart).
func (c *ChartsView) built(id string) bool {
	if c.jsonKey != c.key() {
		return false
	}
	_, ok := c.json[id]
	return ok
}

// chart is chart id's uPlot options and data for the runs shown now (built once
// per result set, mode and per-disk metric).
func (c *ChartsView) chart(id string) drawn {
	key := c.key()
	if c.jsonKey != key {
		c.jsonKey, c.json = key, map[string]drawn{}
	}
	if d, ok := c.json[id]; ok {
		return d
	}
	runs := c.lab.Results.Runs()
	var d drawn
	for _, sp := range c.all(runs) {
		if "chart-"+sp.ID == id {
			d.opts, d.data, _ = ChartJSON(sp, runs)
		}
	}
	c.json[id] = d
	return d
}

func (c *ChartsView) key() string { return fmt.Sprintf("%d/%s/%s", c.ver, c.lab.Mode, c.DiskMetric) }

// Class dims the charts of a run that is not the form's.
func (c *ChartsView) RootClass() string {
	if r := c.lab.Results; r.showPrev() || r.Stale {
		return "charts stale"
	}
	return "charts"
}

// drawn is one chart's uPlot options and data.
type drawn struct{ opts, data string }

// data is the text alternative of every chart with something to show, by element
// id (what a render needs; the charts' data is built when they are drawn). While a
// run streams it is brought up to date at most every LiveEvery.
func (c *ChartsView) data() map[string]string {
	key := c.key()
	if c.memoKey == key || (c.memo != nil && c.lab.Results.live() && time.Since(c.memoAt) < LiveEvery) {
		return c.memo
	}
	runs := c.lab.Results.Runs()
	m := map[string]string{}
	for _, sp := range c.all(runs) {
		if ChartHas(sp, runs) {
			m["chart-"+sp.ID] = ChartSummary(sp, runs)
		}
	}
	c.memoKey, c.memo, c.memoAt = key, m, time.Now()
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
type SeriesLine struct{ Col, Label, Text, Key string } // Key: its help panel entry

// Docs explain the series chart id draws.
func (c *ChartsView) Docs(id string) []SeriesLine {
	key := c.key()
	if c.docsKey != key {
		c.docsKey, c.docs = key, map[string][]SeriesLine{}
	}
	if d, ok := c.docs[id]; ok {
		return d
	}
	c.docs[id] = c.docsOf(id)
	return c.docs[id]
}

func (c *ChartsView) docsOf(id string) []SeriesLine {
	runs := c.lab.Results.Runs()
	for _, sp := range c.all(runs) {
		if "chart-"+sp.ID != id {
			continue
		}
		if sp.Saves {
			return savesSeries(runs)
		}
		var out []SeriesLine
		for _, s := range DrawnSeries(sp, runs) {
			lab := s.Label
			if lab == "" {
				lab = Label(s.Col)
			}
			d, _ := SeriesDoc(s.Col)
			out = append(out, SeriesLine{s.Col, lab, d.Text(), "series:" + s.Col})
		}
		return out
	}
	return nil
}

// Summary is a chart's text alternative.
func (c *ChartsView) Summary(id string) string { return c.data()[id] }

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

// CaseLine names the shown case and its kernels in one line (the embed shows it
// above the charts): "CASE · KERNEL", or "CASE · A: KERNEL · B: KERNEL".
func (c *ChartsView) CaseLine() string {
	r := c.lab.Results
	a := r.A
	if a == nil {
		return ""
	}
	cs := c.lab.Form.CaseBox
	if a.Res != nil && a.Res.Case != "" {
		cs = a.Res.Case
	}
	if b := r.B; b != nil && c.lab.abView() {
		return fmt.Sprintf("%s · A: %s · B: %s", cs, a.Run.Kernel, b.Run.Kernel)
	}
	return fmt.Sprintf("%s · %s", cs, a.Run.Kernel)
}
