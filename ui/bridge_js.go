//go:build js && wasm

package ui

import (
	"fmt"
	"sync"
	"time"

	"github.com/hack-pad/safejs"
)

// pool is a set of Web Workers (static/worker.js) that each run one config at a time.
type pool struct {
	mu      sync.Mutex
	max     int
	workers []*worker
	queue   []job
	onMsg   func(Msg)
	msgs    chan wmsg
	early   *earlyRun
	askID   int
	asks    map[int]chan answer // by ask id, until the answer came
	// catalog is boot.js's catalog: the build's catalog.json, or the answer to the
	// question it asked before the UI started; nil when it has neither
	catalog chan answer
}

// answer is a worker's reply to an "ask" message.
type answer struct {
	json, err string
}

// earlyRun is the default case static/boot.js started in the first worker before the
// UI existed. The UI's first run takes it over when it is the same config; until then
// its messages are held, and they are dropped if the UI runs something else.
type earlyRun struct {
	w       *worker
	id      int  // the worker's id for it (EarlyID)
	claimed int  // the UI's run id once taken over
	dropped bool // the UI ran something else; the run was cancelled
	held    []Msg
	// prerendered: boot.js delivered the build's precomputed run (first.json) as the
	// worker's messages; the worker itself runs nothing and is free
	prerendered bool
}

// wmsg is a message and the worker that sent it.
type wmsg struct {
	Msg
	w *worker
}

type worker struct {
	v     safejs.Value
	busy  int       // job id, 0 when idle
	wid   int       // the id the worker knows the job by (busy, or EarlyID)
	last  time.Time // when it last posted a message (or got its job)
	dead  bool      // reported to the watchdog, waiting for the fatal message
	ready bool      // its engine has started (posted "ready")
	fns   []safejs.Func
}

// WatchdogTimeout is how long a busy worker may stay silent before the pool declares it
// dead (a worker terminated or hung: no event tells the page). The engine posts
// progress at every time-series sample, so a live worker is heard from far more often.
// window.wblabWatchdogMs overrides it (tests).
var WatchdogTimeout = 120 * time.Second

type job struct {
	id      int
	cfg     string
	summary bool
}

// NewEngine starts a worker pool of up to max workers (with the one static/boot.js
// started); OnMsg sets who gets the runs' messages.
func NewEngine(max int) Engine {
	p := &pool{max: max, msgs: make(chan wmsg, 8192), asks: map[int]chan answer{}}
	if ms := jsInt(safejs.Global(), "wblabWatchdogMs"); ms > 0 {
		WatchdogTimeout = time.Duration(ms) * time.Millisecond
	}
	if b := labGet("boot"); !b.IsUndefined() && !b.IsNull() {
		if cat := jsStr(b, "catalog"); cat != "" { // the build's (static/catalog.json)
			p.catalog = make(chan answer, 1)
			p.catalog <- answer{json: cat}
		} else if asked, _ := b.Get("asked"); asked.Type() == safejs.TypeBoolean && jsBool(asked) {
			p.catalog = make(chan answer, 1)
			p.asks[jsInt(b, "id")] = p.catalog
		}
	}
	p.adoptEarly()
	p.adoptBoot()
	go func() {
		for m := range p.msgs {
			p.handle(m)
		}
	}()
	go p.watchdog()
	return p
}

// adoptEarly takes over the worker static/boot.js started (window.wblab.early), with
// the messages it posted so far.
func (p *pool) adoptEarly() {
	e := labGet("early")
	if e.IsUndefined() || e.IsNull() {
		return
	}
	v, err := e.Get("worker")
	if err != nil || v.IsNull() || v.IsUndefined() {
		return
	}
	_ = e.Set("worker", safejs.Null())
	w, err := p.listen(v)
	if err != nil {
		return
	}
	p.workers = append(p.workers, w)
	if run, _ := e.Get("run"); run.Type() == safejs.TypeBoolean && jsBool(run) {
		id := jsInt(e, "id")
		p.early = &earlyRun{w: w, id: id, prerendered: jsFlag(e, "prerendered")}
		if !p.early.prerendered {
			w.busy, w.wid, w.last = id, id, time.Now()
		}
	}
	msgs, _ := e.Get("msgs")
	n, _ := msgs.Length()
	for i := 0; i < n; i++ {
		d, _ := msgs.Index(i)
		p.receive(w, d)
	}
	_ = e.Set("msgs", safejs.Null())
}

