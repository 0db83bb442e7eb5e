package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/ui/wire"
)

// MatrixView runs a case list on the base (A) and test (B) kernels and shows the
// table; MatrixCases is its case-list control in the form column.
type MatrixView struct {
	Table  string // built-in matrix table name, or "" for the text box
	Cases  string // matrix case list, one per line
	M      *Matrix
	SortBy string // MatrixSorts
	Opened string // the case last opened as A/B

	pending  string         // a row to open once the matrix is planned (a link's open=)
	planning bool           // waiting for the engine's plan of the runs
	cells    map[int][3]int // run id -> matrix row, column, seed index
	seeds    int
	lab      *Root
	rendered string // the page's shape at the last render (shape)
}

// MatrixCases is the matrix case-list fieldset (shown in matrix mode).
type MatrixCases struct{ m *MatrixView }

// Shown reports whether the page is in matrix mode.
func (c *MatrixCases) Shown() bool { return c.m.lab.Mode == "matrix" }

// Table is the chosen built-in table.
func (c *MatrixCases) Table() string { return c.m.Table }

// Cases is the case list's text.
func (c *MatrixCases) Cases() string { return c.m.Cases }

// Err is the case list's error.
func (c *MatrixCases) Err() string { return c.m.lab.Form.Err("cases") }

// OnTable handles the table select: a built-in table brings the thread's setup
// (both kernels, runtime, seed, device and every other field of its harness).
func (c *MatrixCases) OnTable(e vugu.DOMEvent) {
	name := e.PropString("target", "value")
	c.m.SelectTable(name)
	if t, ok := TableByName(name); ok {
		c.m.lab.Form.apply(State{Form: t.Setup.Clone(), B: Form{"kernel": t.Test}})
	}
	c.m.lab.refresh(true)
}

// OnCases handles edits of the matrix case list.
func (c *MatrixCases) OnCases(e vugu.DOMEvent) {
	c.m.Cases = e.PropString("target", "value")
	c.m.Table = ""
}

// SelectTable fills the matrix case list from a built-in table.
func (c *MatrixView) SelectTable(name string) {
	c.Table = name
	if t, ok := TableByName(name); ok {
		c.Cases = strings.Join(t.Cases, "\n")
	}
}

// Shown reports whether the table is on screen.
func (c *MatrixView) Shown() bool { return c.M != nil && c.lab.Mode == "matrix" }

// InMode reports whether the page is in matrix mode.
func (c *MatrixView) InMode() bool { return c.lab.Mode == "matrix" }

// start asks the engine for the matrix's runs (every case on A's and B's kernel,
// the seeds of the "5 seeds" switch) and starts them (call with the event lock
// held; the plan comes on another goroutine).
func (c *MatrixView) start(st State) {
	var cases []string
	for _, line := range strings.Split(c.Cases, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			cases = append(cases, line)
		}
	}
	if len(cases) == 0 {
		c.lab.Form.Errs["cases"] = "cases: the list is empty"
		return
	}
	st.Table = c.Table
	q := wire.MatrixPlan{State: st, Cases: cases, Seeds: max(st.Seeds, 1)}
	var p wire.Planned
	c.lab.askPlan("matrix", q, &p, &c.planning, func(err error) {
		switch {
		case err != nil:
			c.lab.Form.Errs["cases"] = "engine: " + err.Error()
		case p.Err != nil:
			c.lab.Form.setErr(p.Err)
		default:
			c.run(cases, p, q.Seeds)
		}
	})
}

// run starts a planned matrix's runs.
func (c *MatrixView) run(cases []string, p wire.Planned, seeds int) {
	m := &Matrix{Base: p.Base, Test: p.Test, Header: p.Header, Cases: cases, Diffs: p.Diffs}
	c.cells = map[int][3]int{}
	c.seeds = seeds
	m.Cells = make([][2]Cell, len(cases))
	if t, ok := TableByName(c.Table); ok {
		m.Thread = t.Name
	}
	c.M = m
	if open := c.pending; open != "" && slices.Contains(cases, open) {
		defer c.Open(open) // a link's opened row: after the table's runs are queued
	}
	c.pending = ""
	for i := range cases {
		for col := range 2 {
			pc := p.Cells[i][col]
			if pc.Err != "" {
				m.Cells[i][col].Err = pc.Err
				continue
			}
			for s, cfg := range pc.Configs { // seeds paired across the columns
				rs := c.lab.w.Start(wire.Run{Config: cfg}, true)
				c.cells[rs.ID] = [3]int{i, col, s}
			}
		}
	}
}

