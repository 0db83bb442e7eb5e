package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/ui/wire"
)

// Root is the page: it composes the components (root.vugu) and holds what they share,
// the mode and the URL state. Each component does one job:
//
//	RunBar      case box, Run/Cancel, status, progress and the error summary (run-bar.vugu)
//	FormPanel   the form (A), B's kernel controls, the case box and their errors (form-panel.vugu)
//	ReproBar    the "Reproduce" presets and the chosen one's explanation (repro-bar.vugu)
//	ShareBar    share link, embed snippet and exports (share-bar.vugu)
//	ResultsView status, progress, run errors and cards of the A/B runs (results-view.vugu)
//	MatrixView  the matrix case list and table (matrix-cases.vugu, matrix-view.vugu)
//	SweepView   write_bw against the dirty threshold per dd count and filesystem (sweep-view.vugu)
//	ChartsView  the uPlot charts (charts-view.vugu)
//	SeedsView   the "5 seeds" switch and the seed statistics of single and A/B runs (seeds-view.vugu)
//	SwitchView  the switch-activity panel: which switch-guarded paths ran (switch-view.vugu)
//	DetailView  per-task and per-inode views (detail-view.vugu)
//	TraceView   the trace viewer: filter, search, chart time cursor (trace-view.vugu)
//	HelpPanel   the "?" panel explaining a card, series, switch or preset (help-panel.vugu)
//	Workers     the engine worker plumbing (workers.go)
type Root struct {
	Mode     string // "", "ab", "matrix", "sweep"
	Embed    bool
	FormOpen bool // on a phone the form folds away under the results
	Guided   bool // the first page (no hash): the guide, the stories, no form
	// Stage is how much of the page Vugu builds: the first mount goes in steps,
	// each in a task of its own (AfterRender), since Vugu builds and renders the
	// whole tree in one task and the whole page at once took 150-260 ms (issue 35:
	// no main-thread task over 100 ms). Stage 0: the header, bar and results; 1:
	// the charts; then the form, FormFieldsPerStage fields a stage; then the disk
	// editor, matrix, sweep, seeds and switch views; then the trace viewer and the
	// per-task and per-inode views (mountStages).
	Stage int
	// whole: the first page (its snapshot, first.html) mounts whole but for the
	// form, which it does not show: the snapshot is that first render (Snapshot)
	whole bool

	Bar     *RunBar
	Form    *FormPanel
	Repro   *ReproBar
	Share   *ShareBar
	Results *ResultsView
	Matrix  *MatrixView
	MxCases *MatrixCases
	Sweep   *SweepView
	Charts  *ChartsView
	Seeds   *SeedsView
	Switch  *SwitchView
	DiskEd  *DiskEditor
	Disks   *DisksView
	Detail  *DetailView
	Help    *HelpPanel
	Trace   *TraceView

	w   *Workers
	eng Engine
	ee  vugu.EventEnv
	// runGen and hashGen number Run's and refresh's questions to the engine: an
	// answer to an older one is dropped. lastHash is the hash the page set last.
	runGen, hashGen int
	lastHash        string
	// checking: Run asked the engine to check the form and waits for the answer
	checking bool
	// firstShown is closed when the first run's result (or error) has reached the
	// page: Init waits for the build's precomputed run, so the first render shows it
	firstShown chan struct{}
}

// FormFieldsPerStage is how many of the form's fields one mount stage adds
// (Root.Stage): the whole form's first render took 150 ms on its own.
const FormFieldsPerStage = 24

// formStages is how many mount stages the form takes.
func (c *Root) formStages() int {
	return (len(Fields(c.Form.DeviceModel())) + FormFieldsPerStage - 1) / FormFieldsPerStage
}

// mountStages is the last mount stage: the whole page (Root.Stage).
func (c *Root) mountStages() int { return c.formStages() + 3 }