// adoptBoot takes over the second worker static/boot.js started for the catalog
// question (window.wblab.boot), with the messages it posted so far.
func (p *pool) adoptBoot() {
	b := labGet("boot")
	if b.IsUndefined() || b.IsNull() {
		return
	}
	v, err := b.Get("worker")
	if err != nil || v.IsNull() || v.IsUndefined() {
		return
	}
	_ = b.Set("worker", safejs.Null())
	w, err := p.listen(v)
	if err != nil {
		return
	}
	p.workers = append(p.workers, w)
	msgs, _ := b.Get("msgs")
	n, _ := msgs.Length()
	for i := 0; i < n; i++ {
		d, _ := msgs.Index(i)
		p.receive(w, d)
	}
	_ = b.Set("msgs", safejs.Null())
}

// Catalog is the engine's catalog: boot.js's early answer, else asked now.
func (p *pool) Catalog() ([]byte, error) {
	if p.catalog != nil {
		if a := <-p.catalog; a.err == "" {
			return []byte(a.json), nil
		}
	}
	return p.Ask("catalog", []byte("null"))
}

// watchdog reports busy workers that have been silent for WatchdogTimeout as dead; the
// pool then fails their job, stops them and starts a new worker for the queue.
func (p *pool) watchdog() {
	tick := min(WatchdogTimeout/4, time.Second)
	for {
		time.Sleep(tick)
		p.mu.Lock()
		var dead []*worker
		for _, w := range p.workers {
			limit := WatchdogTimeout
			if !w.ready { // still compiling worker.wasm
				limit = max(limit, time.Minute)
			}
			if w.busy != 0 && !w.dead && time.Since(w.last) > limit {
				w.dead = true
				dead = append(dead, w)
			}
		}
		p.mu.Unlock()
		for _, w := range dead {
			p.msgs <- wmsg{Msg{Type: "fatal", ID: -1, Message: fmt.Sprintf("no message from it for %v (terminated or hung); it was stopped", WatchdogTimeout)}, w}
		}
	}
}

func (p *pool) Workers() int { return p.max }

func (p *pool) Prerendered() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.early != nil && p.early.prerendered
}

func (p *pool) OnMsg(f func(Msg)) {
	p.mu.Lock()
	p.onMsg = f
	p.mu.Unlock()
}

// deliver hands a run's message to the page (dropped before OnMsg: no run of the
// page's is in flight then; the early run's messages are held until claimed).
func (p *pool) deliver(m Msg) {
	p.mu.Lock()
	f := p.onMsg
	p.mu.Unlock()
	if f != nil {
		f(m)
	}
}

// Ask posts a question to a worker and waits for the answer: to an idle worker, or a
// new one while the pool has room (so the catalog does not wait for, nor slow, the
// first page's run in the early worker), else to a busy one, which answers between
// its run's slices.
func (p *pool) Ask(kind string, req []byte) ([]byte, error) {
	p.mu.Lock()
	var w *worker
	for _, x := range p.workers {
		if x.busy == 0 && !x.dead {
			w = x
			break
		}
	}
	if w == nil && len(p.workers) < p.max {
		if x, err := p.spawn(); err == nil {
			w = x
			p.workers = append(p.workers, w)
		}
	}
	if w == nil && len(p.workers) > 0 {
		w = p.workers[0]
	}
	if w == nil {
		p.mu.Unlock()
		return nil, fmt.Errorf("ask %s: no engine worker", kind)
	}
	p.askID++
	id := p.askID
	ch := make(chan answer, 1)
	p.asks[id] = ch
	p.mu.Unlock()
	post(w.v, map[string]any{"type": "ask", "id": id, "kind": kind, "req": string(req)})
	a := <-ch
	if a.err != "" {
		return nil, fmt.Errorf("%s", a.err)
	}
	return []byte(a.json), nil
}