func (c *MatrixView) running() bool {
	return c.planning || (c.M != nil && c.M.Finished() < 2*len(c.M.Cases))
}

func (c *MatrixView) cancel() {
	c.planning = false
	for id, rc := range c.cells {
		c.lab.w.Cancel(id)
		if c.M != nil {
			c.M.Cells[rc[0]][rc[1]].Err = "cancelled"
		}
	}
	c.cells = map[int][3]int{}
}

func (c *MatrixView) owns(id int) bool { _, ok := c.cells[id]; return ok }

// onMsg applies a message about a cell and reports whether the page must render:
// progress of cells renders nothing, and a result or error that leaves the page's
// shape as it was is written into the table without a render (patch).
func (c *MatrixView) onMsg(m Msg) bool {
	if !c.apply(m) {
		return false
	}
	return !c.patch()
}

// apply applies a message about a cell; it reports whether the cell changed.
func (c *MatrixView) apply(m Msg) bool {
	rc := c.cells[m.ID]
	if c.M == nil {
		return false
	}
	cell := &c.M.Cells[rc[0]][rc[1]]
	switch m.Type {
	case "result":
		var r report.Result
		if err := json.Unmarshal([]byte(m.Result), &r); err != nil {
			cell.Err = err.Error()
		} else {
			cell.set(rc[2], c.seeds, r.WriteBWMBps)
		}
		delete(c.cells, m.ID)
	case "error":
		cell.Err = m.Message
		delete(c.cells, m.ID)
	}
	return m.Type != "progress"
}

// shape is what decides which elements the page has while a matrix runs, besides
// the texts patch writes: every vg-if and loop of the matrix's templates (the rows
// in their order), the status bar's error lines, whether anything runs.
func (c *MatrixView) shape() string {
	if !c.Shown() {
		return ""
	}
	var order strings.Builder // a row's click handler is bound to its case at the render
	for _, r := range c.Rows() {
		order.WriteString(r[3] + "\n")
	}
	return fmt.Sprint(c.lab.Mode, order.String(), len(c.Errors()), c.Table, c.OpenedText(), c.M.Thread, len(c.M.Diffs),
		c.lab.Bar.CaseErr(), len(c.lab.Bar.Problems()), c.lab.Running())
}

// matrixPatch is what a cell's result changes on a page that keeps its shape: the
// table's texts and row attributes as matrix-view.vugu and run-bar.vugu write them.
type matrixPatch struct {
	Status   string     `json:"status"`
	Progress string     `json:"progress"` // progressbar's aria-valuenow
	Style    string     `json:"style"`    // the progress fill's style
	Rows     []patchRow `json:"rows"`
	Text     string     `json:"text"` // #matrix-text
}

type patchRow struct {
	Class string   `json:"class"`
	Title string   `json:"title"`
	Case  string   `json:"case"` // data-case
	Cells []string `json:"cells"`
}

// patch writes a changed cell's texts into the page without a render of the whole
// page (a Vugu render sends every element of it: 40-110 ms of the main thread on
// the shared 2-core machine, once per second while the T1 matrix ran); it reports
// false when the page's shape changed since the last render, or the page's table
// has other rows or cells than the patch: then the page renders.
func (c *MatrixView) patch() bool {
	if c.rendered == "" || c.shape() != c.rendered {
		return false
	}
	p := matrixPatch{Status: c.lab.Bar.Status(), Progress: c.lab.Bar.Progress(), Style: c.lab.Bar.ProgressStyle(), Text: c.M.Text()}
	for _, r := range c.Rows() {
		cells := []string{r[0], r[1], r[2], r[8]}
		if c.Table != "" {
			cells = append(cells, r[5], r[7])
		}
		p.Rows = append(p.Rows, patchRow{Class: c.RowClass(r), Title: r[4], Case: r[3], Cells: cells})
	}
	b, err := json.Marshal(p)
	return err == nil && PatchMatrix(string(b))
}

