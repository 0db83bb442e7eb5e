package ui

import "strings"

// ReproBar is the row of "Reproduce" presets and the chosen preset's explanation.
type ReproBar struct {
	ID string // the chosen preset ("" for none)

	lab *Root
}

// Presets are the buttons.
func (c *ReproBar) Presets() []Repro { return Repros() }

// Apply sets the page up for a preset and runs it.
func (c *ReproBar) Apply(id string) {
	r, ok := ReproByID(id)
	if !ok {
		return
	}
	if !ReproAvailable(r) {
		c.lab.Share.Notice = r.Title + " needs the kernel presets " + ReproMissing(r)
		return
	}
	c.lab.Cancel()
	c.lab.Guided = false
	c.lab.applyState(ReproState(r, c.lab.state()))
	if r.State.Table == "" {
		c.lab.Matrix.Table = ""
	}
	c.lab.Run()
}

// Text is the chosen preset's explanation.
func (c *ReproBar) Text() string {
	r, ok := ReproByID(c.ID)
	if !ok {
		return ""
	}
	return r.Title + ": " + r.Explain
}

// Title is a preset button's tooltip.
func (c *ReproBar) Title(r Repro) string {
	if !ReproAvailable(r) {
		return "needs the kernel presets " + ReproMissing(r) + " (not in this engine yet)"
	}
	return Plain(r.Explain)
}

// Seg is a piece of a text: plain, or code (between backticks in the source).
type Seg struct {
	Text string
	Code bool
}

// Segs splits a text at its backticks: "run `wblab x` now" is "run ", code
// "wblab x", " now" (an unpaired backtick stays as it is).
func Segs(s string) []Seg {
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 { // unpaired
		return []Seg{{Text: s}}
	}
	var out []Seg
	for i, p := range parts {
		if p != "" {
			out = append(out, Seg{Text: p, Code: i%2 == 1})
		}
	}
	return out
}

// Plain is a text without its code backticks (tooltips).
func Plain(s string) string {
	var b strings.Builder
	for _, sg := range Segs(s) {
		b.WriteString(sg.Text)
	}
	return b.String()
}

// Class marks the chosen preset's button.
func (c *ReproBar) Class(r Repro) string {
	if c.ID == r.ID {
		return "repro-btn active"
	}
	return "repro-btn"
}
