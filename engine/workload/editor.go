package workload

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Editor is an editor-like task saving a small file: every Interval it rewrites
// the first Bytes of its file with buffered write()s (page-sized chunks,
// balance_dirty_pages_ratelimited after each, like generic_perform_write) and then
// fsync()s it. Each save's latency, from the first write() to fsync's return, is
// what a user notices as the editor hanging.
type Editor struct {
	k        *kernel.Kernel
	th       *kernel.Thread
	in       *kernel.Inode
	bytes    int64
	interval sim.Time
	staller  kernel.WriteStaller
	space    kernel.SpaceReserver
	short    bool // the save's last write() got less room than it asked for

	state int
	pos   int64
	batch int64
	fs    *kernel.Fsync
	bdp   balance
	alloc kernel.Alloc // the batch's new page-cache pages (page-reclaim model)
	began sim.Time     // this save's first write()
	next  sim.Time     // next save

	lat, writeLat latHist
	// Enospc counts saves whose write() failed with ENOSPC: the editor reports
	// the error and tries again at its next save
	Enospc int64

	acct      saveAcct
	causeSum  [kernel.NumWaitCauses]sim.Time // time in each cause over the completed saves
	causeHist [kernel.NumWaitCauses]latHist  // each cause's time per save
	series    []SavePoint
	every     int64 // series keeps the saves whose number is a multiple of every
	// OnSave, when set, is called at the end of every completed save with its
	// start, latency and time per wait cause (tests check the attribution).
	OnSave func(began, latency sim.Time, parts *[kernel.NumWaitCauses]sim.Time)
}

// saveAcct attributes the save in progress: the time since from is charged, when
// the task next resumes, to cause (a CPU burst: split between running and the
// runqueue by the task's CPU time since cpu0; a block in the queue: between wbt
// and request allocation by the submitter's blocked time since wbt0, req0).
type saveAcct struct {
	from       sim.Time
	cause      kernel.WaitCause
	burst      bool
	cpu0       sim.Time
	sub        *devices.Submitter
	wbt0, req0 sim.Time
	parts      [kernel.NumWaitCauses]sim.Time
}

// SavePoint is one save of the latency-over-time series: when it began, its
// latency and the wait cause it spent most time in.
type SavePoint struct {
	At, Latency sim.Time
	Dominant    kernel.WaitCause
}

// MaxSavePoints bounds an editor's series: past it the series keeps every other
// point and then every 2nd, 4th, ... save (a uniform sample by save number).
const MaxSavePoints = 2000

const (
	edWrite = iota
	edAlloc
	edDirtied
	edBalance
	edFsync
)

// NewEditorOn creates an editor saving bytes to a new file on disk b every interval.
func NewEditorOn(k *kernel.Kernel, b *kernel.BDI, bytes int64, interval sim.Time) *Editor {
	e := &Editor{k: k, bytes: max(bytes, 1), interval: interval}
	e.th = k.NewThreadOn(b, "editor")
	e.in = k.NewInodeOn(b)
	e.staller, _ = b.FS.(kernel.WriteStaller)
	e.space, _ = b.FS.(kernel.SpaceReserver)
	e.th.Task.Resume = e.run
	e.every = 1
	return e
}

// Start makes the editor's first save start at time at.
func (e *Editor) Start(at sim.Time) {
	e.began, e.next = at, at
	e.acct = saveAcct{from: at}
	e.th.Task.StartAt(at)
}

// run is the editor task's Resume: it charges the time since the task last
// blocked to where it blocked, runs the editor, and records where it blocks now
// (the wait point's label, kernel.Thread.SleepCause).
func (e *Editor) run() {
	e.charge(e.k.W.Now())
	e.resume()
	t := e.th.Task
	st := t.State()
	e.acct.cause = e.th.SleepCause()
	e.acct.burst = st == sim.TaskOnCPU || st == sim.TaskQueued
	e.acct.cpu0 = t.CPUTime()
	e.acct.sub = nil
	if c := e.acct.cause; c == kernel.WaitWBT || c == kernel.WaitRequest {
		// a bio may wait in wbt_wait, then for a request: the submitter times both
		e.acct.sub = e.th.Sub
		e.acct.wbt0, e.acct.req0 = e.th.Sub.Waited()
	}
}