// Staged reports whether part of the page is built yet (Root.Stage): "charts",
// "form", "views" (the disk editor, matrix, sweep, seeds and switch views) or
// "detail" (the trace viewer, the per-task and per-inode views).
func (c *Root) Staged(part string) bool {
	if c.whole && part != "form" {
		return true
	}
	switch part {
	case "charts":
		return c.Stage >= 1
	case "form":
		return c.Stage >= 2
	case "views":
		return c.Stage >= c.formStages()+2
	}
	return c.Stage >= c.mountStages()
}

// FormShown is how many of the form's fields are built (Root.Stage).
func (c *Root) FormShown() int {
	if c.Stage > c.formStages()+1 {
		return len(Fields(c.Form.DeviceModel()))
	}
	return max(c.Stage-1, 0) * FormFieldsPerStage
}

// FirstResultWait bounds how long Init waits for the build's precomputed first run
// (its messages are already in the page; this only lets the pool's goroutine hand
// them over before the first render).
const FirstResultWait = time.Second

// PoolSize is how many engine workers the page runs on a machine with cores
// logical cores: one core is left to the page's main thread and the browser's own
// threads (font lookups, compositing), at most 8. On 2 cores two busy workers
// stretched the page's main-thread tasks 3-4x (Chromium's trace: tasks of 93-143
// ms wall with 7-10 ms of CPU, waiting on the browser process's font answers).
func PoolSize(cores int) int { return min(max(cores-1, 1), 8) }

// Boot starts the page's engine (the worker pool, with the worker static/boot.js
// started) and loads the engine's catalog; wasm/main.go calls it before mounting
// the page. It blocks until the first worker answered.
func Boot() (Engine, error) {
	eng := NewEngine(PoolSize(Cores()))
	SetAsker(eng.Ask)
	b, err := eng.Catalog()
	if err != nil {
		return eng, err
	}
	Yield() // the catalog's decode in a task of its own, apart from the module's start
	return eng, setCatalog(b)
}

// NewRoot is a page with its components wired together, running on eng.
func NewRoot(eng Engine) *Root {
	c := &Root{eng: eng}
	c.wire()
	return c
}

func (c *Root) wire() {
	c.Bar = &RunBar{lab: c}
	c.Form = &FormPanel{lab: c, Form: Form{}, B: Form{}, Errs: map[string]string{}}
	c.Repro = &ReproBar{lab: c}
	c.Share = &ShareBar{lab: c}
	c.Results = &ResultsView{lab: c}
	c.Matrix = &MatrixView{lab: c}
	c.MxCases = &MatrixCases{m: c.Matrix}
	c.Sweep = &SweepView{lab: c}
	c.Charts = &ChartsView{lab: c}
	c.Seeds = &SeedsView{lab: c, N: 1}
	c.Switch = &SwitchView{lab: c}
	c.DiskEd = &DiskEditor{lab: c}
	c.Disks = &DisksView{lab: c}
	c.Detail = &DetailView{lab: c}
	c.Help = &HelpPanel{lab: c}
	c.Trace = &TraceView{lab: c, Marked: -1}
}

// Init reads the URL hash and starts the first run.
func (c *Root) Init(ctx vugu.InitCtx) {
	if c.Form == nil {
		c.wire()
	}
	c.ee = ctx.EventEnv()
	c.Matrix.Cases = strings.Join(Cat.MatrixCases, "\n")
	h, open := splitOpen(Hash())
	st, err := State{Form: Cat.FirstPage.Clone()}, (*FieldError)(nil)
	if strings.TrimPrefix(h, "#") == "" {
		c.Guided, c.whole = true, true
	} else { // Init runs on the render loop's goroutine: it may wait for the engine
		st, err = decodeHash(h)
	}
	c.applyState(st)
	c.Matrix.pending = open
	c.w = NewWorkers(c.ee, c.eng, c.route)
	c.w.matrix = func() bool { return c.Matrix.running() || c.Sweep.running() }
	OnHashChange(c.hashChanged)
	OnChartTime(func(t float64) { // from a browser callback: hand off
		go func() {
			c.ee.Lock()
			defer c.ee.UnlockRender()
			c.Trace.Jump(t)
		}()
	})
	OnTracePick(func(t float64) {
		go func() {
			c.ee.Lock()
			defer c.ee.UnlockRender()
			c.Trace.Pick(TraceLine{T: t})
		}()
	})
	if err != nil {
		c.Form.setErr(err)
		return
	}
	if !c.Matrix.Picked() { // mode=matrix without a table: the picker, no run
		return
	}
	var shown chan struct{}
	if c.eng.Prerendered() {
		shown = make(chan struct{})
		c.firstShown = shown
	}
	c.Run()
	if shown != nil && c.Results.A != nil {
		t0 := time.Now()
		select { // the first render shows the result, not "running" then the result
		case <-shown:
		case <-time.After(FirstResultWait):
		}
		Took("init wait", t0)
		Yield() // the build goes on in a task apart from the result's decode
	}
}

