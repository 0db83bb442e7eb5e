// Package sim is wblab's discrete-event core: a virtual clock in nanoseconds with
// jiffies at a configurable HZ, a typed min-heap of timers with FIFO tie-break, a
// seeded random source, tasks and a CPU resource.
//
// There are no goroutines, channels, wall clock or package-level state: every run
// owns one *World and the same seed gives the same run on every platform.
package sim

import (
	"errors"
	"math/rand/v2"
)

// Time is simulated time in nanoseconds since boot.
type Time int64

// Units of Time.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Seconds reports t in seconds (for reports only; engine state stays integer).
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// Timer is one schedulable event. Actors own their timers and reuse them, so the
// event loop allocates nothing per event. A Timer is either idle or queued once.
type Timer struct {
	Fn   func() // called when the timer fires
	when Time
	idx  int32 // > 0: position in the heap + 1; < 0: -(position in the same-time FIFO + 1); 0 when idle
}

// Pending reports whether the timer is queued.
func (t *Timer) Pending() bool { return t.idx != 0 }

// When reports the time the timer is queued for (meaningful only when Pending).
func (t *Timer) When() Time { return t.when }

// ErrCancelled is returned by Run when Cancel was called.
var ErrCancelled = errors.New("sim: run cancelled")

// entry is a heap slot: the ordering key is stored inline so that sifting compares
// without dereferencing the timers.
type entry struct {
	when Time
	seq  uint64
	t    *Timer
}

// World is one simulation: clock, event queue, random source.
//
// Events fire in (time, queueing order). Timers queued for a later time live in a
// 4-ary min-heap keyed by (when, seq); timers queued for the current time go to a
// FIFO instead, which costs no heap operation. The two together give exactly the
// order of a single heap: a heap entry due now was queued before the clock reached
// now, so it precedes every FIFO entry (all queued at now), and the FIFO is always
// empty when the clock advances (its entries are due before any later one).
type World struct {
	now     Time
	hz      int64
	heap    []entry
	fifo    []*Timer // same-time timers in queueing order; cancelled slots are nil
	fhead   int      // first possibly live slot of fifo
	nfifo   int      // live timers in fifo
	seq     uint64
	events  uint64
	stopped bool
	cancel  bool
	Rand    *rand.Rand

	// AfterEvent, when set, runs after every event (invariant checks in tests).
	AfterEvent func()
}