func (p *pool) Run(id int, cfg string, summary bool) {
	p.mu.Lock()
	if e := p.early; e != nil && e.claimed == 0 && !e.dropped {
		if !summary && cfg == Cat.FirstPageJSON {
			e.claimed = id
			if !e.prerendered {
				e.w.busy = id
			}
			p.mu.Unlock()
			p.msgs <- wmsg{Msg{Type: "claimed", ID: e.id}, e.w} // hands over the held messages
			return
		}
		e.dropped, e.held = true, nil
		if e.prerendered { // nothing runs: forget it
			p.early = nil
		} else {
			post(e.w.v, map[string]any{"type": "cancel", "id": e.id})
		}
	}
	p.queue = append(p.queue, job{id, cfg, summary})
	p.mu.Unlock()
	p.dispatch()
}

func (p *pool) Cancel(id int) {
	p.mu.Lock()
	for i, j := range p.queue {
		if j.id == id {
			p.queue = append(p.queue[:i], p.queue[i+1:]...)
			p.mu.Unlock()
			// not inline: Cancel runs inside a Vugu event handler, which holds the
			// lock onMsg takes
			go p.deliver(Msg{Type: "error", ID: id, Message: "cancelled"})
			return
		}
	}
	var w *worker
	for _, x := range p.workers {
		if x.busy == id {
			w = x
		}
	}
	p.mu.Unlock()
	if w != nil {
		post(w.v, map[string]any{"type": "cancel", "id": w.wid})
	}
}

func post(w safejs.Value, m map[string]any) {
	v, err := safejs.ValueOf(m)
	if err == nil {
		_, _ = w.Call("postMessage", v)
	}
}

// dispatch hands queued jobs to idle workers, starting workers up to max.
func (p *pool) dispatch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) > 0 {
		var w *worker
		for _, x := range p.workers {
			if x.busy == 0 {
				w = x
				break
			}
		}
		if w == nil {
			if len(p.workers) >= p.max {
				return
			}
			var err error
			if w, err = p.spawn(); err != nil {
				j := p.queue[0]
				p.queue = p.queue[1:]
				go p.deliver(Msg{Type: "error", ID: j.id, Message: "cannot start a worker: " + err.Error()})
				continue
			}
			p.workers = append(p.workers, w)
		}
		j := p.queue[0]
		p.queue = p.queue[1:]
		w.busy, w.wid, w.last = j.id, j.id, time.Now()
		post(w.v, map[string]any{"type": "run", "id": j.id, "config": j.cfg, "summary": j.summary, "stream": !j.summary})
	}
}

// spawn starts a worker through window.wblab.newWorker (static/boot.js: it hands the
// worker the page's compiled engine module), or new Worker("worker.js").
func (p *pool) spawn() (*worker, error) {
	v := lab("newWorker")
	if v.IsUndefined() || v.IsNull() {
		ctor, err := safejs.Global().Get("Worker")
		if err != nil {
			return nil, err
		}
		if v, err = ctor.New("worker.js"); err != nil {
			return nil, err
		}
	}
	return p.listen(v)
}

