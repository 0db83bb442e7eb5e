package ui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wblab/wblab/engine"
)

// SwitchView is the switch-activity panel: how often each path a kernel switch
// decides ran in A (and B), and in A/B the switches the two kernels differ in whose
// paths never ran ("this change never ran in this case").
type SwitchView struct {
	lab *Root
}

// SwitchRow is one path that ran in A or B.
type SwitchRow struct {
	Name, Doc, A, B string
}

func (c *SwitchView) runs() (a, b *engine.Result) {
	r := c.lab.Results
	if c.lab.Mode == "matrix" || r.A == nil || r.A.Res == nil {
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
func SwitchRows(a, b *engine.Result) []SwitchRow {
	if a == nil {
		return nil
	}
	docs := map[string]engine.ActivityPath{}
	for _, p := range engine.ActivityPaths() {
		docs[p.Name] = p
	}
	var out []SwitchRow
	for _, name := range sortedActivity(a, b) {
		p := docs[name]
		row := SwitchRow{Name: name, Doc: p.Doc + " (switches: " + strings.Join(p.Switches, ", ") + ")", A: fmt.Sprint(a.SwitchActivity[name])}
		if b != nil {
			row.B = fmt.Sprint(b.SwitchActivity[name])
		}
		out = append(out, row)
	}
	return out
}

func sortedActivity(a, b *engine.Result) []string {
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
// times in both runs, or "".
func (c *SwitchView) NeverRan() string {
	a, b := c.runs()
	if b == nil {
		return ""
	}
	return NeverRanText(c.lab.Results.A.Cfg, c.lab.Results.B.Cfg, a, b)
}

// NeverRanText is the sentence for runs a and b of configs ca and cb.
func NeverRanText(ca, cb engine.Config, a, b *engine.Result) string {
	va, erra := variantsOf(ca)
	vb, errb := variantsOf(cb)
	if erra != nil || errb != nil {
		return ""
	}
	names := engine.NeverRan(va, vb, a.SwitchActivity, b.SwitchActivity)
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, ", ") + ": this change never ran in this case"
}

func variantsOf(cfg engine.Config) (engine.Variants, error) {
	p, err := engine.LookupKernel(cfg.Kernel)
	if err != nil {
		return engine.Variants{}, err
	}
	return cfg.Variants.Apply(p.Variants)
}
