package ui

import (
	"time"

	"github.com/vugu/vugu"
	"github.com/wblab/wblab/ui/wire"
)

// Workers is the page's side of the engine worker pool: it numbers runs, posts them,
// and hands each message to route under the event lock, coalescing renders.
type Workers struct {
	ee    vugu.EventEnv
	eng   Engine
	route func(Msg) bool // reports whether the page should render

	matrix        func() bool // whether a matrix or sweep runs (renders less often)
	nextID        int
	lastRender    time.Time // when the last render ended (Root.AfterRender)
	renderPending bool
}

// NewWorkers hands the page's engine (Boot's pool) to the page: its messages go to
// route.
func NewWorkers(ee vugu.EventEnv, eng Engine, route func(Msg) bool) *Workers {
	w := &Workers{ee: ee, route: route, eng: eng}
	eng.OnMsg(w.onMsg)
	return w
}

// RenderEvery and MatrixRenderEvery are the shortest time between two renders a
// worker's message asks for: a matrix cell's result changes one row and the
// status, and each render of the page cost the main thread about 0.3 s on the shared
// 2-core machine (Wu's T1: 51 renders, 15.8 s of main-thread time, PERFORMANCE.md).
// A matrix result that leaves the page's shape as it was renders nothing: it is
// written into the table (MatrixView.patch).
const (
	RenderEvery       = 100 * time.Millisecond
	MatrixRenderEvery = time.Second
)

// MinRenderPause is the least time between the end of a render and the next one a
// worker's message asks for.
const MinRenderPause = 16 * time.Millisecond

// Start posts a run to a worker; summary drops the series (matrix cells, seeds).
func (w *Workers) Start(run wire.Run, summary bool) *RunState {
	w.nextID++
	rs := &RunState{ID: w.nextID, Run: run, Started: time.Now()}
	w.eng.Run(rs.ID, run.Config, summary)
	return rs
}

// Cancel stops run id (a queued run is dropped, a running one stopped).
func (w *Workers) Cancel(id int) { w.eng.Cancel(id) }

// onMsg takes a worker message (from the pool's goroutine), in a task of its own.
func (w *Workers) onMsg(m Msg) {
	Yield()
	w.ee.Lock()
	defer w.ee.UnlockOnly()
	defer Took("msg "+m.Type, time.Now())
	if w.route(m) {
		w.requestRender()
	}
}

// requestRender schedules a render RenderEvery (MatrixRenderEvery while a matrix or
// sweep runs) after the end of the last one, and at least MinRenderPause after it
// (call with the event lock held). Workers post progress every 50 ms each and a
// matrix finishes many runs, while a Vugu render of the page is the main thread's
// largest cost: the main thread shares the cores with the workers. Counted from the
// render's end and never zero, the pause lets the Go runtime go idle and the browser
// run its own tasks (input, timers, painting) between two renders; counted from the
// start, a render slower than the interval was followed at once by the next in the
// same task (T1 with 5 seeds at 30 s per run, load 12, before the renderer script
// skipped unchanged nodes: 163 renders, 8.8 s of long tasks; 78 and 6.1 s from the
// end).
func (w *Workers) requestRender() {
	if w.renderPending {
		return
	}
	w.renderPending = true
	every := RenderEvery
	if w.matrix != nil && w.matrix() {
		every = MatrixRenderEvery
	}
	wait := max(every-time.Since(w.lastRender), MinRenderPause)
	time.AfterFunc(wait, func() {
		w.ee.Lock()
		w.renderPending = false
		w.ee.UnlockRender()
	})
}

// rendered records the end of a render (Root.AfterRender, after the DOM was updated).
func (w *Workers) rendered() { w.lastRender = time.Now() }

// later runs f with the event lock held, after the browser had a turn (Yield),
// without a render: the views the page writes itself (charts, the trace viewer's
// lines, the per-inode lanes) each in a task of its own.
func (w *Workers) later(f func()) {
	go func() {
		Yield()
		w.ee.Lock()
		defer w.ee.UnlockOnly()
		f()
	}()
}

// renderAfter asks for a render after d (live charts drawn at most every d wait for
// it when no message comes).
func (w *Workers) renderAfter(d time.Duration) {
	time.AfterFunc(d, func() {
		w.ee.Lock()
		w.ee.UnlockRender()
	})
}