// listen installs the pool's message and error handlers on a Web Worker.
func (p *pool) listen(v safejs.Value) (*worker, error) {
	w := &worker{v: v}
	onmsg, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			d, _ := args[0].Get("data")
			p.receive(w, d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	onerr, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		msg := "worker error"
		if len(args) > 0 {
			if s := jsStr(args[0], "message"); s != "" {
				msg = s
			}
		}
		select {
		case p.msgs <- wmsg{Msg{Type: "fatal", ID: -1, Message: msg}, w}:
		default:
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	w.fns = []safejs.Func{onmsg, onerr}
	_ = v.Set("onmessage", onmsg.Value())
	_ = v.Set("onerror", onerr.Value())
	return w, nil
}

// receive decodes a worker's message (on the JS side: never blocks).
func (p *pool) receive(w *worker, d safejs.Value) {
	if jsStr(d, "type") == "answer" { // to Ask, not to the page
		p.mu.Lock()
		id := jsInt(d, "id")
		ch := p.asks[id]
		delete(p.asks, id)
		p.mu.Unlock()
		if ch != nil {
			ch <- answer{jsStr(d, "answer"), jsStr(d, "message")}
		}
		return
	}
	m := Msg{Type: jsStr(d, "type"), ID: jsInt(d, "id"), Done: jsFloat(d, "done"), Total: jsFloat(d, "total"),
		Result: jsStr(d, "result"), Trace: jsStr(d, "trace"), Message: jsStr(d, "message"), Prerendered: jsFlag(d, "prerendered")}
	switch m.Type {
	case "fatal":
		m.ID = -1
	case "chunk":
		m.Chunk = decodeChunk(d)
	}
	select {
	case p.msgs <- wmsg{m, w}:
	default:
	}
}

// decodeChunk reads a "chunk" message's rows (a row-major Float64Array) and names.
func decodeChunk(d safejs.Value) *Chunk {
	c := &Chunk{From: jsInt(d, "from"), Config: jsStr(d, "config")}
	rows, cols := jsInt(d, "rows"), jsInt(d, "cols")
	if names, err := d.Get("names"); err == nil && !names.IsUndefined() {
		n, _ := names.Length()
		for i := 0; i < n; i++ {
			x, _ := names.Index(i)
			s, _ := x.String()
			c.Names = append(c.Names, s)
		}
	}
	data, err := d.Get("data")
	if err != nil || rows <= 0 || cols <= 0 {
		return c
	}
	buf, _ := data.Get("buffer")
	u8c, _ := safejs.Global().Get("Uint8Array")
	u8, err := u8c.New(buf, jsInt(data, "byteOffset"), jsInt(data, "byteLength"))
	if err != nil {
		return c
	}
	b := make([]byte, 8*rows*cols)
	if n, err := safejs.CopyBytesToGo(b, u8); err != nil || n != len(b) {
		return c
	}
	c.Rows = ChunkRows(b, rows, cols)
	return c
}

// handle runs on the pool's goroutine: frees workers, replaces dead ones, forwards.
func (p *pool) handle(wm wmsg) {
	m := wm.Msg
	if m.Type != "fatal" && m.Type != "claimed" {
		p.mu.Lock()
		wm.w.last = time.Now()
		wm.w.ready = wm.w.ready || m.Type == "ready"
		p.mu.Unlock()
	}
	if e := p.early; e != nil && m.ID == e.id {
		p.mu.Lock()
		claimed, dropped := e.claimed, e.dropped
		switch {
		case dropped:
			if m.Type == "result" || m.Type == "error" {
				e.w.busy = 0
				p.early = nil
			}
		case claimed == 0:
			e.held = append(e.held, m)
		}
		held := e.held
		if claimed != 0 {
			e.held = nil
			if m.Type == "result" || m.Type == "error" {
				p.early = nil
			}
		}
		p.mu.Unlock()
		if dropped {
			p.dispatch()
			return
		}
		if claimed == 0 {
			return
		}
		for _, h := range held {
			h.ID = claimed
			p.handle(wmsg{h, wm.w})
		}
		if m.Type == "claimed" {
			return
		}
		m.ID = claimed
	}
	switch m.Type {
	case "ready", "claimed":
		return
	case "result", "error":
		p.mu.Lock()
		for _, w := range p.workers {
			if w.busy == m.ID {
				w.busy = 0
			}
		}
		p.mu.Unlock()
	case "fatal":
		// a worker died: fail its job, drop it; the next dispatch starts a new one
		p.mu.Lock()
		var failed []int
		keep := p.workers[:0]
		for _, w := range p.workers {
			if w != wm.w {
				keep = append(keep, w)
				continue
			}
			if w.busy != 0 {
				failed = append(failed, w.busy)
			}
			_, _ = w.v.Call("terminate")
			for _, f := range w.fns {
				f.Release()
			}
		}
		p.workers = keep
		if p.early != nil && p.early.w == wm.w {
			p.early = nil
		}
		for id, ch := range p.asks { // whichever worker had it: asked again later
			ch <- answer{err: "the engine worker failed: " + m.Message}
			delete(p.asks, id)
		}
		p.mu.Unlock()
		for _, id := range failed {
			p.deliver(Msg{Type: "error", ID: id, Message: "the engine worker failed: " + m.Message})
		}
		p.dispatch()
		return
	}
	p.deliver(m)
	if m.Type == "result" || m.Type == "error" {
		p.dispatch()
	}
}

func jsStr(v safejs.Value, k string) string {
	x, err := v.Get(k)
	if err != nil || x.Type() != safejs.TypeString {
		return ""
	}
	s, _ := x.String()
	return s
}

func jsFloat(v safejs.Value, k string) float64 {
	x, err := v.Get(k)
	if err != nil || x.Type() != safejs.TypeNumber {
		return 0
	}
	f, _ := x.Float()
	return f
}

func jsInt(v safejs.Value, k string) int { return int(jsFloat(v, k)) }

// Cores is navigator.hardwareConcurrency (1 when unknown).
func Cores() int {
	nav, err := safejs.Global().Get("navigator")
	if err != nil {
		return 1
	}
	if n := jsInt(nav, "hardwareConcurrency"); n > 0 {
		return n
	}
	return 1
}

// charts maps element ids to live uPlot instances.
var charts = map[string]safejs.Value{}

func document() safejs.Value {
	d, _ := safejs.Global().Get("document")
	return d
}

// DrawChart (re)creates the uPlot chart in element elID; empty opts removes it.
func DrawChart(elID, opts, data string) {
	if old, ok := charts[elID]; ok {
		_, _ = old.Call("destroy")
		delete(charts, elID)
	}
	el, err := document().Call("getElementById", elID)
	if err != nil || el.IsNull() {
		return
	}
	if opts == "" { // the element is hidden by its class (Root.ChartClass)
		return
	}
	u := lab("plot", opts, data, el)
	if u.IsUndefined() || u.IsNull() {
		consoleWarn("uPlot: no chart for " + elID)
		return
	}
	charts[elID] = u
}

// UpdateChart gives the chart in elID new data (the same series: a run's new rows).
func UpdateChart(elID, data string) {
	if u, ok := charts[elID]; ok {
		lab("update", u, data)
	}
}

// ChartAlive reports whether elID still holds its chart (the DOM may have been redone).
func ChartAlive(elID string) bool {
	u, ok := charts[elID]
	if !ok {
		return false
	}
	root, err := u.Get("root")
	if err != nil {
		return false
	}
	el, err := document().Call("getElementById", elID)
	if err != nil || el.IsNull() {
		return false
	}
	in, err := el.Call("contains", root)
	if err != nil {
		return false
	}
	b, _ := in.Bool()
	return b
}

// labGet is window.wblab[key].
func labGet(key string) safejs.Value {
	w, err := safejs.Global().Get("wblab")
	if err != nil || w.IsUndefined() {
		return safejs.Undefined()
	}
	v, err := w.Get(key)
	if err != nil {
		return safejs.Undefined()
	}
	return v
}

func lab(fn string, args ...any) safejs.Value {
	w, err := safejs.Global().Get("wblab")
	if err != nil || w.IsUndefined() {
		return safejs.Undefined()
	}
	v, _ := w.Call(fn, args...)
	return v
}

func consoleWarn(s string) { lab("warn", s) }

// PatchMatrix writes a matrix table's texts into the page (static/lab.js
// patchMatrix); false when the page's table has another shape.
func PatchMatrix(patch string) bool { return jsBool(lab("patchMatrix", patch)) }

// SyncInputs copies data-v/data-c attributes into input values (Vugu sets attributes
// only, so programmatic form changes need this).
func SyncInputs() { lab("syncInputs") }

// Hash is location.hash.
func Hash() string { v := lab("hash"); s, _ := v.String(); return s }

// SetHash replaces location.hash without a history entry or hashchange.
func SetHash(h string) { lab("setHash", h) }

// PageURL is the page's address without the hash.
func PageURL() string { v := lab("pageURL"); s, _ := v.String(); return s }

// Copy puts text on the clipboard.
func Copy(text string) { lab("copy", text) }

// Download saves text as a file.
func Download(name, mime, text string) { lab("download", name, mime, text) }

func jsBool(v safejs.Value) bool { b, _ := v.Bool(); return b }

// jsFlag is v[k] when it is a boolean, else false.
func jsFlag(v safejs.Value, k string) bool {
	x, err := v.Get(k)
	return err == nil && x.Type() == safejs.TypeBoolean && jsBool(x)
}

// OnHashChange calls f with location.hash whenever it changes (a pasted link,
// Back/Forward); f must not block.
func OnHashChange(f func(string)) {
	fn, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { f(Hash()); return nil })
	if err != nil {
		return
	}
	lab("onHash", fn.Value())
}

// Layout has the browser bring the page's style and layout up to date now (lab.js
// layout), so a later task that measures the page (uPlot) does not pay for it.
func Layout() { lab("layout") }

// FocusElement scrolls to and focuses the element with id.
func FocusElement(id string) { lab("focus", id) }

// OnChartTime calls f with the time (s) under the pointer when a chart is clicked.
func OnChartTime(f func(float64)) {
	fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			if t, err := args[0].Float(); err == nil {
				f(t)
			}
		}
		return nil
	})
	if err != nil {
		return
	}
	lab("onTime", fn.Value())
}

