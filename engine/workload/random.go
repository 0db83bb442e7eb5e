package workload

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// RandomWriter is a process doing buffered write()s of BS bytes at random
// BS-aligned offsets of its own file of FileSize bytes (the Axboe 2009 thread's
// "random file writes from multiple (16) processes"), with
// balance_dirty_pages_ratelimited after each write like generic_perform_write.
// Each write() is a transaction; Writes counts them.
type RandomWriter struct {
	k        *kernel.Kernel
	th       *kernel.Thread
	in       *kernel.Inode
	bs       int64
	fileSize int64
	count    int64 // writes to do; 0 = until the run ends

	state int
	off   int64
	bdp   balance

	Writes         int64
	Started, Ended sim.Time
	Done           bool
	// Enospc: the writer exited because a write() failed with ENOSPC (fio ends
	// a job at its first error)
	Enospc bool
}

const (
	rwWrite = iota
	rwDirtied
	rwBalance
	rwExit
)

// NewRandomWriter creates a random writer of a new file; call Start to run it.
func NewRandomWriter(k *kernel.Kernel, bs, fileSize, count int64) *RandomWriter {
	r := &RandomWriter{k: k, bs: max(bs, kernel.PageSize), fileSize: fileSize, count: count}
	r.th = k.NewThread("randwrite")
	r.in = k.NewInode()
	r.th.Task.Resume = r.resume
	return r
}

// Start makes the task runnable at time at.
func (r *RandomWriter) Start(at sim.Time) { r.Started = at; r.th.Task.StartAt(at) }

// Thread is the writer's kernel thread.
func (r *RandomWriter) Thread() *kernel.Thread { return r.th }

func (r *RandomWriter) resume() {
	k, th := r.k, r.th
	for {
		switch r.state {
		case rwWrite:
			if r.count > 0 && r.Writes >= r.count {
				r.state, r.Done, r.Ended = rwExit, true, k.W.Now()
				th.Task.Exit()
				return
			}
			if q := k.WriteWait(th, r.in); q != nil {
				th.Task.Wait(q)
				return
			}
			blocks := max(r.fileSize/r.bs, 1)
			r.off = k.W.Rand.Int64N(blocks) * r.bs
			pages := r.bs / kernel.PageSize
			if sp, ok := k.FS.(kernel.SpaceReserver); ok && sp.WriteRoom(th, r.in, r.off/kernel.PageSize, pages) < pages {
				r.state, r.Done, r.Enospc, r.Ended = rwExit, true, true, k.W.Now()
				th.Task.Exit()
				return
			}
			c := &k.P.Costs
			cost := c.WriteSyscall + sim.Time(pages)*(c.CopyPage+c.NewDirtyPage) +
				k.FS.WriteBegin(th, r.in, r.off/kernel.PageSize, pages, 1)
			r.state = rwDirtied
			th.Task.Compute(cost)
			return
		case rwDirtied:
			pages := r.bs / kernel.PageSize
			size := max(r.in.Size, r.off+r.bs)
			k.DirtyPages(th, r.in, r.off/kernel.PageSize, pages, size)
			r.Writes++
			r.state = rwWrite
			if k.BalanceDirtyPagesRatelimited(th, pages) {
				r.state, r.bdp = rwBalance, balance{}
				continue
			}
		case rwBalance:
			if r.bdp.step(k, th) {
				return
			}
			r.state = rwWrite
			if th.YieldCPU() {
				return
			}
		case rwExit:
			return
		}
	}
}
