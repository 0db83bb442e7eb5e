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
	"slices"
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
	task *Task  // a task's own timer: fired by a direct call to its fire, not Fn
	when Time
	idx  int32 // > 0: heap slot id + 1; < 0: -(position in the same-time FIFO + 1); 0 when idle
}

// Pending reports whether the timer is queued.
func (t *Timer) Pending() bool { return t.idx != 0 }

// When reports the time the timer is queued for (meaningful only when Pending).
func (t *Timer) When() Time { return t.when }

// ErrCancelled is returned by Run when Cancel was called.
var ErrCancelled = errors.New("sim: run cancelled")

// entry is a heap element, free of pointers (sifting moves no pointers and needs no
// write barriers): the time with its sign bit flipped (unsigned order is then Time
// order), and the queueing sequence number with the timer's slot id in its low
// idBits (seq is unique, so comparing key compares seq).
type entry struct {
	at  uint64
	key uint64
}

const (
	idBits  = 24
	idMask  = 1<<idBits - 1
	maxSeq  = 1<<(64-idBits) - 1
	signBit = 1 << 63
)

func mkEntry(when Time, key uint64) entry { return entry{uint64(when) ^ signBit, key} }

func (e entry) when() Time { return Time(e.at ^ signBit) }

// before reports (a.when, a.key) < (b.when, b.key).
func (a entry) before(b entry) bool { return a.less(b) != 0 }

// World is one simulation: clock, event queue, random source.
//
// Events fire in (time, queueing order). Timers queued for a later time live in a
// 4-ary min-heap keyed by (when, seq); timers queued for the current time go to a
// FIFO instead, which costs no heap operation. The two together give exactly the
// order of a single heap: a heap entry due now was queued before the clock reached
// now, so it precedes every FIFO entry (all queued at now), and the FIFO is always
// empty when the clock advances (its entries are due before any later one).
//
// A timer in the heap holds a slot id (reg[id] is the timer, pos[id] its heap
// index) from queueing until it fires or is cancelled; ids are recycled.
type World struct {
	now Time
	// cpuSpeed is the CPUs' speed in percent of the machine the CPU costs are
	// calibrated on (0: 100): Task.Compute stretches each burst by 100/cpuSpeed.
	cpuSpeed int64
	hz       int64
	jiffyNs  int64 // Second / hz when hz divides Second exactly, else 0
	heap     []entry
	pos      []int32
	reg      []*Timer
	freeIDs  []int32
	fifo     []*Timer // same-time timers in queueing order; cancelled slots are nil
	fhead    int      // first possibly live slot of fifo
	nfifo    int      // live timers in fifo
	// zombie is set while a timer fired from the heap runs: its entry still sits
	// at the root (it is the minimum, so nothing else can reach the root, and
	// reg names the timer), and re-arming it reuses the entry: one sift instead
	// of two.
	zombie  bool
	seq     uint64
	events  uint64
	stopped bool
	cancel  bool
	Rand    *rand.Rand

	seed     uint64
	vary     Variation // machine variation (variation.go)
	varyOn   bool      // vary is not the zero Variation
	vr       pcg       // the variation's own stream
	vrSeeded bool      // vr holds the stream's seed or a later state

	// AfterEvent, when set, runs after every event (invariant checks in tests).
	AfterEvent func()
}

