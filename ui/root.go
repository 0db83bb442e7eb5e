package ui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/devices"
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

// Root is the page.
type Root struct {
	Form    Form
	B       Form // B's kernel and switches (A/B and matrix)
	Errs    map[string]string
	Mode    string // "", "ab", "matrix"
	Embed   bool
	CaseBox string
	Table   string // built-in matrix table name, or "" for the text box
	Cases   string // matrix case list, one per line
	Share   string // the shown share link / embed snippet
	Notice  string
	Repro   string // the chosen reproduce preset's ID ("" for none)

	A, Bs  *RunState
	Matrix *Matrix
	mcells map[int][2]int // run id -> matrix row, column

	ee            vugu.EventEnv
	eng           Engine
	nextID        int
	chartVer      int
	drawn         int
	drawnMode     string
	chartKey      string
	chartMemo     map[string][2]string
	lastRender    time.Time // of a render requested by a worker message
	renderPending bool
}

// Init reads the URL hash and starts the first run.
func (c *Root) Init(ctx vugu.InitCtx) {
	c.ee = ctx.EventEnv()
	c.Errs = map[string]string{}
	c.Cases = strings.Join(defaultMatrixCases(), "\n")
	st, err := DecodeHash(Hash())
	c.applyState(st)
	n := min(max(Cores(), 1), 8)
	c.eng = NewEngine(n, c.onMsg)
	if err != nil {
		c.setErr(err)
		return
	}
	c.Run()
}

func (c *Root) applyState(st State) {
	c.Form, c.Mode, c.Embed = st.Form, st.Mode, st.Embed
	c.B = st.B.Clone()
	c.Repro = st.Repro
	if c.B == nil {
		c.B = Form{}
	}
	if c.B["kernel"] == "" {
		c.B["kernel"] = c.Form["kernel"]
	}
	if st.Table != "" {
		c.SelectTable(st.Table)
	}
	c.CaseBox = c.Form.CaseName()
}

// defaultMatrixCases is a small list on the filesystems the engine runs.
func defaultMatrixCases() []string {
	var out []string
	for _, fs := range engine.Filesystems() {
		for _, dd := range []int{1, 2, 10} {
			out = append(out, fmt.Sprintf("thresh=100M/%s-%ddd-4k-8p-4096M-100M:10-X", fs, dd))
		}
	}
	return out
}

// F is a control's text.
func (c *Root) F(id string) string { return c.Form[id] }

// SetF handles an input or change event on a control.
func (c *Root) SetF(id string, e vugu.DOMEvent) {
	v := e.PropString("target", "value")
	if e.PropString("target", "type") == "checkbox" {
		v = onOff(e.PropBool("target", "checked"))
	}
	c.Form[id] = v
	delete(c.Errs, id)
	if id == "device" { // a new preset: its own keys and values
		for k := range c.Form {
			if strings.HasPrefix(k, "dev.") {
				delete(c.Form, k)
			}
		}
	}
	c.CaseBox = c.Form.CaseName()
	c.saveHash()
}

// SetB handles B's kernel controls.
func (c *Root) SetB(id string, e vugu.DOMEvent) {
	c.B[id] = e.PropString("target", "value")
	c.saveHash()
}

// BF is a B control's text.
func (c *Root) BF(id string) string { return c.B[id] }

// DeviceModel is the model of the chosen device preset.
func (c *Root) DeviceModel() string { return presetInfo(c.Form["device"]).model }

// Placeholder is a device key's preset value.
func (c *Root) Placeholder(id string) string {
	if !strings.HasPrefix(id, "dev.") {
		return ""
	}
	return presetInfo(c.Form["device"]).values[id[4:]]
}

// devInfo is what the form shows of a device preset.
type devInfo struct {
	model  string
	values map[string]string
}

// presetCache memoizes presetInfo: presets are fixed at build time, and the form asks
// for every device key on every render.
var (
	presetMu    sync.Mutex
	presetCache = map[string]devInfo{}
)