// Status is the status line in matrix mode.
func (c *MatrixView) Status() string {
	n := 0
	for _, r := range c.M.Cells {
		for _, x := range r {
			if x.Err == "cancelled" {
				n++
			}
		}
	}
	if n > 0 {
		return fmt.Sprintf("matrix: %d of %d runs finished, %d cancelled", c.M.Finished()-n, 2*len(c.M.Cases), n)
	}
	if c.seeds > 1 {
		return fmt.Sprintf("matrix: %d of %d cells finished (%d seeds each, %d of %d runs)", c.M.Finished(), 2*len(c.M.Cases),
			c.seeds, c.M.runsDone(c.seeds), 2*len(c.M.Cases)*c.seeds)
	}
	return fmt.Sprintf("matrix: %d of %d runs finished", c.M.Finished(), 2*len(c.M.Cases))
}

func (c *MatrixView) progress() float64 {
	if len(c.M.Cases) == 0 {
		return 1
	}
	return float64(c.M.runsDone(max(c.seeds, 1))) / float64(2*len(c.M.Cases)*max(c.seeds, 1))
}

// Rows are the table rows in the chosen order.
func (c *MatrixView) Rows() [][]string { return SortedMatrixRows(c.M, c.Table, c.SortBy) }

// SetSort handles the order select.
func (c *MatrixView) SetSort(e vugu.DOMEvent) { c.SortBy = e.PropString("target", "value") }

// Open runs a row's case as an A/B of the matrix's two kernels: the engine sets the
// case's fields on A's form and checks it with B's kernel.
func (c *MatrixView) Open(name string) {
	if name == "TOTAL" || c.M == nil {
		return
	}
	st := c.lab.state()
	st.Mode = "ab"
	gen := c.lab.runGen
	go func() {
		var a wire.CaseApplied
		if Ask("case", wire.ApplyCase{Form: st.Form, Name: name}, &a) != nil || a.Err != nil {
			return
		}
		st.Form = a.Form
		var ck wire.Checked
		if Ask("check", wire.Check{State: st}, &ck) != nil || ck.Err != nil {
			return
		}
		c.lab.ee.Lock()
		defer c.lab.ee.UnlockRender()
		if gen != c.lab.runGen {
			return
		}
		c.lab.Results.cancel()
		c.Opened = name
		c.lab.Results.start(c.lab.w.Start(*ck.A, false), c.lab.w.Start(*ck.B, false))
		c.lab.Charts.changed()
		c.lab.saveHash() // the link reopens the row (setHash adds open=)
	}()
}

// Picked reports whether the page may start the mode's runs on load: not in matrix
// mode without a table (a link "mode=matrix" shows the picker and runs nothing).
func (c *MatrixView) Picked() bool { return c.lab.Mode != "matrix" || c.Table != "" }

// Picking reports whether matrix mode waits for a table or a case list and Run.
func (c *MatrixView) Picking() bool {
	return c.InMode() && c.M == nil && !c.planning && !c.lab.checking
}

// FocusPicker moves to the table select (the prompt's link).
func (c *MatrixView) FocusPicker(e vugu.DOMEvent) {
	e.PreventDefault()
	FocusElement("m-table")
}

// CaseBar is the run bar's text in matrix mode, in the case box's place: the
// matrix runs a case list, not the form's case.
func (c *MatrixView) CaseBar() string {
	n := 0
	for _, line := range strings.Split(c.Cases, "\n") {
		if strings.TrimSpace(line) != "" {
			n++
		}
	}
	if t, ok := TableByName(c.Table); ok {
		return fmt.Sprintf("matrix %s: %d cases, %s vs %s", t.Name, n, t.Base, t.Test)
	}
	if c.Table == "" && c.M == nil {
		return "matrix: pick a table (or list cases) in the form"
	}
	return fmt.Sprintf("matrix: %d cases from the list", n)
}

