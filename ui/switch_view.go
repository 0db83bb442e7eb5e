package ui

import (
	"fmt"
	"sort"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// SwitchView is the switch-activity panel: how often each path a kernel switch
// decides ran in A (and B), and in A/B the switches the two kernels differ in whose
// paths never ran ("this change never ran in this case").
type SwitchView struct {
	asked [2]int // the A and B run IDs text is for
	text  string // NeverRan's sentence for them
	lab   *Root
}

// SwitchRow is one path that ran in A or B.
type SwitchRow struct {
	Name, Doc, A, B string
}

func (c *SwitchView) runs() (a, b *report.Result) {
	r := c.lab.Results
	if c.lab.tableMode() || r.A == nil || r.A.Res == nil {
		return nil, nil
	}
	if sb := r.shownB(); sb != nil {
		return r.A.Res, sb.Res
	}
	return r.A.Res, nil
}

// Shown reports whether the panel is on screen.
func (c *SwitchView) Shown() bool { a, _ := c.runs(); return a != nil }

// Rows are the paths that ran, by name.
func (c *SwitchView) Rows() []SwitchRow { a, b := c.runs(); return SwitchRows(a, b) }

// SwitchRows lists the switch-guarded paths that ran in a or b (b may be nil).
func SwitchRows(a, b *report.Result) []SwitchRow {
	if a == nil {
		return nil
	}
	var out []SwitchRow
	for _, name := range sortedActivity(a, b) {
		row := SwitchRow{Name: name, Doc: Cat.ActivityDocs[name], A: fmt.Sprint(a.SwitchActivity[name])}
		if b != nil {
			row.B = fmt.Sprint(b.SwitchActivity[name])
		}
		out = append(out, row)
	}
	return out
}

func sortedActivity(a, b *report.Result) []string {
	var out []string
	for name, n := range a.SwitchActivity {
		if n > 0 || (b != nil && b.SwitchActivity[name] > 0) {
			out = append(out, name)
		}
	}
	if b != nil {
		for name, n := range b.SwitchActivity {
			if _, ok := a.SwitchActivity[name]; !ok && n > 0 {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// AB reports whether B's column is shown.
func (c *SwitchView) AB() bool { _, b := c.runs(); return b != nil }

// NeverRan is the A/B sentence naming the differing switches whose paths ran zero
// times in both runs, or "": the engine worker answers it once per pair of runs.
func (c *SwitchView) NeverRan() string {
	a, b := c.runs()
	if b == nil {
		return ""
	}
	ra, rb := c.lab.Results.A, c.lab.Results.B
	if c.lab.Results.showPrev() {
		ra, rb = c.lab.Results.PrevA, c.lab.Results.PrevB
	}
	key := [2]int{ra.ID, rb.ID}
	if key == c.asked {
		return c.text
	}
	c.asked, c.text = key, ""
	q := wire.NeverRan{A: ra.Run.Config, B: rb.Run.Config, ActA: a.SwitchActivity, ActB: b.SwitchActivity}
	go func() {
		var t wire.NeverRanText
		if Ask("neverran", q, &t) != nil {
			return
		}
		c.lab.ee.Lock()
		if c.asked == key {
			c.text = t.Text
		}
		c.lab.ee.UnlockRender()
	}()
	return ""
}