// Yield lets the browser run its own tasks (input, painting, timers) before the
// calling goroutine goes on: it waits for a message posted to itself through a
// MessageChannel (static/lab.js yield), a task of its own. The Go runtime returns to
// the browser only when every goroutine waits, and work done without a wait is one
// main-thread task; a timer (time.Sleep) does not do it on a loaded machine, where
// the timers of other goroutines have expired by the time one of them waits. The
// page yields between the steps of a render, before each worker message and
// between the views it writes itself, so that no task grows long (issue 35).
func Yield() {
	ch := make(chan struct{})
	f, err := safejs.FuncOf(func(safejs.Value, []safejs.Value) any { close(ch); return nil })
	if err != nil {
		return
	}
	defer f.Release()
	if v := lab("yield", f.Value()); v.IsUndefined() {
		return // no window.wblab (tests): go on
	}
	<-ch
}

// Took records that the page's step name took since start, when a test asked for
// it (window.__took is an array: tests/browser collects where main-thread time goes).
func Took(name string, start time.Time) {
	a, err := safejs.Global().Get("__took")
	if err != nil || a.Type() != safejs.TypeObject {
		return
	}
	_, _ = a.Call("push", name, float64(time.Since(start).Microseconds())/1000)
}

// FillHTML writes the HTML html() returns into element id when it does not hold
// key's content yet (static/lab.js fill): a view the page updates itself, out of
// Vugu's render, which renders the element empty. html is called only then.
func FillHTML(id, key string, html func() string) {
	if Filled(id, key) {
		return
	}
	lab("fill", id, key, html())
}