// NewWorld returns a world at time 0 with the given HZ and seed.
func NewWorld(hz int, seed uint64) *World {
	if hz <= 0 {
		hz = 1000
	}
	return &World{hz: int64(hz), Rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// Now is the current simulated time.
func (w *World) Now() Time { return w.now }

// HZ is the jiffy rate.
func (w *World) HZ() int64 { return w.hz }

// Jiffies is the kernel's jiffies counter at the current time.
func (w *World) Jiffies() int64 { return int64(w.now) * w.hz / int64(Second) }

// JiffiesToTime converts a jiffies count (or a jiffies timestamp) to Time.
func (w *World) JiffiesToTime(j int64) Time { return Time(j * int64(Second) / w.hz) }

// MsecsToJiffies mirrors msecs_to_jiffies (rounding up).
func (w *World) MsecsToJiffies(ms int64) int64 { return (ms*w.hz + 999) / 1000 }

// Events is the number of events fired so far.
func (w *World) Events() uint64 { return w.events }

// At queues t to fire at time when (or now, if when is in the past). A queued
// timer is moved. Ties fire in the order they were queued.
func (w *World) At(t *Timer, when Time) {
	if when <= w.now {
		if t.idx != 0 {
			w.Cancel(t)
		}
		t.when = w.now
		w.fifo = append(w.fifo, t)
		w.nfifo++
		t.idx = -int32(len(w.fifo))
		return
	}
	w.seq++
	t.when = when
	if t.idx > 0 {
		// re-arm in place: the new key is later than the old one unless when moved
		// earlier (seq always grows), so one sift suffices
		i := int(t.idx - 1)
		old := w.heap[i].when
		w.heap[i].when, w.heap[i].seq = when, w.seq
		if when < old {
			w.up(i)
		} else {
			w.down(i)
		}
		return
	}
	if t.idx < 0 {
		w.fifoRemove(t)
	}
	w.heap = append(w.heap, entry{when, w.seq, t})
	t.idx = int32(len(w.heap))
	w.up(len(w.heap) - 1)
}

// After queues t to fire d from now.
func (w *World) After(t *Timer, d Time) { w.At(t, w.now+d) }

// Cancel removes t from the queue if it is queued.
func (w *World) Cancel(t *Timer) {
	switch {
	case t.idx > 0:
		w.heapRemove(int(t.idx - 1))
	case t.idx < 0:
		w.fifoRemove(t)
	}
}

func (w *World) fifoRemove(t *Timer) {
	w.fifo[-t.idx-1] = nil
	t.idx = 0
	w.nfifo--
	if w.nfifo == 0 {
		clear(w.fifo[w.fhead:])
		w.fifo, w.fhead = w.fifo[:0], 0
	}
}

// heapRemove takes the entry at i out of the heap.
func (w *World) heapRemove(i int) {
	h := w.heap
	h[i].t.idx = 0
	last := len(h) - 1
	x := h[last]
	h[last] = entry{}
	w.heap = h[:last]
	if i == last {
		return
	}
	if x.when < h[i].when || (x.when == h[i].when && x.seq < h[i].seq) {
		h[i] = x
		w.up(i)
	} else {
		h[i] = x
		w.down(i)
	}
}

func (a *entry) before(b *entry) bool {
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

// up moves the entry at i towards the root (4-ary heap: parent (i-1)/4).
func (w *World) up(i int) {
	h := w.heap
	x := h[i]
	for i > 0 {
		p := (i - 1) >> 2
		if !x.before(&h[p]) {
			break
		}
		h[i] = h[p]
		h[i].t.idx = int32(i + 1)
		i = p
	}
	h[i] = x
	x.t.idx = int32(i + 1)
}

// down moves the entry at i towards the leaves (children 4i+1 .. 4i+4).
func (w *World) down(i int) {
	h := w.heap
	n := len(h)
	x := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if h[j].before(&h[m]) {
				m = j
			}
		}
		if !h[m].before(&x) {
			break
		}
		h[i] = h[m]
		h[i].t.idx = int32(i + 1)
		i = m
	}
	h[i] = x
	x.t.idx = int32(i + 1)
}

// Step fires the next event. It reports false when no event is queued.
func (w *World) Step() bool {
	var t *Timer
	switch {
	case w.nfifo > 0 && (len(w.heap) == 0 || w.heap[0].when != w.now):
		for w.fifo[w.fhead] == nil {
			w.fhead++
		}
		t = w.fifo[w.fhead]
		w.fifo[w.fhead] = nil
		w.fhead++
		t.idx = 0
		w.nfifo--
		if w.nfifo == 0 {
			w.fifo, w.fhead = w.fifo[:0], 0
		} else if w.fhead >= 1024 && 2*w.fhead >= len(w.fifo) {
			w.compactFIFO()
		}
	case len(w.heap) > 0:
		t = w.heap[0].t
		w.heapRemove(0)
		if t.when > w.now {
			w.now = t.when
		}
	default:
		return false
	}
	w.events++
	t.Fn()
	if w.AfterEvent != nil {
		w.AfterEvent()
	}
	return true
}

// compactFIFO drops the consumed and cancelled slots of the same-time FIFO (a long
// run of events at one instant).
func (w *World) compactFIFO() {
	n := 0
	for _, t := range w.fifo[w.fhead:] {
		if t != nil {
			w.fifo[n] = t
			t.idx = -int32(n + 1)
			n++
		}
	}
	clear(w.fifo[n:])
	w.fifo, w.fhead = w.fifo[:n], 0
}

// Stop makes Run return after the current event.
func (w *World) Stop() { w.stopped = true }

// Cancel makes Run return ErrCancelled after the current event. It may be called
// from an event handler (e.g. a progress callback that sees a cancelled context).
func (w *World) CancelRun() { w.cancel = true }

// NextEvent reports the time of the next queued event.
func (w *World) NextEvent() (Time, bool) {
	if w.nfifo > 0 {
		return w.now, true
	}
	if len(w.heap) == 0 {
		return 0, false
	}
	return w.heap[0].when, true
}

// Run fires events until the next one lies after until, the queue is empty,
// Stop was called, or CancelRun was called. The clock ends at until unless stopped early.
func (w *World) Run(until Time) error {
	w.stopped = false
	for !w.stopped && !w.cancel {
		next, ok := w.NextEvent()
		if !ok || next > until {
			break
		}
		w.Step()
	}
	if w.cancel {
		w.cancel = false
		return ErrCancelled
	}
	if !w.stopped && w.now < until {
		w.now = until
	}
	return nil
}
