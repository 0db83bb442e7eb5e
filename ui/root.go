package ui

import (
	"strings"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/engine"
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
//	ChartsView  the uPlot charts (charts-view.vugu)
//	SeedsView   the "5 seeds" switch and the seed statistics of single and A/B runs (seeds-view.vugu)
//	SwitchView  the switch-activity panel: which switch-guarded paths ran (switch-view.vugu)
//	DetailView  per-task and per-inode views (detail-view.vugu)
//	Workers     the engine worker plumbing (workers.go)
type Root struct {
	Mode     string // "", "ab", "matrix"
	Embed    bool
	FormOpen bool // on a phone the form folds away under the results

	Bar     *RunBar
	Form    *FormPanel
	Repro   *ReproBar
	Share   *ShareBar
	Results *ResultsView
	Matrix  *MatrixView
	MxCases *MatrixCases
	Charts  *ChartsView
	Seeds   *SeedsView
	Switch  *SwitchView
	Detail  *DetailView

	w  *Workers
	ee vugu.EventEnv
}

// NewRoot is a page with its components wired together.
func NewRoot() *Root {
	c := &Root{}
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
	c.Charts = &ChartsView{lab: c}
	c.Seeds = &SeedsView{lab: c, N: 1}
	c.Switch = &SwitchView{lab: c}
	c.Detail = &DetailView{lab: c}
}

// Init reads the URL hash and starts the first run.
func (c *Root) Init(ctx vugu.InitCtx) {
	if c.Form == nil {
		c.wire()
	}
	c.ee = ctx.EventEnv()
	c.Matrix.Cases = defaultMatrixCasesText()
	st, err := DecodeHash(Hash())
	c.applyState(st)
	c.w = NewWorkers(c.ee, c.route)
	OnHashChange(c.hashChanged)
	if err != nil {
		c.Form.setErr(err)
		return
	}
	c.Run()
}

// hashChanged applies a hash the user pasted or reached with Back/Forward (from a
// browser callback: never inline, it takes the event lock).
func (c *Root) hashChanged(h string) {
	go func() {
		c.ee.Lock()
		defer c.ee.UnlockRender()
		if strings.TrimPrefix(h, "#") == EncodeHash(c.state()) {
			return // our own state
		}
		c.Cancel()
		st, err := DecodeHash(h)
		c.Form.Errs = map[string]string{}
		c.applyState(st)
		if err != nil {
			c.Form.setErr(err)
			return
		}
		c.Run()
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

func (c *Root) saveHash() { SetHash(EncodeHash(c.state())) }

// SetMode switches between single, A/B and matrix views.
func (c *Root) SetMode(m string) {
	c.Mode = m
	c.saveHash()
}

// Run validates the form and starts the current mode's runs; bad input runs nothing.
func (c *Root) Run() {
	c.Cancel()
	c.Form.Errs = map[string]string{}
	c.Share.Notice = ""
	cfg, err := c.Form.Form.Config()
	if err != nil {
		c.Form.setErr(err)
		return
	}
	c.Form.CaseBox = engine.CaseOf(cfg).String()
	c.saveHash()
	switch c.Mode {
	case "ab":
		bcfg, err := c.Form.bConfig()
		if err != nil {
			c.Form.Errs[err.Field] = err.Msg
			return
		}
		c.Results.start(c.w.Start(pageConfig(cfg), false), c.w.Start(pageConfig(bcfg), false))
		c.Seeds.start(cfg, &bcfg)
	case "matrix":
		bcfg, err := c.Form.bConfig()
		if err != nil {
			c.Form.Errs[err.Field] = err.Msg
			return
		}
		c.Matrix.start(cfg, bcfg, c.Seeds.N)
	default:
		c.Results.start(c.w.Start(pageConfig(cfg), false), nil)
		c.Seeds.start(cfg, nil)
	}
	c.Charts.changed()
}

// Cancel stops every run in flight.
func (c *Root) Cancel() {
	if c.w == nil {
		return
	}
	c.Results.cancel()
	c.Matrix.cancel()
	c.Seeds.cancel()
}

// Running reports whether any run is in flight.
func (c *Root) Running() bool { return c.Results.running() || c.Matrix.running() || c.Seeds.running() }

// route hands a worker message to the component that started the run; it reports
// whether the page should render (called with the event lock held).
func (c *Root) route(m Msg) bool {
	if c.Matrix.owns(m.ID) {
		return c.Matrix.onMsg(m)
	}
	if c.Seeds.owns(m.ID) {
		return c.Seeds.onMsg(m)
	}
	if c.Results.onMsg(m) {
		c.Charts.changed()
	}
	return true
}

// AfterRender syncs input values and draws charts after Vugu updated the DOM
// (wasm/main.go calls it after every render).
func (c *Root) AfterRender() {
	SyncInputs()
	c.Charts.draw()
}

// RootClass styles the page for embed mode and the folded form.
func (c *Root) RootClass() string {
	cl := "lab"
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