// charge adds the time from acct.from to now to the save's parts.
func (e *Editor) charge(now sim.Time) {
	a := &e.acct
	d := now - a.from
	if d <= 0 {
		return
	}
	a.from = now
	if a.burst {
		run := min(max(e.th.Task.CPUTime()-a.cpu0, 0), d)
		a.parts[kernel.WaitRunning] += run
		a.parts[kernel.WaitRunqueue] += d - run
		return
	}
	if a.sub != nil {
		w, r := a.sub.Waited()
		w = min(max(w-a.wbt0, 0), d)
		r = min(max(r-a.req0, 0), d-w)
		a.parts[kernel.WaitWBT] += w
		a.parts[kernel.WaitRequest] += r
		d -= w + r // the wake-up's latency: the cause it blocked on
	}
	a.parts[a.cause] += d
}

// endSave records a completed save of latency lat (its parts sum to lat).
func (e *Editor) endSave(lat sim.Time) {
	p := &e.acct.parts
	dom := kernel.WaitOther
	for c := range kernel.NumWaitCauses {
		e.causeSum[c] += p[c]
		e.causeHist[c].add(int64(p[c]))
		if p[c] > p[dom] {
			dom = c
		}
	}
	if e.lat.n%e.every == 0 {
		if len(e.series) == MaxSavePoints {
			// keep the saves numbered by multiples of 2*every: every other point
			n := 0
			for i := 0; i < len(e.series); i += 2 {
				e.series[n] = e.series[i]
				n++
			}
			e.series = e.series[:n]
			e.every *= 2
		}
		if e.lat.n%e.every == 0 {
			e.series = append(e.series, SavePoint{At: e.began, Latency: lat, Dominant: dom})
		}
	}
	if e.OnSave != nil {
		e.OnSave(e.began, lat, p)
	}
}

// newSave starts the attribution of the save beginning at e.began (the editor
// sleeps until then: only the timer's latency past it is charged).
func (e *Editor) newSave() { e.acct = saveAcct{from: e.began} }

// Thread is the editor's kernel thread.
func (e *Editor) Thread() *kernel.Thread { return e.th }

func (e *Editor) resume() {
	k, th := e.k, e.th
	for {
		switch e.state {
		case edWrite:
			if e.short {
				e.failSave()
				return
			}
			if e.pos >= e.bytes {
				e.writeLat.add(int64(k.W.Now() - e.began))
				e.fs = k.StartFsync(th, e.in)
				e.state = edFsync
				continue
			}
			if e.staller != nil {
				if q := e.staller.WriteWait(th, e.in); q != nil {
					// start_this_handle: the running transaction is locked for its commit
					th.SleepFor(kernel.WaitJournal)
					th.Task.Wait(q)
					return
				}
			}
			n := min(k.RatelimitRoom(th), (e.bytes-e.pos+kernel.PageSize-1)/kernel.PageSize)
			if e.space != nil {
				if r := e.space.WriteRoom(th, e.in, e.pos/kernel.PageSize, n); r < n {
					e.short, n = true, r
					if n == 0 {
						continue
					}
				}
			}
			e.batch = n
			if k.ReclaimOn() {
				if e.pos == 0 {
					// with the page-reclaim model a save writes the file anew
					// (open with O_TRUNC): its clean pages are freed, and the
					// write allocates new ones
					k.TruncatePages(e.in)
				}
				e.alloc.StartAlloc(n)
				e.state = edAlloc
				continue
			}
			e.state = edDirtied
			c := &k.P.Costs
			fsCost := e.in.BDI().FS.WriteBegin(th, e.in, e.pos/kernel.PageSize, n, n) // a write() a page
			th.Task.Compute(sim.Time(n)*(c.WriteSyscall+c.CopyPage+c.NewDirtyPage) + fsCost)
			return
		case edAlloc:
			if k.AllocStep(th, &e.alloc) {
				return
			}
			k.PageCacheAdd(e.in, e.pos/kernel.PageSize, e.batch)
			e.state = edDirtied
			c := &k.P.Costs
			fsCost := e.in.BDI().FS.WriteBegin(th, e.in, e.pos/kernel.PageSize, e.batch, e.batch)
			th.Task.Compute(sim.Time(e.batch)*(c.WriteSyscall+c.CopyPage+c.NewDirtyPage) + fsCost)
			return
		case edDirtied:
			end := min(e.pos+e.batch*kernel.PageSize, e.bytes)
			first, last := e.pos/kernel.PageSize, (end-1)/kernel.PageSize
			k.DirtyPages(th, e.in, first, last-first+1, max(end, e.in.Size))
			e.pos = end
			e.state = edWrite
			if k.BalanceDirtyPagesRatelimited(th, e.batch) {
				e.state, e.bdp = edBalance, balance{}
				continue
			}
			if th.YieldCPU() {
				return
			}
		case edBalance:
			if e.bdp.step(k, th) {
				return
			}
			e.state = edWrite
			if th.YieldCPU() {
				return
			}
		case edFsync:
			if k.RunFsync(e.fs) {
				return
			}
			now := k.W.Now()
			// endSave before lat.add: the series samples by the save's number
			e.endSave(now - e.began)
			e.lat.add(int64(now - e.began))
			// the next save starts on the next interval tick after this one returned
			for e.next <= now {
				e.next += e.interval
			}
			e.began, e.pos, e.state = e.next, 0, edWrite
			e.newSave()
			th.Task.Sleep(e.next - now)
			return
		}
	}
}