// hashChanged applies a hash the user pasted or reached with Back/Forward (from a
// browser callback: never inline, it takes the event lock).
func (c *Root) hashChanged(h string) {
	go func() {
		c.ee.Lock()
		own := strings.TrimPrefix(h, "#") == c.lastHash
		c.ee.UnlockOnly()
		if own {
			return // our own state
		}
		rest, open := splitOpen(h)
		st, err := decodeHash(rest)
		c.ee.Lock()
		defer c.ee.UnlockRender()
		c.Cancel()
		c.Form.Errs = map[string]string{}
		c.applyState(st)
		c.Matrix.pending = open
		if err != nil {
			c.Form.setErr(err)
			return
		}
		if c.Matrix.Picked() {
			c.Run()
		}
	}()
}

// applyState sets the page from a URL or preset state.
func (c *Root) applyState(st State) {
	c.Mode, c.Embed = st.Mode, st.Embed
	c.Seeds.N = max(st.Seeds, 1)
	c.Repro.ID = st.Repro
	c.Form.apply(st)
	if st.Table != "" {
		c.Matrix.SelectTable(st.Table)
	}
}

func (c *Root) state() State {
	return State{Form: c.Form.Form, Mode: c.Mode, B: c.Form.B, Embed: c.Embed, Table: c.Matrix.Table, Repro: c.Repro.ID, Seeds: c.Seeds.N}
}

// decodeHash asks the engine for the state a hash sets (blocks: not in a handler).
func decodeHash(h string) (State, *FieldError) {
	var d wire.Decoded
	if err := Ask("decode", wire.Decode{Hash: h}, &d); err != nil {
		return State{Form: Cat.FirstPage.Clone()}, &FieldError{Field: "case", Msg: "link: " + err.Error()}
	}
	if d.State.Form == nil {
		d.State.Form = Form{}
	}
	return d.State, d.Err
}

// setHash writes the page's link.
func (c *Root) setHash(h string) {
	h = c.Matrix.withOpen(h)
	c.lastHash = h
	SetHash(h)
}

// saveHash updates the link to the page's state (the engine writes it).
func (c *Root) saveHash() { c.refresh(false) }

// refresh asks the engine to check the page's state and writes its link; with box
// it also sets the case box to the form's case name (after an edit of the form).
// The answer comes later, on another goroutine; a newer refresh supersedes it.
func (c *Root) refresh(box bool) {
	st := c.state()
	c.hashGen++
	gen := c.hashGen
	go func() {
		var ck CheckedAll
		if Ask("check", wire.Check{State: st}, &ck) != nil {
			return
		}
		c.ee.Lock()
		defer c.ee.UnlockRender()
		if gen != c.hashGen {
			return
		}
		c.setHash(ck.Hash)
		c.Form.showChecked(st, ck, box, gen)
	}()
}

// SetMode switches between single, A/B and matrix views.
func (c *Root) SetMode(m string) {
	c.Mode = m
	c.Guided = c.Guided && m == "" // A/B and Matrix need the form
	c.saveHash()
}

