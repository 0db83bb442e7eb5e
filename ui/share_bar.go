package ui

import (
	"fmt"

	"github.com/wblab/wblab/ui/wire"
)

// ShareBar holds the share link, the embed snippet, the exports and the notice line.
type ShareBar struct {
	Text   string // the shown share link / embed snippet
	Notice string

	lab *Root
}

// ShareLink shows the page's link with the current state.
func (c *ShareBar) ShareLink() {
	c.hash(c.lab.state(), func(h string) {
		c.Text = PageURL() + "#" + h
		Copy(c.Text)
		c.Notice = "link copied"
	})
}

// hash asks the engine for a state's link and calls then with it (event lock held).
func (c *ShareBar) hash(st State, then func(string)) {
	go func() {
		var ck wire.Checked
		err := Ask("check", wire.Check{State: st}, &ck)
		c.lab.ee.Lock()
		defer c.lab.ee.UnlockRender()
		if err != nil {
			c.Notice = "engine: " + err.Error()
			return
		}
		then(ck.Hash)
	}()
}

// EmbedSnippet shows an iframe snippet for the current state in embed mode.
func (c *ShareBar) EmbedSnippet() {
	st := c.lab.state()
	st.Embed = true
	c.hash(st, func(h string) {
		c.Text = fmt.Sprintf(`<iframe src="%s#%s" width="900" height="640" style="border:0" title="wblab"></iframe>`, PageURL(), h)
		c.Notice = "embed snippet"
	})
}

// Export downloads what the page shows: the single run or A and B (json, csv,
// trace), in matrix mode the table (csv, json, the harness's text), in sweep mode
// the sweep's table (csv, json).
func (c *ShareBar) Export(kind string) {
	var f File
	var err error
	switch c.lab.Mode {
	case "matrix":
		f, err = ExportMatrix(kind, c.lab.Matrix.M)
	case "sweep":
		f, err = ExportSweep(kind, c.lab.Sweep.S)
	default:
		runs := []*RunState{c.lab.Results.A}
		if b := c.lab.Results.shownB(); b != nil {
			runs = append(runs, b)
		}
		f, err = ExportRuns(kind, runs)
	}
	if err != nil {
		c.Notice = err.Error()
		return
	}
	Download(f.Name, f.Mime, f.Text)
	c.Notice = "saved " + f.Name
}

// Matrix reports whether the page is in matrix mode (the exports are the table's).
func (c *ShareBar) Matrix() bool { return c.lab.Mode == "matrix" }

// Runs reports whether the exports are a single or A/B run's (which have a trace).
func (c *ShareBar) Runs() bool { return !c.lab.tableMode() }
