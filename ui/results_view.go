package ui

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/wblab/wblab/engine"
)

// RunState is one run of the current view (A or B).
type RunState struct {
	ID       int
	Cfg      engine.Config
	Res      *engine.Result
	Trace    string
	Err      string
	Progress float64
	Started  time.Time
	WallMs   float64
}

// ResultsView holds the single or A/B runs and shows their status, progress, errors
// and summary cards.
type ResultsView struct {
	A, B *RunState

	lab *Root
}

func (c *ResultsView) start(a, b *RunState) { c.A, c.B = a, b }

func inFlight(r *RunState) bool { return r != nil && r.Res == nil && r.Err == "" }

func (c *ResultsView) running() bool { return inFlight(c.A) || inFlight(c.B) }

func (c *ResultsView) cancel() {
	for _, r := range []*RunState{c.A, c.B} {
		if inFlight(r) {
			c.lab.w.Cancel(r.ID)
		}
	}
}

// onMsg applies a message about A or B; it reports whether a result arrived.
func (c *ResultsView) onMsg(m Msg) bool {
	got := false
	for _, r := range []*RunState{c.A, c.B} {
		if r == nil || r.ID != m.ID {
			continue
		}
		switch m.Type {
		case "progress", "chunk":
			if m.Total > 0 {
				r.Progress = m.Done / m.Total
			}
		case "result":
			var res engine.Result
			if err := json.Unmarshal([]byte(m.Result), &res); err != nil {
				r.Err = "result: " + err.Error()
				break
			}
			r.Res, r.Trace, r.Progress = &res, m.Trace, 1
			r.WallMs = float64(time.Since(r.Started).Microseconds()) / 1000
			got = true
		case "error":
			r.Err = m.Message
		}
	}
	return got
}

// shownB is B when the page shows an A/B comparison with B finished.
func (c *ResultsView) shownB() *RunState {
	if c.lab.Mode == "ab" && c.B != nil && c.B.Res != nil {
		return c.B
	}
	return nil
}

// Status is the line above the results.
func (c *ResultsView) Status() string {
	if c.lab.Mode == "matrix" && c.lab.Matrix.M != nil {
		return c.lab.Matrix.Status()
	}
	switch {
	case c.A == nil:
		return "ready"
	case c.lab.Running():
		return fmt.Sprintf("running %s … %.0f%%", c.A.Cfg.Runtime, c.progress()*100)
	case c.A.Err == "cancelled" || (c.B != nil && c.B.Err == "cancelled"):
		return "cancelled"
	case c.A.Err != "":
		return "run failed"
	}
	return fmt.Sprintf("done: %s in %.0f ms", c.A.Res.Case, c.A.WallMs)
}

func (c *ResultsView) progress() float64 {
	if c.lab.Mode == "matrix" && c.lab.Matrix.M != nil {
		return c.lab.Matrix.progress()
	}
	p, n := 0.0, 0
	for _, r := range []*RunState{c.A, c.B} {
		if r != nil {
			p += r.Progress
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return p / float64(n)
}

// ProgressStyle sizes the progress bar.
func (c *ResultsView) ProgressStyle() string { return fmt.Sprintf("width: %.1f%%", c.progress()*100) }

// RunErrors are the failed runs' messages.
func (c *ResultsView) RunErrors() []string {
	var out []string
	for i, r := range []*RunState{c.A, c.B} {
		if r != nil && r.Err != "" {
			out = append(out, fmt.Sprintf("%s: %s", []string{"A", "B"}[i], r.Err))
		}
	}
	return out
}

// Cards are the summary cards of the shown runs (none in matrix mode).
func (c *ResultsView) Cards() []Card {
	if c.A == nil || c.A.Res == nil || c.lab.Mode == "matrix" {
		return nil
	}
	return Cards(c.A, c.shownB())
}

// Runs are the finished results the charts show.
func (c *ResultsView) Runs() []Run {
	if c.lab.Mode == "matrix" || c.A == nil || c.A.Res == nil {
		return nil
	}
	if b := c.shownB(); b != nil {
		return []Run{runOf("A", c.A), runOf("B", b)}
	}
	return []Run{runOf("", c.A)}
}

// runOf labels a finished run for the charts, with the columns its kernel lacks.
func runOf(label string, r *RunState) Run {
	return Run{Label: label, Result: r.Res, Absent: AbsentColumns(r.Cfg)}
}
