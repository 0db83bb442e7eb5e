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
	seq  uint64
	idx  int32 // position in the heap + 1; 0 when idle
}

// Pending reports whether the timer is queued.
func (t *Timer) Pending() bool { return t.idx != 0 }

// When reports the time the timer is queued for (meaningful only when Pending).
func (t *Timer) When() Time { return t.when }

// ErrCancelled is returned by Run when Cancel was called.
var ErrCancelled = errors.New("sim: run cancelled")

// World is one simulation: clock, event heap, random source.
type World struct {
	now     Time
	hz      int64
	heap    []*Timer
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
	if when < w.now {
		when = w.now
	}
	w.seq++
	t.when, t.seq = when, w.seq
	if t.idx != 0 {
		i := int(t.idx - 1)
		w.up(i)
		w.down(int(t.idx - 1))
		return
	}
	w.heap = append(w.heap, t)
	t.idx = int32(len(w.heap))
	w.up(len(w.heap) - 1)
}

// After queues t to fire d from now.
func (w *World) After(t *Timer, d Time) { w.At(t, w.now+d) }

// Cancel removes t from the queue if it is queued.
func (w *World) Cancel(t *Timer) {
	if t.idx == 0 {
		return
	}
	i := int(t.idx - 1)
	last := len(w.heap) - 1
	if i != last {
		w.swap(i, last)
	}
	w.heap[last] = nil
	w.heap = w.heap[:last]
	t.idx = 0
	if i != last {
		w.up(i)
		w.down(i)
	}
}

func (w *World) less(i, j int) bool {
	a, b := w.heap[i], w.heap[j]
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

func (w *World) swap(i, j int) {
	w.heap[i], w.heap[j] = w.heap[j], w.heap[i]
	w.heap[i].idx = int32(i + 1)
	w.heap[j].idx = int32(j + 1)
}

func (w *World) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !w.less(i, p) {
			return
		}
		w.swap(i, p)
		i = p
	}
}

func (w *World) down(i int) {
	n := len(w.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && w.less(r, l) {
			m = r
		}
		if !w.less(m, i) {
			return
		}
		w.swap(i, m)
		i = m
	}
}

// Step fires the next event. It reports false when no event is queued.
func (w *World) Step() bool {
	if len(w.heap) == 0 {
		return false
	}
	t := w.heap[0]
	w.Cancel(t)
	if t.when > w.now {
		w.now = t.when
	}
	w.events++
	t.Fn()
	if w.AfterEvent != nil {
		w.AfterEvent()
	}
	return true
}

// Stop makes Run return after the current event.
func (w *World) Stop() { w.stopped = true }

// Cancel makes Run return ErrCancelled after the current event. It may be called
// from an event handler (e.g. a progress callback that sees a cancelled context).
func (w *World) CancelRun() { w.cancel = true }

// NextEvent reports the time of the next queued event.
func (w *World) NextEvent() (Time, bool) {
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