func presetInfo(name string) devInfo {
	presetMu.Lock()
	defer presetMu.Unlock()
	if d, ok := presetCache[name]; ok {
		return d
	}
	var d devInfo
	if s, err := devices.Preset(name); err == nil {
		d = devInfo{model: s.Model, values: DeviceValues(s)}
	}
	presetCache[name] = d
	return d
}

// Groups lists the form's field groups in order.
func (c *Root) Groups() []string {
	return []string{"workload", "sysctl", "machine", "device", "kernel", "run"}
}

// GroupFields lists a group's fields.
func (c *Root) GroupFields(g string) []Field {
	var out []Field
	for _, f := range Fields(c.DeviceModel()) {
		if f.Group == g {
			out = append(out, f)
		}
	}
	return out
}

// VariantFields are the kernel switches (for B).
func (c *Root) VariantFields() []Field { return c.GroupFields("kernel")[1:] }

// SetCaseBox keeps the case box text.
func (c *Root) SetCaseBox(e vugu.DOMEvent) { c.CaseBox = e.PropString("target", "value") }

// ApplyCase sets the form from the case box.
func (c *Root) ApplyCase() {
	f, err := c.Form.ApplyCase(c.CaseBox)
	if err != nil {
		c.Errs["case"] = err.Msg
		return
	}
	delete(c.Errs, "case")
	c.Form = f
	c.saveHash()
}

// ApplyRepro sets the page up for a "Reproduce" preset and runs it.
func (c *Root) ApplyRepro(id string) {
	r, ok := ReproByID(id)
	if !ok {
		return
	}
	if !r.Available() {
		c.Notice = r.Title + " needs the kernel presets " + r.Missing()
		return
	}
	c.Cancel()
	c.applyState(r.Apply(c.state()))
	if r.Table == "" {
		c.Table = ""
	}
	c.Run()
}

// ReproText is the chosen preset's explanation.
func (c *Root) ReproText() string {
	r, ok := ReproByID(c.Repro)
	if !ok {
		return ""
	}
	return r.Title + ": " + r.Explain
}

// ReproTitle is a preset button's tooltip.
func (c *Root) ReproTitle(r Repro) string {
	if !r.Available() {
		return "needs the kernel presets " + r.Missing() + " (not in this engine yet)"
	}
	return r.Explain
}

// ReproClass marks the chosen preset's button.
func (c *Root) ReproClass(r Repro) string {
	if c.Repro == r.ID {
		return "repro-btn active"
	}
	return "repro-btn"
}

// SetMode switches between single, A/B and matrix views.
func (c *Root) SetMode(m string) {
	c.Mode = m
	c.saveHash()
}

// SelectTable fills the matrix case list from a built-in table.
func (c *Root) SelectTable(name string) {
	c.Table = name
	for _, t := range Tables() {
		if t.Name == name {
			c.Cases = strings.Join(t.Cases, "\n")
		}
	}
}

// OnTable handles the table select.
func (c *Root) OnTable(e vugu.DOMEvent) {
	c.SelectTable(e.PropString("target", "value"))
	c.saveHash()
}

// OnCases handles edits of the matrix case list.
func (c *Root) OnCases(e vugu.DOMEvent) {
	c.Cases = e.PropString("target", "value")
	c.Table = ""
}

func (c *Root) state() State {
	return State{Form: c.Form, Mode: c.Mode, B: c.B, Embed: c.Embed, Table: c.Table, Repro: c.Repro}
}

func (c *Root) saveHash() { SetHash(EncodeHash(c.state())) }

// Running reports whether any run is in flight.
func (c *Root) Running() bool {
	return (c.A != nil && c.A.Res == nil && c.A.Err == "") || (c.Bs != nil && c.Bs.Res == nil && c.Bs.Err == "") ||
		(c.Matrix != nil && c.Matrix.Finished() < 2*len(c.Matrix.Cases))
}