// NewWorld returns a world at time 0 with the given HZ and seed.
func NewWorld(hz int, seed uint64) *World {
	if hz <= 0 {
		hz = 1000
	}
	w := &World{hz: int64(hz), seed: seed, Rand: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	if int64(Second)%w.hz == 0 {
		w.jiffyNs = int64(Second) / w.hz
	}
	return w
}

// SetCPUSpeed sets the CPUs' speed in percent of the machine the CPU costs were
// calibrated on (0 or 100: that machine): every Compute burst takes 100/pct times
// its cost.
func (w *World) SetCPUSpeed(pct int) {
	if pct == 100 {
		pct = 0
	}
	w.cpuSpeed = int64(max(pct, 0))
}

// Now is the current simulated time.
func (w *World) Now() Time { return w.now }

// HZ is the jiffy rate.
func (w *World) HZ() int64 { return w.hz }

// Jiffies is the kernel's jiffies counter at the current time.
func (w *World) Jiffies() int64 { return int64(w.now) * w.hz / int64(Second) }

// JiffiesToTime converts a jiffies count (or a jiffies timestamp) to Time:
// j * Second / HZ, a multiplication when HZ divides Second (the same number for
// |j| < 2^63 / Second, i.e. up to 106 days of jiffies at HZ=1000; runs are at most
// a day).
func (w *World) JiffiesToTime(j int64) Time {
	if w.jiffyNs != 0 {
		return Time(j * w.jiffyNs)
	}
	return Time(j * int64(Second) / w.hz)
}

// MsecsToJiffies mirrors msecs_to_jiffies (rounding up).
func (w *World) MsecsToJiffies(ms int64) int64 { return (ms*w.hz + 999) / 1000 }

// Events is the number of events fired so far.
func (w *World) Events() uint64 { return w.events }

// At queues t to fire at time when (or now, if when is in the past). A queued
// timer is moved. Ties fire in the order they were queued.
func (w *World) At(t *Timer, when Time) {
	// the common case first, written so that it runs straight through (on wasm
	// a taken branch is a jump through the function's dispatch table)
	if when > w.now && t.idx == 0 && w.zombie && w.seq < maxSeq && w.reg[w.heap[0].key&idMask] == t {
		w.seq++
		// rearmRoot, written out
		w.zombie = false
		id := w.heap[0].key & idMask
		t.idx = int32(id) + 1
		t.when = when
		w.heap[0] = mkEntry(when, w.seq<<idBits|id)
		w.down(0)
		return
	}
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
	if w.seq == maxSeq {
		w.renumber()
	}
	w.seq++
	t.when = when
	if t.idx == 0 && w.zombie && w.reg[w.heap[0].key&idMask] == t {
		w.rearmRoot(t, when)
		return
	}
	if t.idx > 0 {
		// re-arm in place: the new key is later than the old one unless when moved
		// earlier (seq always grows), so one sift suffices
		id := t.idx - 1
		i := int(w.pos[id])
		old := w.heap[i].when()
		w.heap[i] = mkEntry(when, w.seq<<idBits|uint64(id))
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
	var id int32
	if n := len(w.freeIDs); n > 0 {
		id = w.freeIDs[n-1]
		w.freeIDs = w.freeIDs[:n-1]
		w.reg[id] = t
	} else {
		id = int32(len(w.reg))
		if id > idMask {
			panic("sim: too many queued timers")
		}
		w.reg = append(w.reg, t)
		w.pos = append(w.pos, 0)
	}
	t.idx = id + 1
	w.heap = append(w.heap, mkEntry(when, w.seq<<idBits|uint64(id)))
	w.up(len(w.heap) - 1)
}

// rearmRoot queues the firing timer t (whose entry is still the root) again for
// when, with sequence number w.seq.
func (w *World) rearmRoot(t *Timer, when Time) {
	w.zombie = false
	id := w.heap[0].key & idMask
	t.idx = int32(id) + 1
	t.when = when
	w.heap[0] = mkEntry(when, w.seq<<idBits|id)
	w.down(0)
}

// renumber gives the queued entries fresh sequence numbers 1..n in their order
// (only when seq would overflow its bits: never in practice).
func (w *World) renumber() {
	slices.SortFunc(w.heap, func(a, b entry) int {
		if a.before(b) {
			return -1
		}
		return 1
	})
	for i := range w.heap { // a sorted array is a heap
		id := w.heap[i].key & idMask
		w.heap[i].key = uint64(i+1)<<idBits | id
		w.pos[id] = int32(i)
	}
	w.seq = uint64(len(w.heap))
}

// After queues t to fire d from now.
func (w *World) After(t *Timer, d Time) { w.At(t, w.now+d) }

// Cancel removes t from the queue if it is queued.
func (w *World) Cancel(t *Timer) {
	switch {
	case t.idx > 0:
		w.heapRemove(int(w.pos[t.idx-1]))
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

// heapRemove takes the entry at i out of the heap and returns its timer (now idle).
func (w *World) heapRemove(i int) *Timer {
	h := w.heap
	id := int32(h[i].key & idMask)
	t := w.reg[id]
	t.idx = 0
	w.reg[id] = nil
	w.freeIDs = append(w.freeIDs, id)
	last := len(h) - 1
	x := h[last]
	w.heap = h[:last]
	if i != last {
		if x.before(h[i]) {
			h[i] = x
			w.up(i)
		} else {
			h[i] = x
			w.down(i)
		}
	}
	return t
}

// up moves the entry at i towards the root (4-ary heap: parent (i-1)/4).
func (w *World) up(i int) {
	h, pos := w.heap, w.pos
	x := h[i]
	for i > 0 {
		p := (i - 1) >> 2
		e := h[p]
		if !x.before(e) {
			break
		}
		h[i] = e
		pos[e.key&idMask] = int32(i)
		i = p
	}
	h[i] = x
	pos[x.key&idMask] = int32(i)
}

// down moves the entry at i towards the leaves (children 4i+1 .. 4i+4).
func (w *World) down(i int) {
	h, pos := w.heap, w.pos
	n := len(h)
	x := h[i]
	for {
		c := 4*i + 1
		if c+3 >= n {
			break
		}
		// all four children: the least by a branch-free tournament (keys are
		// unique, so it is the least the scan in order would find)
		k := (*[4]entry)(h[c : c+4])
		j := k[1].less(k[0])     // 0 or 1
		l := 2 + k[3].less(k[2]) // 2 or 3
		j ^= (j ^ l) & -k[l&3].less(k[j&3])
		me := k[j&3]
		m := c + int(j&3)
		if !me.before(x) {
			h[i] = x
			pos[x.key&idMask] = int32(i)
			return
		}
		h[i] = me
		pos[me.key&idMask] = int32(i)
		i = m
	}
	// fewer than four children
	if c := 4*i + 1; c < n {
		m, me := c, h[c]
		for j := c + 1; j < n; j++ {
			if e := h[j]; e.before(me) {
				m, me = j, e
			}
		}
		if me.before(x) {
			h[i] = me
			pos[me.key&idMask] = int32(i)
			i = m
		}
	}
	h[i] = x
	pos[x.key&idMask] = int32(i)
}

// dropRoot removes the root entry of a timer that has fired (the timer itself is
// already idle or queued anew in the FIFO).
func (w *World) dropRoot() {
	h := w.heap
	id := int32(h[0].key & idMask)
	w.reg[id] = nil
	w.freeIDs = append(w.freeIDs, id)
	last := len(h) - 1
	w.heap = h[:last]
	if last > 0 {
		h[0] = h[last]
		w.down(0)
	}
}

// Step fires the next event. It reports false when no event is queued.
func (w *World) Step() bool {
	if w.zombie { // Step called from an event handler
		w.zombie = false
		w.dropRoot()
	}
	var t *Timer
	switch {
	case w.nfifo > 0 && (len(w.heap) == 0 || w.heap[0].when() != w.now):
		t = w.popFIFO()
	case len(w.heap) > 0:
		t = w.takeRoot()
	default:
		return false
	}
	// as in Run
	w.events++
	if t.task != nil {
		t.task.fire()
	} else {
		t.Fn()
	}
	if w.zombie {
		w.zombie = false
		w.dropRoot()
	}
	if w.AfterEvent != nil {
		w.AfterEvent()
	}
	return true
}

// takeRoot makes the root's timer idle and the clock its time, leaving the entry
// in place (zombie) for the handler to re-arm.
func (w *World) takeRoot() *Timer {
	t := w.reg[w.heap[0].key&idMask]
	t.idx = 0
	w.zombie = true
	if t.when > w.now {
		w.now = t.when
	}
	return t
}

// popFIFO takes the first live timer of the same-time FIFO.
func (w *World) popFIFO() *Timer {
	for w.fifo[w.fhead] == nil {
		w.fhead++
	}
	t := w.fifo[w.fhead]
	w.fifo[w.fhead] = nil
	w.fhead++
	t.idx = 0
	w.nfifo--
	if w.nfifo == 0 {
		w.fifo, w.fhead = w.fifo[:0], 0
	} else if w.fhead >= 1024 && 2*w.fhead >= len(w.fifo) {
		w.compactFIFO()
	}
	return t
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
	return w.heap[0].when(), true
}

// Run fires events until the next one lies after until, the queue is empty,
// Stop was called, or CancelRun was called. The clock ends at until unless stopped early.
func (w *World) Run(until Time) error {
	w.stopped = false
	if w.zombie { // Run called from an event handler
		w.zombie = false
		w.dropRoot()
	}
	for !w.stopped && !w.cancel {
		// Step's body, written out (one call less per event; the zombie is
		// dropped after each event): the heap's root if it is due by until and
		// the FIFO is empty or the root is due now, else the FIFO's first
		var t *Timer
		if h := w.heap; len(h) > 0 && h[0].when() <= until && (w.nfifo == 0 || h[0].when() == w.now) {
			t = w.takeRoot()
		} else if w.nfifo > 0 && w.now <= until {
			t = w.popFIFO()
		} else {
			break
		}
		w.events++
		if tk := t.task; tk != nil {
			// Task.fire, written out (one call less per task event)
			switch tk.state {
			case TaskOnCPU:
				tk.cpuTime += tk.burst
				tk.cpus.release(tk)
				tk.burst = 0
			case TaskSleeping:
				if tk.waitQ != nil {
					tk.waitQ.remove(tk)
					tk.waitQ = nil
				}
			}
			tk.state = TaskRunnable
			tk.interruptible = false
			tk.Resume()
		} else {
			t.Fn()
		}
		if w.zombie {
			w.zombie = false
			w.dropRoot()
		}
		if w.AfterEvent != nil {
			w.AfterEvent()
		}
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
