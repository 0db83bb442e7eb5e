package ui

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// RunState is one run of the current view (A or B).
type RunState struct {
	ID       int
	Run      wire.Run            // the config and what the page shows about it
	measured *wire.MeasuredMatch // the engine's answer: which reference the config models
	Res      *report.Result
	Trace    string
	Err      string // why the run failed: one line ("cancelled", an invariant and its numbers)
	// ErrDetails are the lines of the worker's message after the first (a failure's
	// config JSON, a panic's stack): shown in a closed fold
	ErrDetails string
	Progress   float64
	Started    time.Time
	WallMs     float64
	// Prerendered: the result is the build's (static/first.json), not timed here
	Prerendered bool
	Live        *report.Series // the series so far, from the worker's chunks
	DoneS       float64        // simulated seconds reached
	TotalS      float64        // the run's simulated seconds (its messages' total)
	// cancelAsked: the page asked the worker to stop the run; a result that comes
	// after, short of TotalS, is what the run computed up to the cancel
	cancelAsked bool
	// measuredErr: the engine could not answer the measured question (it could not
	// fetch the references)
	measuredErr string
}

// addChunk appends a chunk's rows to the live series.
func (r *RunState) addChunk(ch *Chunk) {
	if ch == nil {
		return
	}
	if ch.From == 0 && len(ch.Names) > 0 {
		r.Live = &report.Series{Names: ch.Names, Data: make([][]float64, len(ch.Names))}
	}
	if r.Live == nil || ch.From != len(r.Live.Data[0]) { // a gap: keep what is consistent
		return
	}
	for _, row := range ch.Rows {
		for j := range r.Live.Data {
			if j < len(row) {
				r.Live.Data[j] = append(r.Live.Data[j], row[j])
			}
		}
	}
}

// fillSeries gives a streamed run's result the rows its chunks carried (the worker
// sends the series without data then: lab.ResultMessage); without them, or with other
// columns, the result has no series.
func fillSeries(res *report.Result, live *report.Series) {
	s := res.Series
	if s == nil || s.Data != nil {
		return
	}
	if live == nil || !slices.Equal(live.Names, s.Names) {
		res.Series = nil
		return
	}
	s.Data = live.Data
}

// Series is the run's time series: the result's, or the live one so far.
func (r *RunState) Series() *report.Series {
	if r == nil {
		return nil
	}
	if r.Res != nil && r.Res.Series != nil {
		return r.Res.Series
	}
	if r.Live != nil && len(r.Live.Data) > 0 && len(r.Live.Data[0]) > 0 {
		return r.Live
	}
	return nil
}

// Cancelled reports whether the run was stopped by the user.
func (r *RunState) Cancelled() bool { return r != nil && r.Err == "cancelled" }

// ResultsView holds the single or A/B runs and shows their status, progress, errors
// and summary cards.
type ResultsView struct {
	A, B *RunState
	// PrevA, PrevB are the last finished runs: shown dimmed until the new runs
	// have something to show.
	PrevA, PrevB *RunState
	// Stale is set when the form changed after the shown runs started.
	Stale bool

	lab *Root
}

func (c *ResultsView) start(a, b *RunState) {
	if c.A != nil && (c.A.Res != nil || c.A.Series() != nil) {
		c.PrevA, c.PrevB = c.A, c.B
	}
	c.A, c.B, c.Stale = a, b, false
}

// showPrev reports whether the previous runs are on screen (dimmed): the new A has
// neither data nor an error yet.
func (c *ResultsView) showPrev() bool {
	return c.PrevA != nil && c.A != nil && c.A.Series() == nil && c.A.Err == ""
}

// shownA is the run whose results are on screen.
func (c *ResultsView) shownA() *RunState {
	if c.showPrev() {
		return c.PrevA
	}
	return c.A
}

// Class dims results that are not (or no longer) the form's: the previous run while
// the new one starts, and results of a form that has changed since.
func (c *ResultsView) Class() string {
	if c.showPrev() || c.Stale {
		return "results-view stale"
	}
	return "results-view"
}