func (c *Root) start(cfg engine.Config) *RunState { return c.startRun(cfg, false) }

// startRun starts cfg on a worker; summary drops the series (matrix cells).
func (c *Root) startRun(cfg engine.Config, summary bool) *RunState {
	c.nextID++
	b, _ := json.Marshal(cfg)
	rs := &RunState{ID: c.nextID, Cfg: cfg, Started: time.Now()}
	c.eng.Run(rs.ID, string(b), summary)
	return rs
}

// bConfig is A's config with B's kernel and switches.
func (c *Root) bConfig() (engine.Config, *FieldError) {
	g := c.Form.Clone()
	for k := range g {
		if strings.HasPrefix(k, "v.") {
			delete(g, k)
		}
	}
	for k, v := range c.B {
		g[k] = v
	}
	cfg, err := g.Config()
	if err != nil {
		err.Field = "b." + err.Field
	}
	return cfg, err
}

// Run validates the form and starts the current mode's runs; bad input runs nothing.
func (c *Root) Run() {
	c.Cancel()
	c.Errs = map[string]string{}
	c.Notice = ""
	cfg, err := c.Form.Config()
	if err != nil {
		c.setErr(err)
		return
	}
	c.CaseBox = engine.CaseOf(cfg).String()
	c.saveHash()
	switch c.Mode {
	case "ab":
		bcfg, err := c.bConfig()
		if err != nil {
			c.Errs[err.Field] = err.Msg
			return
		}
		c.A, c.Bs = c.start(cfg), c.start(bcfg)
	case "matrix":
		c.startMatrix(cfg)
	default:
		c.A, c.Bs = c.start(cfg), nil
	}
	c.chartVer++
}

func (c *Root) startMatrix(cfg engine.Config) {
	bcfg, ferr := c.bConfig()
	if ferr != nil {
		c.Errs[ferr.Field] = ferr.Msg
		return
	}
	m := &Matrix{Base: kernelLabel(cfg), Test: kernelLabel(bcfg)}
	c.mcells = map[int][2]int{}
	for _, line := range strings.Split(c.Cases, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			m.Cases = append(m.Cases, line)
		}
	}
	if len(m.Cases) == 0 {
		c.Errs["cases"] = "cases: the list is empty"
		return
	}
	m.Cells = make([][2]Cell, len(m.Cases))
	c.Matrix = m
	for i, name := range m.Cases {
		for col, base := range []engine.Config{cfg, bcfg} {
			cc, err := engine.ParseCase(name)
			if err != nil {
				m.Cells[i][col].Err = err.Error()
				continue
			}
			run := base
			cc.Apply(&run)
			if err := run.Validate(); err != nil {
				m.Cells[i][col].Err = err.Error()
				continue
			}
			rs := c.startRun(run, true)
			c.mcells[rs.ID] = [2]int{i, col}
		}
	}
}

func kernelLabel(cfg engine.Config) string {
	s := cfg.Kernel
	for _, k := range sortedKeys(FormFromConfig(cfg)) {
		if strings.HasPrefix(k, "v.") {
			s += fmt.Sprintf(" %s=%s", k[2:], onOff(cfg.Variants[k[2:]]))
		}
	}
	return s
}

// Cancel stops every run in flight.
func (c *Root) Cancel() {
	for _, r := range []*RunState{c.A, c.Bs} {
		if r != nil && r.Res == nil && r.Err == "" {
			c.eng.Cancel(r.ID)
		}
	}
	for id, rc := range c.mcells {
		c.eng.Cancel(id)
		if c.Matrix != nil {
			c.Matrix.Cells[rc[0]][rc[1]].Err = "cancelled"
		}
	}
	c.mcells = map[int][2]int{}
}