// Run checks the form in the engine and starts the current mode's runs; bad input
// runs nothing and shows next to its control. The engine's answer comes on another
// goroutine; Cancel or a newer Run drops it.
func (c *Root) Run() {
	c.Cancel()
	delete(c.Form.Errs, "case") // the fields' errors stay until the engine's check
	delete(c.Form.Errs, "cases")
	c.Share.Notice = ""
	st := c.state()
	gen := c.runGen
	c.hashGen++ // this check writes the link
	c.checking = true
	// A matrix or sweep table is its run's: the last one's (other kernels, other
	// setup) must not stand under the new run's controls while the engine plans it.
	switch st.Mode {
	case "matrix":
		c.Matrix.M = nil
	case "sweep":
		c.Sweep.S = nil
	}
	if ck, ok := firstPageCheck(st); ok { // the catalog's answer: no worker asked
		c.checking = false
		c.start(st, ck)
		return
	}
	go func() {
		var ck wire.Checked
		err := Ask("check", wire.Check{State: st}, &ck)
		c.ee.Lock()
		if st.Mode == "matrix" || st.Mode == "sweep" {
			// a table's runs start after the engine's plan (askPlan): what this
			// check changes renders in a task after this one, which decoded the
			// answer and asked for the plan
			defer c.w.renderAfter(MinRenderPause)
			defer c.ee.UnlockOnly()
		} else {
			defer c.ee.UnlockRender()
		}
		if gen != c.runGen {
			return
		}
		c.checking = false
		if err != nil {
			c.Form.setErr(&FieldError{Field: "case", Msg: "engine: " + err.Error()})
			return
		}
		c.start(st, ck)
	}()
}

// firstPageCheck is the catalog's check of st when st is the state the page opens
// with (Catalog.FirstPageCheck): the first page's run starts without a worker's
// answer (the engine module may still be compiling) and takes over the build's
// precomputed result at once.
func firstPageCheck(st State) (wire.Checked, bool) {
	fc := Cat.FirstPageCheck
	if fc.Checked.A == nil || st.Mode != fc.State.Mode {
		return wire.Checked{}, false
	}
	a, err := json.Marshal(st)
	if err != nil {
		return wire.Checked{}, false
	}
	b, err := json.Marshal(fc.State)
	if err != nil || string(a) != string(b) {
		return wire.Checked{}, false
	}
	return fc.Checked, true
}

// start starts the runs of a checked state (with the event lock held).
func (c *Root) start(st State, ck wire.Checked) {
	if ck.Err != nil {
		c.Form.setErr(ck.Err)
		return
	}
	c.Form.clearErrs()
	c.Form.CaseBox = ck.CaseBox
	c.setHash(ck.Hash)
	switch st.Mode {
	case "ab":
		c.Results.start(c.w.Start(*ck.A, false), c.w.Start(*ck.B, false))
		c.Seeds.start(ck, true)
	case "matrix":
		c.Matrix.Opened = ""
		c.Matrix.start(st)
	case "sweep":
		c.Sweep.start(st)
	default:
		c.Results.start(c.w.Start(*ck.A, false), nil)
		c.Seeds.start(ck, false)
	}
	c.Charts.changed()
}

// Cancel stops every run in flight.
func (c *Root) Cancel() {
	c.runGen++ // a Run waiting for the engine's answer starts nothing
	c.checking = false
	if c.w == nil {
		return
	}
	c.Results.cancel()
	c.Matrix.cancel()
	c.Sweep.cancel()
	c.Seeds.cancel()
}

// Running reports whether any run is in flight.
func (c *Root) Running() bool {
	return c.checking || c.Results.running() || c.Matrix.running() || c.Sweep.running() || c.Seeds.running()
}

// route hands a worker message to the component that started the run; it reports
// whether the page should render (called with the event lock held).
func (c *Root) route(m Msg) bool {
	if c.Matrix.owns(m.ID) {
		return c.Matrix.onMsg(m)
	}
	if c.Sweep.owns(m.ID) {
		return c.Sweep.onMsg(m)
	}
	if c.Seeds.owns(m.ID) {
		return c.Seeds.onMsg(m)
	}
	if c.Results.onMsg(m) {
		c.Charts.changed()
	}
	if m.Type == "progress" || m.Type == "chunk" {
		SetProgress(c.Bar.ProgressStyle(), c.Bar.Progress())
	}
	if a := c.Results.A; c.firstShown != nil && a != nil && (a.Res != nil || a.Err != "") {
		close(c.firstShown)
		c.firstShown = nil
	}
	return true
}