// DisagreeKey explains the highlighted rows.
func (c *MatrixView) DisagreeKey() string {
	rep, _ := ThreadRepeatability()
	k := fmt.Sprintf("Highlighted: wblab and the thread disagree in sign, wblab's delta outside its seeds' 95 %% CI and the thread's beyond %.1f %%, the least of its repeatability.", rep.MinPct)
	if c.seeds < 2 {
		k += " One seed has no spread, so nothing is highlighted: \"5 seeds\" measures it."
	}
	return k
}

// RepeatText states the thread's own repeatability beside its table.
func (c *MatrixView) RepeatText() string {
	rep, ok := ThreadRepeatability()
	if !ok {
		return ""
	}
	return rep.Text()
}

// openKey is the link's key for the opened row. The page adds it to the engine's
// link and takes it off before the engine reads a link (splitOpen).
const openKey = "open"

// splitOpen takes "open=CASE" off a hash: the rest (the engine's) and the case.
func splitOpen(h string) (rest, open string) {
	h = strings.TrimPrefix(h, "#")
	var kept []string
	for _, kv := range strings.Split(h, "&") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == openKey {
			if u, err := url.PathUnescape(v); err == nil {
				open = u
			}
			continue
		}
		kept = append(kept, kv)
	}
	return strings.Join(kept, "&"), open
}

// withOpen adds "open=CASE" to the engine's link when a matrix row is open.
func (c *MatrixView) withOpen(h string) string {
	if c.lab.Mode != "matrix" || c.Opened == "" || h == "" {
		return h
	}
	return h + "&" + openKey + "=" + escapeCase(c.Opened)
}

// escapeCase percent-encodes a case name for the link, keeping its readable
// characters ("/", ":", "=", ",", "+").
func escapeCase(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		ch := v[i]
		if ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || strings.IndexByte("-_.~/:,=+@", ch) >= 0 {
			b.WriteByte(ch)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", ch)
	}
	return b.String()
}

// OpenedText says which row the runs below the table are.
func (c *MatrixView) OpenedText() string {
	if c.Opened == "" {
		return ""
	}
	return "Below: " + c.Opened + " as A/B (A " + c.M.Base + ", B " + c.M.Test + "). Click another row to open it; the link reopens this one."
}

// RowClass styles a row: sign disagreements, the opened row, clickable rows.
func (c *MatrixView) RowClass(r []string) string {
	cl := "mrow"
	if r[3] == "TOTAL" {
		if r[8] != "TOTAL" {
			return "total partial" // over the finished rows only: not bold
		}
		return "total"
	}
	if r[6] != "" {
		cl += " " + r[6]
	}
	if r[3] == c.Opened {
		cl += " opened"
	}
	return cl
}

// Errors are the failed cells' messages (MatrixErrors).
func (c *MatrixView) Errors() []string { return MatrixErrors(c.M) }

// MatrixRows are the table's rows: base, delta, test, case, the cell's error (a
// tooltip), the thread's numbers for a built-in table, the row's class ("disagree"
// when wblab's delta and the thread's have opposite signs, wblab's outside its seeds'
// 95 % CI and the thread's beyond its repeatability), the model-vs-thread error in
// percentage points and the case cell's text; then TOTAL ("TOTAL of 2 of 15 rows"
// while rows run).
func MatrixRows(m *Matrix, table string) [][]string { return SortedMatrixRows(m, table, "") }

// MatrixSorts are the table's orders: the case list's, by delta, by |model - thread|.
var MatrixSorts = [][2]string{{"", "case list order"}, {"delta", "wblab's delta"}, {"error", "|wblab - thread| delta error"}}

