package workload

import (
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
}

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
	e.th.Task.Resume = e.resume
	return e
}

// Start makes the editor's first save start at time at.
func (e *Editor) Start(at sim.Time) { e.began, e.next = at, at; e.th.Task.StartAt(at) }

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
			fsCost := e.in.BDI().FS.WriteBegin(th, e.in, e.pos/kernel.PageSize, n)
			th.Task.Compute(sim.Time(n)*(c.WriteSyscall+c.CopyPage+c.NewDirtyPage) + fsCost)
			return
		case edAlloc:
			if k.AllocStep(th, &e.alloc) {
				return
			}
			k.PageCacheAdd(e.in, e.pos/kernel.PageSize, e.batch)
			e.state = edDirtied
			c := &k.P.Costs
			fsCost := e.in.BDI().FS.WriteBegin(th, e.in, e.pos/kernel.PageSize, e.batch)
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
			e.lat.add(int64(now - e.began))
			// the next save starts on the next interval tick after this one returned
			for e.next <= now {
				e.next += e.interval
			}
			e.began, e.pos, e.state = e.next, 0, edWrite
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
	e.th.Task.Sleep(e.next - now)
}

// LatencyStats summarises latencies (percentiles are histogram upper bounds
// within 25 %, capped at the maximum).
type LatencyStats struct {
	N             int64
	P50, P99, Max sim.Time
}

func (h *latHist) stats() LatencyStats {
	if h.n == 0 {
		return LatencyStats{}
	}
	return LatencyStats{N: h.n, P50: sim.Time(h.quantile(0.5)), P99: sim.Time(h.quantile(0.99)), Max: sim.Time(h.max)}
}

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