// failSave ends a save whose write() failed with ENOSPC (no fsync); the next
// save starts on the next interval tick.
func (e *Editor) failSave() {
	now := e.k.W.Now()
	e.Enospc++
	e.short = false
	for e.next <= now {
		e.next += e.interval
	}
	e.began, e.pos, e.state = e.next, 0, edWrite
	e.newSave()
	e.th.Task.Sleep(e.next - now)
}

// LatencyStats summarises latencies (percentiles are histogram upper bounds
// within 25 %, capped at the maximum).
type LatencyStats struct {
	N                  int64
	P50, P90, P99, Max sim.Time
}

func (h *latHist) stats() LatencyStats {
	if h.n == 0 {
		return LatencyStats{}
	}
	return LatencyStats{N: h.n, P50: sim.Time(h.quantile(0.5)), P90: sim.Time(h.quantile(0.9)),
		P99: sim.Time(h.quantile(0.99)), Max: sim.Time(h.max)}
}

// WaitStats is the time the completed saves spent in one wait cause: in all
// (Total) and per save (P50, P99 of the per-save time, zeros included).
type WaitStats struct {
	Cause           kernel.WaitCause
	Total, P50, P99 sim.Time
}

// Waits reports, in kernel.WaitCause order, the causes the completed saves spent
// time in; their Totals sum to the saves' total latency.
func (e *Editor) Waits() []WaitStats {
	var ws []WaitStats
	for c := range kernel.NumWaitCauses {
		if t := e.causeSum[c]; t > 0 {
			h := &e.causeHist[c]
			ws = append(ws, WaitStats{Cause: c, Total: t, P50: sim.Time(h.quantile(0.5)), P99: sim.Time(h.quantile(0.99))})
		}
	}
	return ws
}

// Series is the latency-over-time series of the completed saves: every n-th
// save (n = 1 up to MaxSavePoints saves, then doubling), at most MaxSavePoints.
func (e *Editor) Series() (points []SavePoint, every int64) { return e.series, e.every }

// Saves reports the completed saves' write+fsync latencies.
func (e *Editor) Saves() LatencyStats { return e.lat.stats() }

// MeanSave is the completed saves' mean write+fsync latency (0 without saves).
func (e *Editor) MeanSave() sim.Time {
	if e.lat.n == 0 {
		return 0
	}
	return sim.Time(e.lat.sum / e.lat.n)
}

// Writes reports the write() part of the completed saves.
func (e *Editor) Writes() LatencyStats { return e.writeLat.stats() }

// InFlight is how long the save in progress has been running (0 between saves):
// a save still stuck at the end of a run counts too.
func (e *Editor) InFlight() sim.Time {
	if now := e.k.W.Now(); now > e.began && (e.state != edWrite || e.pos > 0) {
		return now - e.began
	}
	return 0
}