// SortedMatrixRows are MatrixRows in an order of MatrixSorts (largest first; rows
// without the number last); TOTAL stays last.
func SortedMatrixRows(m *Matrix, table, by string) [][]string {
	if m == nil {
		return nil
	}
	cell := func(x Cell) string {
		switch {
		case x.Done:
			return fmt.Sprintf("%.2f", x.BW)
		case x.Err == "cancelled":
			return "cancelled"
		case x.Err != "":
			return "error"
		}
		return "…"
	}
	// the thread's numbers for a built-in table, by case; its TOTAL over the rows
	// that have both of ours (as m.Total sums)
	published, pubTotal := map[string]string{}, ""
	pubBW := map[string][2]float64{}
	keys := make([][2]float64, len(m.Cells))
	for _, t := range Tables() {
		if t.Name != table {
			continue
		}
		pub := map[string][2]float64{}
		for i, name := range t.Cases {
			published[name] = fmt.Sprintf("%.2f %s %.2f", t.BaseBW[i], Delta(t.BaseBW[i], t.TestBW[i]), t.TestBW[i])
			pub[name] = [2]float64{t.BaseBW[i], t.TestBW[i]}
			pubBW[name] = pub[name]
		}
		var pb, pt float64
		for i, r := range m.Cells {
			if p, ok := pub[m.Cases[i]]; ok && r[0].Done && r[1].Done {
				pb, pt = pb+p[0], pt+p[1]
			}
		}
		if pb > 0 {
			pubTotal = fmt.Sprintf("%.2f %s %.2f", pb, Delta(pb, pt), pt)
		}
	}
	rep, okRep := ThreadRepeatability()
	if !okRep {
		rep.MinPct = 0
	}
	var out [][]string
	for i, r := range m.Cells {
		d := ""
		if r[0].Done && r[1].Done {
			d = rowDelta(r)
		}
		title := r[0].Err
		if title == "" {
			title = r[1].Err
		}
		row := []string{cell(r[0]), d, cell(r[1]), m.Cases[i], title, published[m.Cases[i]], "", "", m.Cases[i]}
		ours, okOurs := numDelta(r)
		if p, ok := pubBW[m.Cases[i]]; ok && okOurs && p[0] > 0 {
			theirs := (p[1] - p[0]) / p[0] * 100
			row[7] = fmt.Sprintf("%+.1f", ours-theirs)
			if ours*theirs < 0 && outsideSeeds(r) && math.Abs(theirs) > rep.MinPct {
				row[6] = "disagree"
			}
			keys[i] = [2]float64{math.Abs(ours), math.Abs(ours - theirs)}
		} else if okOurs {
			keys[i] = [2]float64{math.Abs(ours), -1}
		} else {
			keys[i] = [2]float64{-1, -1}
		}
		out = append(out, row)
	}
	if by != "" {
		k := 0
		if by == "error" {
			k = 1
		}
		idx := make([]int, len(out))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]][k] > keys[idx[b]][k] })
		sorted := make([][]string, len(out))
		for i, j := range idx {
			sorted[i] = out[j]
		}
		out = sorted
	}
	// the TOTAL row is there from the start ("…" until a row has both sides), so the
	// table keeps its shape when the first row finishes: that result is written into
	// it without a render (MatrixView.patch)
	// (its label says over how many rows while some are not finished)
	if b, t, n := m.Total(); n > 0 {
		out = append(out, []string{fmt.Sprintf("%.2f", b), m.totalDelta(), fmt.Sprintf("%.2f", t), "TOTAL", "", pubTotal, "", "", "TOTAL" + m.totalOf(n)})
	} else if len(m.Cells) > 0 {
		out = append(out, []string{"…", "", "…", "TOTAL", "", "", "", "", "TOTAL of 0 rows"})
	}
	return out
}

// outsideSeeds reports whether a finished row's delta is outside its seeds' noise:
// paired by seed, its 95 % CI excludes 0. One seed has no spread: never.
func outsideSeeds(r [2]Cell) bool {
	if len(r[0].BWs) < 2 || len(r[0].BWs) != len(r[1].BWs) {
		return false
	}
	return !stats.PairedDeltaPct(r[0].BWs, r[1].BWs).InNoise()
}

// numDelta is a finished row's delta in percent.
func numDelta(r [2]Cell) (float64, bool) {
	if !r[0].Done || !r[1].Done || r[0].BW == 0 {
		return 0, false
	}
	return (r[1].BW - r[0].BW) / r[0].BW * 100, true
}

// MatrixErrors are the failed cells' messages (cancelled ones aside), shown under
// the table.
func MatrixErrors(m *Matrix) []string {
	if m == nil {
		return nil
	}
	var out []string
	for i, r := range m.Cells {
		for col, x := range r {
			if x.Err != "" && x.Err != "cancelled" {
				out = append(out, fmt.Sprintf("%s (%s): %s", m.Cases[i], []string{"base", "test"}[col], x.Err))
			}
		}
	}
	return out
}