// Note says why the results are dimmed or partial.
func (c *ResultsView) Note() string {
	switch {
	case c.showPrev():
		return "Showing the previous run (dimmed) until the new one has data."
	case c.Stale:
		return "The form has changed since this run: press Run to update."
	case c.A != nil && c.A.Cancelled() && c.A.Res != nil:
		return fmt.Sprintf("Cancelled at t = %.1f s of %.0f s: the charts and cards show this run up to then (its figures are over %.1f s, not the whole run).",
			c.A.Res.RuntimeS, c.A.TotalS, c.A.Res.RuntimeS)
	case c.A != nil && c.A.Cancelled() && c.A.Series() != nil:
		return fmt.Sprintf("Cancelled at t = %.1f s: the charts show the run up to then.", c.A.DoneS)
	case c.A != nil && c.A.Err != "" && !c.A.Cancelled() && c.A.Series() != nil:
		return fmt.Sprintf("The run failed at t = %.1f s: the charts show it up to then.", c.A.DoneS)
	case c.A != nil && c.A.Err != "" && !c.A.Cancelled():
		return ""
	case c.A != nil && c.A.Res == nil && c.A.Series() != nil:
		return fmt.Sprintf("Running: t = %.1f s of %s; the charts grow as the run goes.", c.A.DoneS, c.A.Run.Runtime)
	case c.lab.Seeds.N > 1 && !c.lab.tableMode() && c.A != nil && c.A.Res != nil:
		return fmt.Sprintf("%d seeds: write_bw is their mean ±95 %% CI; the other cards and the charts are seed %d's.", c.lab.Seeds.N, c.A.Res.Seed)
	}
	return ""
}

func inFlight(r *RunState) bool { return r != nil && r.Res == nil && r.Err == "" }

func (c *ResultsView) running() bool { return inFlight(c.A) || inFlight(c.B) }

func (c *ResultsView) cancel() {
	for _, r := range []*RunState{c.A, c.B} {
		if inFlight(r) {
			c.lab.w.Cancel(r.ID)
			r.cancelAsked = true
		}
	}
}

// onMsg applies a message about A or B; it reports whether the charts' data changed.
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
				r.TotalS = m.Total
			}
			r.DoneS = max(r.DoneS, m.Done)
			if m.Type == "chunk" {
				r.addChunk(m.Chunk)
				got = true
			}
		case "result":
			var res report.Result
			if err := json.Unmarshal([]byte(m.Result), &res); err != nil {
				r.Err = "result: " + err.Error()
				break
			}
			fillSeries(&res, r.Live)
			r.Res, r.Trace, r.Progress = &res, m.Trace, 1
			if r.cancelAsked && res.RuntimeS < r.TotalS {
				// the worker's result of a cancelled run: up to the cancel
				r.Err, r.DoneS, r.Progress = "cancelled", res.RuntimeS, res.RuntimeS/r.TotalS
			}
			r.WallMs = float64(time.Since(r.Started).Microseconds()) / 1000
			r.Prerendered = m.Prerendered
			got = true
			if r == c.A {
				c.lab.matchMeasured(r)
				c.lab.askAccuracy(r)
			}
		case "error":
			r.Err, r.ErrDetails = splitErr(m.Message)
			if !r.Cancelled() {
				logRunError(m.Message)
			}
			got = r.Live != nil
		}
	}
	return got
}

// shownB is B when the page shows an A/B comparison with B finished.
func (c *ResultsView) shownB() *RunState {
	b := c.B
	if c.showPrev() {
		b = c.PrevB
	}
	if c.lab.abView() && b != nil && b.Res != nil {
		return b
	}
	return nil
}

// chartB is B for the charts: finished or running.
func (c *ResultsView) chartB() *RunState {
	b := c.B
	if c.showPrev() {
		b = c.PrevB
	}
	if c.lab.abView() && b.Series() != nil {
		return b
	}
	return nil
}

// Status is the line above the results.
func (c *ResultsView) Status() string {
	if c.lab.checking || c.lab.Matrix.planning || c.lab.Sweep.planning {
		return "starting …"
	}
	if c.lab.Mode == "matrix" && c.lab.Matrix.M != nil {
		return c.lab.Matrix.Status()
	}
	if c.lab.Mode == "sweep" && c.lab.Sweep.S != nil {
		return c.lab.Sweep.Status()
	}
	if f := c.Failures(); len(f) > 0 { // not "running" while B or the seeds go on
		return "run failed: " + f[0].Label + f[0].Short
	}
	switch {
	case c.A == nil:
		return "ready"
	case c.lab.Running():
		return fmt.Sprintf("running %s … %.0f%%", c.A.Run.Runtime, c.progress()*100)
	case c.A.Cancelled() || c.B.Cancelled():
		return fmt.Sprintf("cancelled at t = %.1f s", c.A.DoneS)
	}
	if c.A.Prerendered {
		return fmt.Sprintf("done: %s (computed by the same engine when the site was built; Run computes it again)", c.A.Res.Case)
	}
	return fmt.Sprintf("done: %s in %.0f ms", c.A.Res.Case, c.A.WallMs)
}