// SetProgress writes the progress bar (the RunBar's style and value) into the page
// at once, without waiting for the next render.
func SetProgress(style, now string) { lab("progress", style, now) }

// Filled reports whether element id holds key's content (FillHTML), or is absent.
func Filled(id, key string) bool { return jsBool(lab("filled", id, key)) }

// OnTracePick calls f with a trace line's time when the user picks the line (a
// click, Enter or Space; static/lab.js onPick).
func OnTracePick(f func(float64)) {
	fn, err := safejs.FuncOf(func(_ safejs.Value, args []safejs.Value) any {
		if len(args) > 0 {
			if t, err := args[0].Float(); err == nil {
				f(t)
			}
		}
		return nil
	})
	if err != nil {
		return
	}
	lab("onPick", fn.Value())
}

// MarkTime draws a vertical line at t (s) on every chart.
func MarkTime(t float64) { lab("mark", t) }

// BootFailed shows why the page could not start in place of the loading line.
func BootFailed(msg string) {
	doc, err := safejs.Global().Get("document")
	if err != nil {
		return
	}
	el, err := doc.Call("getElementById", "boot-status")
	if err != nil || el.IsNull() || el.IsUndefined() {
		return
	}
	_ = el.Set("textContent", "Failed to start: "+msg)
}
