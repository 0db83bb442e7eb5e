package ui

import (
	"encoding/json"
	"time"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/engine"
)

// Workers is the page's side of the engine worker pool: it numbers runs, posts them,
// and hands each message to route under the event lock, coalescing renders.
type Workers struct {
	ee    vugu.EventEnv
	eng   Engine
	route func(Msg) bool // reports whether the page should render

	nextID        int
	lastRender    time.Time // of a render requested by a worker message
	renderPending bool
}

// NewWorkers starts a pool of up to 8 workers (one per core).
func NewWorkers(ee vugu.EventEnv, route func(Msg) bool) *Workers {
	w := &Workers{ee: ee, route: route}
	w.eng = NewEngine(min(max(Cores(), 1), 8), w.onMsg)
	return w
}

// Start posts cfg to a worker; summary drops the series (matrix cells).
func (w *Workers) Start(cfg engine.Config, summary bool) *RunState {
	w.nextID++
	b, _ := json.Marshal(cfg)
	rs := &RunState{ID: w.nextID, Cfg: cfg, Started: time.Now()}
	w.eng.Run(rs.ID, string(b), summary)
	return rs
}

// Cancel stops run id (a queued run is dropped, a running one stopped).
func (w *Workers) Cancel(id int) { w.eng.Cancel(id) }

// onMsg takes a worker message (from the pool's goroutine).
func (w *Workers) onMsg(m Msg) {
	w.ee.Lock()
	defer w.ee.UnlockOnly()
	if w.route(m) {
		w.requestRender()
	}
}

// requestRender schedules a render within 100 ms of the last one (call with the
// event lock held). Workers post progress every 40 ms each and a matrix finishes many
// runs, while a Vugu render of the page is the main thread's largest cost.
func (w *Workers) requestRender() {
	if w.renderPending {
		return
	}
	w.renderPending = true
	wait := max(100*time.Millisecond-time.Since(w.lastRender), 0)
	time.AfterFunc(wait, func() {
		w.ee.Lock()
		w.renderPending = false
		w.lastRender = time.Now()
		w.ee.UnlockRender()
	})
}

// renderAfter asks for a render after d (live charts drawn at most every d wait for
// it when no message comes).
func (w *Workers) renderAfter(d time.Duration) {
	time.AfterFunc(d, func() {
		w.ee.Lock()
		w.ee.UnlockRender()
	})
}