// AfterRender syncs input values and draws charts after Vugu updated the DOM
// (wasm/main.go calls it after every render).
func (c *Root) AfterRender() {
	if c.Stage < c.mountStages() && c.ee != nil {
		go func() { // the next part of the page, after the browser had a turn
			Yield()
			c.ee.Lock()
			defer c.ee.UnlockRender()
			c.Stage++
		}()
	}
	SyncInputs()
	c.Matrix.rendered = c.Matrix.shape()
	c.Charts.draw()
	c.Detail.fill()
	c.Trace.fill()
	if c.w != nil {
		c.w.rendered()
	}
}

// ShowLab leaves the guided first page for the full lab; the keyboard focus goes to
// the case box, where the button was (not to the page's body).
func (c *Root) ShowLab() {
	c.Guided, c.FormOpen = false, true
	FocusElement("f-case")
}

// StoriesHeading heads the first page's stories, counted from the catalog.
func StoriesHeading() string {
	return fmt.Sprintf("%d stories from the threads, one click each:", len(Repros()))
}

// RunStory runs a Reproduce story (Apply leaves the guide).
func (c *Root) RunStory(id string) { c.Repro.Apply(id) }

// Intro is the first page's three sentences.
var Intro = []string{
	"When a program writes a file, Linux copies the data into memory as dirty pages and returns at once; the kernel's flusher writes them to disk later, in the background.",
	"When programs dirty memory faster than the disk takes it, balance_dirty_pages makes them pause, so dirty pages stay between the background threshold and the dirty limit.",
	"The charts show one dd writing 10 minutes to ext4 on a 7200 rpm disk, simulated here: the dirty and writeback pages and their limits, the throttling rates and pauses, what each flusher call writes, the writeback lists and what the disk does; every \"?\" explains a number.",
}

// RootClass styles the page for embed mode and the folded form.
func (c *Root) RootClass() string {
	cl := "lab"
	if c.Guided {
		cl += " guided"
	}
	if c.Embed {
		cl += " embed"
	}
	if c.FormOpen {
		cl += " form-open"
	}
	return cl
}

// ToggleForm opens or folds the form (phones).
func (c *Root) ToggleForm() { c.FormOpen = !c.FormOpen }

// FormToggleText is the fold button's text.
func (c *Root) FormToggleText() string {
	if c.FormOpen {
		return "Hide the form"
	}
	return "Show the full form"
}

// SourceURL and DocsURL are where the code and its documentation live.
const (
	SourceURL = "https://github.com/wblab/wblab"
	DocsURL   = "https://github.com/wblab/wblab#readme"
)

// ModeClass marks the active mode button.
func (c *Root) ModeClass(m string) string {
	if c.Mode == m {
		return "mode active"
	}
	return "mode"
}

// abView reports whether the page shows an A/B comparison: A/B mode, or a matrix row
// opened as A/B under the table.
func (c *Root) abView() bool { return c.Mode == "ab" || (c.Mode == "matrix" && c.Matrix.Opened != "") }

// tableMode reports whether the mode's runs fill a table (matrix, sweep): summary
// runs, without the seed panel, switch activity or trace of a single or A/B run.
func (c *Root) tableMode() bool { return c.Mode == "matrix" || c.Mode == "sweep" }

// matrixOnly reports whether the page shows only a table of runs: the matrix (no
// run opened) or the sweep.
func (c *Root) matrixOnly() bool {
	return (c.Mode == "matrix" && c.Matrix.Opened == "") || c.Mode == "sweep"
}

// FirstSentence is a text's first sentence (a story card's summary).
func FirstSentence(s string) string {
	if i := strings.Index(s, ". "); i > 0 {
		return s[:i+1]
	}
	return s
}