// requestRender schedules a render within 100 ms of the last one (call with the
// event lock held).
func (c *Root) requestRender() {
	if c.renderPending {
		return
	}
	c.renderPending = true
	wait := max(100*time.Millisecond-time.Since(c.lastRender), 0)
	time.AfterFunc(wait, func() {
		c.ee.Lock()
		c.renderPending = false
		c.lastRender = time.Now()
		c.ee.UnlockRender()
	})
}

// onMsg takes a worker message (from the pool's goroutine).
func (c *Root) onMsg(m Msg) {
	c.ee.Lock()
	defer c.ee.UnlockOnly()
	// Renders are coalesced to at most one per 100 ms: workers post progress every
	// 40 ms each and a matrix finishes many runs, while a Vugu render of the page is
	// the main thread's largest cost. Matrix cells show no progress: no render.
	if _, cell := c.mcells[m.ID]; !cell || m.Type != "progress" {
		c.requestRender()
	}
	if rc, ok := c.mcells[m.ID]; ok && c.Matrix != nil {
		cell := &c.Matrix.Cells[rc[0]][rc[1]]
		switch m.Type {
		case "result":
			var r engine.Result
			if err := json.Unmarshal([]byte(m.Result), &r); err != nil {
				cell.Err = err.Error()
			} else {
				cell.Done, cell.BW = true, r.WriteBWMBps
			}
			delete(c.mcells, m.ID)
		case "error":
			cell.Err = m.Message
			delete(c.mcells, m.ID)
		}
		return
	}
	for _, r := range []*RunState{c.A, c.Bs} {
		if r == nil || r.ID != m.ID {
			continue
		}
		switch m.Type {
		case "progress":
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
			c.chartVer++
		case "error":
			r.Err = m.Message
		}
	}
}

// Status is the line above the results.
func (c *Root) Status() string {
	switch {
	case c.Mode == "matrix" && c.Matrix != nil:
		n := 0
		for _, r := range c.Matrix.Cells {
			for _, x := range r {
				if x.Err == "cancelled" {
					n++
				}
			}
		}
		if n > 0 {
			return fmt.Sprintf("matrix: %d of %d runs finished, %d cancelled", c.Matrix.Finished()-n, 2*len(c.Matrix.Cases), n)
		}
		return fmt.Sprintf("matrix: %d of %d runs finished", c.Matrix.Finished(), 2*len(c.Matrix.Cases))
	case c.A == nil:
		return "ready"
	case c.Running():
		return fmt.Sprintf("running %s … %.0f%%", c.A.Cfg.Runtime, c.progress()*100)
	case c.A.Err == "cancelled" || (c.Bs != nil && c.Bs.Err == "cancelled"):
		return "cancelled"
	case c.A.Err != "":
		return "run failed"
	}
	return fmt.Sprintf("done: %s in %.0f ms", c.A.Res.Case, c.A.WallMs)
}