func (c *ResultsView) progress() float64 {
	if c.lab.Mode == "matrix" && c.lab.Matrix.M != nil {
		return c.lab.Matrix.progress()
	}
	if c.lab.Mode == "sweep" && c.lab.Sweep.S != nil {
		return c.lab.Sweep.progress()
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

// Failure is a failed run as the results area shows it: the short message, and the
// details in a closed fold.
type Failure struct {
	Label, Short, Details string // Label: "A: ", "B: " in A/B, else ""
}

// Failures are the current runs that failed (not cancelled).
func (c *ResultsView) Failures() []Failure {
	if c.lab.tableMode() {
		return nil
	}
	var out []Failure
	for i, r := range []*RunState{c.A, c.B} {
		if r == nil || r.Err == "" || r.Cancelled() {
			continue
		}
		f := Failure{Short: r.Err, Details: r.ErrDetails}
		if c.B != nil {
			f.Label = []string{"A", "B"}[i] + ": "
		}
		out = append(out, f)
	}
	return out
}

// splitErr splits a worker's error message into its first line and the rest.
func splitErr(msg string) (short, details string) {
	short, details, _ = strings.Cut(msg, "\n")
	return short, strings.TrimSpace(details)
}

// FullLines say which disks filled during the shown run A (B's in A/B: "B: "),
// one line each, as the CLI's summary does.
func (c *ResultsView) FullLines() []string {
	var out []string
	for i, r := range []*RunState{c.shownA(), c.shownB()} {
		if r == nil || r.Res == nil || c.lab.matrixOnly() {
			continue
		}
		pre := ""
		if c.shownB() != nil {
			pre = []string{"A: ", "B: "}[i]
		}
		for _, f := range r.Res.Full {
			out = append(out, pre+FullLine(f))
		}
	}
	return out
}

// FullLine is one full disk: when it filled and who got ENOSPC.
func FullLine(f report.DiskFull) string {
	s := fmt.Sprintf("Disk %s full at %.1f s: %d dd exited with ENOSPC", f.BDI, f.FullAtS, f.DDEnospc)
	if f.EditorEnospc > 0 {
		s += fmt.Sprintf(", %d editor save%s failed with ENOSPC", f.EditorEnospc, plural(int(f.EditorEnospc)))
	}
	return s
}

// Cards are the summary cards of the shown runs (none in matrix mode).
func (c *ResultsView) Cards() []Card {
	a := c.shownA()
	if a == nil || c.lab.matrixOnly() {
		return nil
	}
	if a.Res == nil && !a.Cancelled() && c.PrevA != nil && c.PrevA.Res != nil {
		a = c.PrevA // the previous run's cards stay (dimmed) while the new one runs
	}
	if a.Res == nil {
		return nil
	}
	b := c.shownB()
	if a == c.PrevA {
		b = nil
		if c.lab.abView() && c.PrevB != nil && c.PrevB.Res != nil {
			b = c.PrevB
		}
	}
	cards := Cards(a, b)
	if m, ok := measuredFor(a); ok {
		cards = MeasuredCards(cards, m)
	}
	if a.Cancelled() && a.Res != nil { // the cancelled run's figures, so marked (and in Note)
		for i := range cards {
			if cards[i].ID == "write_bw" || cards[i].ID == "runtime" {
				cards[i].Unit += fmt.Sprintf(" (to t = %.1f s, cancelled)", a.Res.RuntimeS)
			}
		}
	}
	if a != c.PrevA && c.lab.Seeds.N > 1 && !c.lab.tableMode() {
		c.seedCards(cards)
	}
	if d, ok := c.lab.Seeds.WriteBWDelta(); ok && a != c.PrevA {
		for i := range cards {
			if cards[i].ID == "write_bw" {
				cards[i].Delta = d + fmt.Sprintf(" (%d seeds)", c.lab.Seeds.N)
			}
		}
	}
	return cards
}

// Headline is the first page's headline beside its number (HeadlineValue): what
// write_bw is of the run the chart under it shows; "" off the first page.
func (c *ResultsView) Headline() string {
	a := c.shownA()
	if !c.lab.Guided || a == nil || a.Res == nil {
		return ""
	}
	return fmt.Sprintf("MiB/s write_bw: %s on %s, %s, %.0f s simulated. Below: its dirty pages.",
		writers(a.Res), a.Res.Filesystem, a.Run.Device, a.Res.RuntimeS)
}

// HeadlineValue is the first page's headline number.
func (c *ResultsView) HeadlineValue() string {
	if a := c.shownA(); a != nil && a.Res != nil {
		return fmt.Sprintf("%.2f", a.Res.WriteBWMBps)
	}
	return ""
}

// writers names a run's dd writers ("one dd", "10 dd").
func writers(r *report.Result) string {
	n := 0
	for _, t := range r.Tasks {
		if t.Comm == "dd" {
			n++
		}
	}
	if n == 1 {
		return "one dd"
	}
	return fmt.Sprintf("%d dd", n)
}

// seedCards shows write_bw as the seeds' mean ±95 % CI once every seed finished
// (the seed panel's figures); until then its unit says the number is seed 1's.
func (c *ResultsView) seedCards(cards []Card) {
	st, ok := c.lab.Seeds.Stats()
	for i := range cards {
		if cards[i].ID != "write_bw" {
			continue
		}
		if !ok {
			cards[i].Unit += fmt.Sprintf(" (seed 1 of %d; the mean when all finished)", c.lab.Seeds.N)
			continue
		}
		cards[i].A = fmt.Sprintf("%.2f ±%.2f", st.A.Mean, st.A.CI95)
		cards[i].Unit = fmt.Sprintf("MiB/s, mean of %d seeds ±95 %% CI", st.A.N)
		if st.AB && cards[i].B != "" {
			cards[i].B = fmt.Sprintf("%.2f ±%.2f", st.B.Mean, st.B.CI95)
		}
	}
}

// CardsClass dims the cards when they are not the current run's.
func (c *ResultsView) CardsClass() string {
	if c.showPrev() || c.Stale || (c.A != nil && c.A.Res == nil) {
		return "cards stale"
	}
	return "cards"
}

// MeasuredNote explains the measured overlay when run A has a reference, or says why
// the engine could not answer ("" if neither).
func (c *ResultsView) MeasuredNote() string {
	a := c.shownA()
	if c.lab.matrixOnly() || a == nil {
		return ""
	}
	if m, ok := measuredFor(a); ok {
		return m.Note
	}
	return a.measuredErr
}

// MeasuredLinks are the references' links, offered on a 6.1 run that has none.
func (c *ResultsView) MeasuredLinks() []MeasuredLink {
	a := c.shownA()
	if c.lab.tableMode() || a == nil || a.Res == nil || a.measured == nil || a.Run.Preset != "6.1" || c.MeasuredNote() != "" {
		return nil
	}
	return a.measured.Links
}

// Runs are the runs the charts show: finished, running (their series so far) or
// cancelled (up to where they stopped).
func (c *ResultsView) Runs() []Run {
	a := c.shownA()
	if c.lab.matrixOnly() || a.Series() == nil {
		return nil
	}
	runs := []Run{runOf("", a)}
	if b := c.chartB(); b != nil {
		runs = []Run{runOf("A", a), runOf("B", b)}
	}
	if m, ok := measuredFor(a); ok {
		runs = append(runs, MeasuredRun(m, runs[0].Result))
	}
	return runs
}

// live reports whether the charts show a run still going.
func (c *ResultsView) live() bool {
	a := c.shownA()
	return a != nil && a.Res == nil && a.Err == "" && a.Series() != nil
}

// runOf labels a finished run for the charts, with the columns its kernel lacks.
func runOf(label string, r *RunState) Run {
	res := r.Res
	if res == nil || res.Series == nil {
		res = &report.Result{Series: r.Series()}
	}
	return Run{Label: label, Result: res, Absent: r.Run.Absent}
}

// Tip is a card's explanation (hover and focus).
func (c *ResultsView) Tip(id string) string {
	if d, ok := CardDoc(id); ok {
		return d.Text()
	}
	return ""
}
