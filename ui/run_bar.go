package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vugu/vugu"
)

// RunBar is the line every view starts with: the case box, Run and Cancel, the status
// and progress bar, and a summary of every input and run error (so an error is seen
// where the user is looking, not only next to a field far down the form).
type RunBar struct {
	lab *Root
}

// CaseBox is the case box's text.
func (c *RunBar) CaseBox() string { return c.lab.Form.CaseBox }

// SetCaseBox keeps the case box text.
func (c *RunBar) SetCaseBox(e vugu.DOMEvent) { c.lab.Form.CaseBox = e.PropString("target", "value") }

// CaseKey runs the typed case on Enter.
func (c *RunBar) CaseKey(e vugu.DOMEvent) {
	if e.PropString("key") != "Enter" {
		return
	}
	c.lab.Form.CaseBox = e.PropString("target", "value")
	c.lab.Form.ApplyCase(c.lab.Run)
}

// ApplyCase sets the form from the case box and runs it.
func (c *RunBar) ApplyCase() {
	c.lab.Form.ApplyCase(c.lab.Run)
}

// Run and Cancel are the buttons.
func (c *RunBar) Run()    { c.lab.Run() }
func (c *RunBar) Cancel() { c.lab.Cancel() }

// CaseNote says why the case box is empty (input errors: its placeholder) or what
// its name leaves out (a line under it).
func (c *RunBar) CaseNote() string { return c.lab.Form.CaseNote() }

// CaseErr is the case box's error.
func (c *RunBar) CaseErr() string { return c.lab.Form.Err("case") }

// Status is the status line.
func (c *RunBar) Status() string {
	if n := len(c.lab.Form.Errs); n > 0 && !c.lab.Running() {
		return fmt.Sprintf("not run: %d input error%s", n, plural(n))
	}
	return c.lab.Results.Status()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Progress is the progress in percent.
func (c *RunBar) Progress() string { return fmt.Sprintf("%.0f", c.lab.Results.progress()*100) }

// ProgressStyle sizes the progress bar.
func (c *RunBar) ProgressStyle() string { return c.lab.Results.ProgressStyle() }

// Problem is one line of the error summary: the message (naming its setting), and
// the element id to jump to.
type Problem struct{ Target, Text string }

// Problems are the input errors (by field, in form order) and the failed runs.
func (c *RunBar) Problems() []Problem {
	var out []Problem
	errs := c.lab.Form.Errs
	seen := map[string]bool{}
	for _, f := range Fields(c.lab.Form.DeviceModel()) {
		if m, ok := errs[f.ID]; ok {
			// the engine's messages start with the setting's name
			// ("runtime: 100000 h is out of range 1 ms-24 h")
			out = append(out, Problem{"f-" + f.ID, m})
			seen[f.ID] = true
		}
	}
	var rest []string
	for k := range errs {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		target := "f-case"
		switch {
		case k == "cases":
			target = "m-cases"
		case strings.HasPrefix(k, "b."):
			target = "b-" + strings.TrimPrefix(k, "b.")
		}
		out = append(out, Problem{target, errs[k]})
	}
	for _, e := range c.lab.Results.RunErrors() {
		if !strings.HasSuffix(e, ": cancelled") {
			out = append(out, Problem{"status", e})
		}
	}
	return out
}

// Focus opens the form and moves to a field named in the summary.
func (c *RunBar) Focus(id string) {
	c.lab.FormOpen = true
	FocusElement(id)
}

// ProblemsHead heads the error summary: how many input errors and failed runs.
func (c *RunBar) ProblemsHead() string {
	in, runs := 0, 0
	for _, p := range c.Problems() {
		if p.Target == "status" {
			runs++
		} else {
			in++
		}
	}
	var parts []string
	if in > 0 {
		parts = append(parts, fmt.Sprintf("%d input error%s (click one to go to its field)", in, plural(in)))
	}
	if runs > 0 {
		parts = append(parts, fmt.Sprintf("%d failed run%s", runs, plural(runs)))
	}
	return strings.Join(parts, "; ") + ":"
}