func (c *Root) progress() float64 {
	if c.Mode == "matrix" && c.Matrix != nil {
		if len(c.Matrix.Cases) == 0 {
			return 1
		}
		return float64(c.Matrix.Finished()) / float64(2*len(c.Matrix.Cases))
	}
	p, n := 0.0, 0
	for _, r := range []*RunState{c.A, c.Bs} {
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
func (c *Root) ProgressStyle() string { return fmt.Sprintf("width: %.1f%%", c.progress()*100) }

// RunErrors are the failed runs' messages.
func (c *Root) RunErrors() []string {
	var out []string
	for i, r := range []*RunState{c.A, c.Bs} {
		if r != nil && r.Err != "" {
			out = append(out, fmt.Sprintf("%s: %s", []string{"A", "B"}[i], r.Err))
		}
	}
	return out
}

// Card is one summary number (or name, for Text cards).
type Card struct {
	ID, Label, Unit string
	A, B, Delta     string
	Text            bool
}

// Cards are the summary numbers of A (and B, with the change), then the kernel,
// device and filesystem names.
func (c *Root) Cards() []Card {
	if c.A == nil || c.A.Res == nil || c.Mode == "matrix" {
		return nil
	}
	var b *RunState
	if c.Mode == "ab" && c.Bs != nil && c.Bs.Res != nil {
		b = c.Bs
	}
	return Cards(c.A, b)
}

// Cards builds the summary cards of finished run a (and b when it is not nil).
func Cards(ar, b *RunState) []Card {
	a, wallMs := ar.Res, ar.WallMs
	type num struct {
		id, label, unit string
		f               func(*engine.Result, float64) float64
		prec            int
	}
	nums := []num{
		{"write_bw", "write_bw", "MB/s", func(r *engine.Result, _ float64) float64 { return r.WriteBWMBps }, 2},
		{"written", "written", "MB", func(r *engine.Result, _ float64) float64 { return r.WrittenMB }, 1},
		{"cpu", "CPU", "s", func(r *engine.Result, _ float64) float64 { return r.CPUS }, 2},
		{"runtime", "runtime", "s simulated", func(r *engine.Result, _ float64) float64 { return r.RuntimeS }, 0},
		{"wall", "wall time", "ms", func(_ *engine.Result, w float64) float64 { return w }, 0},
		{"age", "max dirty age", "s", func(r *engine.Result, _ float64) float64 { return r.DirtyAge.MaxS }, 1},
		{"busy", "wb busy loops", "", func(r *engine.Result, _ float64) float64 { return float64(r.BusyLoops) }, 0},
	}
	if ddTime(a) > 0 || (b != nil && ddTime(b.Res) > 0) {
		nums = append(nums, num{"dd_time", "dd finished in", "s", func(r *engine.Result, _ float64) float64 { return ddTime(r) }, 1})
	}
	if a.Reads.Count > 0 || (b != nil && b.Res.Reads.Count > 0) {
		nums = append(nums,
			num{"read_p99", "read latency p99", "ms", func(r *engine.Result, _ float64) float64 { return r.Reads.P99Ms }, 1},
			num{"read_mean", "read latency mean", "ms", func(r *engine.Result, _ float64) float64 { return r.Reads.MeanMs }, 2})
	}
	var out []Card
	for _, g := range nums {
		av := g.f(a, wallMs)
		cd := Card{ID: g.id, Label: g.label, Unit: g.unit, A: fmt.Sprintf("%.*f", g.prec, av)}
		if b != nil {
			bv := g.f(b.Res, b.WallMs)
			cd.B = fmt.Sprintf("%.*f", g.prec, bv)
			if math.Abs(av) >= 0.5*math.Pow(10, -float64(g.prec)) { // no % change from a shown 0
				cd.Delta = Delta(av, bv)
			}
		}
		out = append(out, cd)
	}
	// the filesystem's counters (journal commits, xfsdatad requeues, ...)
	for _, st := range a.FSStats {
		cd := Card{ID: "fs-" + st.Name, Label: strings.ReplaceAll(st.Name, "_", " "), A: strconv.FormatInt(st.Value, 10)}
		if b != nil {
			for _, bs := range b.Res.FSStats {
				if bs.Name == st.Name && b.Res.Filesystem == a.Filesystem {
					cd.B = strconv.FormatInt(bs.Value, 10)
					if st.Value != 0 {
						cd.Delta = Delta(float64(st.Value), float64(bs.Value))
					}
				}
			}
		}
		out = append(out, cd)
	}
	for _, t := range []struct {
		id, label string
		f         func(*RunState) string
	}{
		{"kernel", "kernel", func(r *RunState) string { return kernelLabel(r.Cfg) }},
		{"device", "device", func(r *RunState) string { return r.Cfg.Device.String() }},
		{"fs", "filesystem", func(r *RunState) string { return r.Res.Filesystem }},
	} {
		cd := Card{ID: t.id, Label: t.label, A: t.f(ar), Text: true}
		if b != nil && t.f(b) != cd.A {
			cd.B = t.f(b)
		}
		out = append(out, cd)
	}
	return out
}

// MatrixRows are the table rows for the template.
func (c *Root) MatrixRows() [][]string {
	m := c.Matrix
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
	for _, t := range Tables() {
		if t.Name != c.Table {
			continue
		}
		pub := map[string][2]float64{}
		for i, name := range t.Cases {
			published[name] = fmt.Sprintf("%.2f %s %.2f", t.BaseBW[i], Delta(t.BaseBW[i], t.TestBW[i]), t.TestBW[i])
			pub[name] = [2]float64{t.BaseBW[i], t.TestBW[i]}
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
	var out [][]string
	for i, r := range m.Cells {
		d := ""
		if r[0].Done && r[1].Done {
			d = Delta(r[0].BW, r[1].BW)
		}
		title := r[0].Err
		if title == "" {
			title = r[1].Err
		}
		out = append(out, []string{cell(r[0]), d, cell(r[1]), m.Cases[i], title, published[m.Cases[i]]})
	}
	if b, t, n := m.Total(); n > 0 {
		out = append(out, []string{fmt.Sprintf("%.2f", b), Delta(b, t), fmt.Sprintf("%.2f", t), "TOTAL", "", pubTotal})
	}
	return out
}

// MatrixErrors are the failed cells' messages (cancelled ones aside), shown under
// the table.
func (c *Root) MatrixErrors() []string {
	if c.Matrix == nil {
		return nil
	}
	var out []string
	for i, r := range c.Matrix.Cells {
		for col, x := range r {
			if x.Err != "" && x.Err != "cancelled" {
				out = append(out, fmt.Sprintf("%s (%s): %s", c.Matrix.Cases[i], []string{"base", "test"}[col], x.Err))
			}
		}
	}
	return out
}

// ShareLink shows the page's link with the current state.
func (c *Root) ShareLink() {
	c.Share = PageURL() + "#" + EncodeHash(c.state())
	Copy(c.Share)
	c.Notice = "link copied"
}

// EmbedSnippet shows an iframe snippet for the current state in embed mode.
func (c *Root) EmbedSnippet() {
	st := c.state()
	st.Embed = true
	c.Share = fmt.Sprintf(`<iframe src="%s#%s" width="900" height="640" style="border:0" title="wblab"></iframe>`, PageURL(), EncodeHash(st))
	c.Notice = "embed snippet"
}

// Export downloads A's results in a format: json, csv or trace.
func (c *Root) Export(kind string) {
	if c.A == nil || c.A.Res == nil {
		c.Notice = "nothing to export yet"
		return
	}
	var b bytes.Buffer
	name := "wblab-" + strings.NewReplacer("/", "_", "=", "-", ":", "-").Replace(c.A.Res.Case)
	switch kind {
	case "json":
		e := json.NewEncoder(&b)
		e.SetIndent("", " ")
		_ = e.Encode(c.A.Res)
		Download(name+".json", "application/json", b.String())
	case "csv":
		_ = c.A.Res.WriteSeriesCSV(&b)
		Download(name+".csv", "text/csv", b.String())
	case "trace":
		if c.A.Trace == "" {
			c.Notice = `no trace: tick "record trace" and run again`
			return
		}
		Download(name+".trace.txt", "text/plain", c.A.Trace)
	}
}

// AfterRender syncs input values and draws charts after Vugu updated the DOM
// (wasm/main.go calls it after every render).
func (c *Root) AfterRender() {
	SyncInputs()
	if c.drawn == c.chartVer && c.drawnMode == c.Mode && c.chartsAlive() {
		return
	}
	m := c.chartData()
	c.drawn, c.drawnMode = c.chartVer, c.Mode
	for _, id := range c.ChartIDs() {
		DrawChart(id, m[id][0], m[id][1])
	}
}

// chartData is the uPlot options and data of every chart with something to show, by
// element id, built once per result set and view.
func (c *Root) chartData() map[string][2]string {
	key := fmt.Sprintf("%d/%s", c.chartVer, c.Mode)
	if c.chartKey == key {
		return c.chartMemo
	}
	runs := c.runs()
	m := map[string][2]string{}
	for _, sp := range AllCharts(runs) {
		if o, d, ok := ChartJSON(sp, runs); ok {
			m["chart-"+sp.ID] = [2]string{o, d}
		}
	}
	c.chartKey, c.chartMemo = key, m
	return m
}

// ChartClass shows the charts that have data (Vugu owns the attribute, so a re-render
// keeps it).
func (c *Root) ChartClass(id string) string {
	if _, ok := c.chartData()[id]; ok {
		return "chart shown"
	}
	return "chart"
}

// runs are the finished results the charts show.
func (c *Root) runs() []Run {
	if c.Mode == "matrix" || c.A == nil || c.A.Res == nil {
		return nil
	}
	if c.Mode == "ab" && c.Bs != nil && c.Bs.Res != nil {
		return []Run{{"A", c.A.Res}, {"B", c.Bs.Res}}
	}
	return []Run{{"", c.A.Res}}
}

func (c *Root) chartsAlive() bool {
	if c.A == nil || c.A.Res == nil {
		return true
	}
	return ChartAlive("chart-dirty")
}

// ChartIDs are the chart element ids.
func (c *Root) ChartIDs() []string {
	var out []string
	for _, s := range AllCharts(c.runs()) {
		out = append(out, "chart-"+s.ID)
	}
	return out
}

// RootClass styles the page for embed mode.
func (c *Root) RootClass() string {
	if c.Embed {
		return "lab embed"
	}
	return "lab"
}

// ModeClass marks the active mode button.
func (c *Root) ModeClass(m string) string {
	if c.Mode == m {
		return "mode active"
	}
	return "mode"
}

// setErr shows an input error next to its control, or under the case box when the
// page has no such control (a link naming a switch or device key this build lacks).
func (c *Root) setErr(e *FieldError) {
	for _, f := range Fields(c.DeviceModel()) {
		if f.ID == e.Field {
			c.Errs[e.Field] = e.Msg
			return
		}
	}
	msg := e.Msg
	if !strings.HasPrefix(msg, "link: ") && !strings.HasPrefix(msg, "case") {
		msg = e.Field + ": " + msg
	}
	c.Errs["case"] = msg
}

// Err is a control's error text.
func (c *Root) Err(id string) string { return c.Errs[id] }

// Opts are a select's [value, text] choices; the current value stays listed even when
// the engine does not offer it (so a link naming it shows the engine's error).
func (c *Root) Opts(f Field) [][2]string {
	if f.Kind == "tri" {
		return [][2]string{{"", "preset"}, {"on", "on"}, {"off", "off"}}
	}
	var out [][2]string
	found := false
	for _, o := range Options(f.ID) {
		out = append(out, [2]string{o, o})
		found = found || o == c.Form[f.ID]
	}
	if !found && c.Form[f.ID] != "" {
		out = append(out, [2]string{c.Form[f.ID], c.Form[f.ID]})
	}
	return out
}

// BErrs are errors of B's controls.
func (c *Root) BErrs() []string {
	var out []string
	for k, v := range c.Errs {
		if strings.HasPrefix(k, "b.") {
			out = append(out, v)
		}
	}
	return out
}

// ddTime is when the last count-limited dd exited (0 when none did).
func ddTime(r *engine.Result) float64 {
	t := 0.0
	for _, k := range r.Tasks {
		if k.Done && k.RuntimeS > t {
			t = k.RuntimeS
		}
	}
	return t
}

// CardClass styles number and name cards.
func CardClass(cd Card) string {
	if cd.Text {
		return "card text"
	}
	return "card"
}
