// Package workload has the simulated user tasks, each a kernel thread of package
// kernel driven by the sim world: dd writers (DD: sequential buffered writes,
// count= and conv=fsync), random writers (RandomWriter: the Axboe 2009
// thread's random file writes), readers (Reader: one synchronous read at a time,
// sequential or random, with latency statistics) and editors (Editor: a small
// file rewritten and fsync()ed every interval, with each save's latency). A task
// is made with its New function on a kernel, started with Start and read after
// the world has run; package engine builds them from a Config.
package workload

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// DD is one `dd if=/dev/zero of=FILE bs=BS [count=COUNT] [conv=fsync]` task. It
// writes its file sequentially through the page cache: generic_perform_write's
// per-page chunks, balance_dirty_pages_ratelimited after each, and
// balance_dirty_pages when asked. Work is done in batches up to the next
// ratelimit check, never per page.
type DD struct {
	k     *kernel.Kernel
	th    *kernel.Thread
	in    *kernel.Inode
	bs    int64
	chunk int64 // bytes per generic_perform_write iteration (min(bs, page))
	total int64 // bytes to write; 0 = unlimited
	fsync bool
	// staller is the filesystem's WriteStaller, if it is one (looked up once: the
	// kernel's filesystem never changes; an interface type assertion per batch is
	// a runtime call on wasm)
	staller kernel.WriteStaller
	// space is the filesystem's kernel.SpaceReserver, if it is one
	space kernel.SpaceReserver

	pos   int64 // bytes written so far
	batch int64 // chunks in the current CPU burst
	state int
	fs    *kernel.Fsync
	bdp   balance
	alloc kernel.Alloc // page-cache pages for the batch (page-reclaim model)
	newPg int64        // first page the batch adds to the page cache

	Started, Ended sim.Time
	Done           bool
	// Enospc: dd exited because a write() failed with ENOSPC ("dd: error writing
	// 'FILE': No space left on device"); Written is what it wrote before.
	Enospc bool
	short  bool // the last write() got less room than it asked for
	killed bool // Kill: a fatal signal is pending
}

const (
	ddWrite = iota
	ddAlloc
	ddDirtied
	ddBalance
	ddFsync
	ddExit
)

// maxBatchChunks bounds one CPU burst of copying.
const maxBatchChunks = 1024

// NewDD creates a dd task writing a new file on the first disk; call Start to run it.
func NewDD(k *kernel.Kernel, bs, count int64, fsync bool) *DD {
	return NewDDOn(k, k.BDI, bs, count, fsync)
}

// NewDDOn creates a dd task writing a new file on disk b.
func NewDDOn(k *kernel.Kernel, b *kernel.BDI, bs, count int64, fsync bool) *DD {
	d := &DD{k: k, bs: bs, chunk: min(bs, kernel.PageSize), total: count * bs, fsync: fsync}
	d.th = k.NewThreadOn(b, "dd")
	d.in = k.NewInodeOn(b)
	d.in.WriteBytes = bs
	d.staller, _ = b.FS.(kernel.WriteStaller)
	d.space, _ = b.FS.(kernel.SpaceReserver)
	d.th.Task.Resume = d.resumer()
	return d
}

// Start makes the task runnable at time at.
func (d *DD) Start(at sim.Time) { d.Started = at; d.th.Task.StartAt(at) }

// Kill is SIGTERM (a fatal signal, 6.1): dd exits where the kernel checks
// fatal_signal_pending: before its next page copy (generic_perform_write) or at
// its next balance_dirty_pages pass. A task blocked uninterruptibly exits when it
// wakes; a balance_dirty_pages pause (TASK_KILLABLE in the kernel, woken at once)
// runs to its end here, at most max_pause (200 ms).
func (d *DD) Kill() { d.killed = true }

// Thread is the dd's kernel thread.
func (d *DD) Thread() *kernel.Thread { return d.th }

// Inode is the file being written.
func (d *DD) Inode() *kernel.Inode { return d.in }

// Written is the bytes written by write() so far.
func (d *DD) Written() int64 { return d.pos }

// resumer returns dd's Task.Resume: the closure is the loop itself, so a resume is one
// call (a method value d.resume would call a wrapper, DD.resume-fm, then the method).
func (d *DD) resumer() func() {
	return func() {
		k, th := d.k, d.th
		for {
			switch d.state {
			case ddWrite:
				if d.killed { // generic_perform_write: fatal_signal_pending, -EINTR
					d.finish()
					return
				}
				if d.short {
					// the write() after a short one fails: dd reports the error
					// and exits without its fsync (conv=fsync is not reached)
					d.Enospc = true
					d.finish()
					return
				}
				if d.total > 0 && d.pos >= d.total {
					if d.fsync {
						d.fs = k.StartFsync(th, d.in)
						d.state = ddFsync
						continue
					}
					d.finish()
					return
				}
				if d.staller != nil { // k.WriteWait
					if q := d.staller.WriteWait(th, d.in); q != nil {
						th.Task.Wait(q) // e.g. journal_start behind a locked commit
						return
					}
				}
				n := min(k.RatelimitRoom(th), maxBatchChunks)
				if d.total > 0 {
					n = min(n, (d.total-d.pos+d.chunk-1)/d.chunk)
				}
				if d.space != nil {
					if n = d.room(n); n == 0 {
						continue // d.short: ENOSPC
					}
				}
				d.batch = n
				if k.ReclaimOn() {
					// grab_cache_page_write_begin: the pages past the cached ones
					end := d.pos + n*d.chunk
					if d.total > 0 {
						end = min(end, d.total)
					}
					d.newPg = (d.pos + kernel.PageSize - 1) / kernel.PageSize
					d.alloc.StartAlloc((end-1)/kernel.PageSize - d.newPg + 1)
					d.state = ddAlloc
					continue
				}
				d.state = ddDirtied
				th.Task.Compute(d.cost(n))
				return
			case ddAlloc:
				if k.AllocStep(th, &d.alloc) {
					return
				}
				end := d.pos + d.batch*d.chunk
				if d.total > 0 {
					end = min(end, d.total)
				}
				k.PageCacheAdd(d.in, d.newPg, (end-1)/kernel.PageSize-d.newPg+1)
				d.state = ddDirtied
				th.Task.Compute(d.cost(d.batch))
				return
			case ddDirtied:
				n := d.batch
				end := d.pos + n*d.chunk
				if d.total > 0 {
					end = min(end, d.total)
				}
				first := d.pos / kernel.PageSize
				last := (end - 1) / kernel.PageSize
				k.DirtyPages(th, d.in, first, last-first+1, end)
				d.pos = end
				d.state = ddWrite
				if k.BalanceDirtyPagesRatelimited(th, n) {
					d.state, d.bdp = ddBalance, balance{}
					continue
				}
				if th.YieldCPU() {
					return
				}
			case ddBalance:
				if d.killed { // balance_dirty_pages: a fatal signal ends the loop
					d.finish()
					return
				}
				if d.bdp.step(k, th) {
					return
				}
				d.state = ddWrite
				if th.YieldCPU() {
					return
				}
			case ddFsync:
				if k.RunFsync(d.fs) {
					return
				}
				d.finish()
				return
			case ddExit:
				return
			}
		}
	}
}

// room cuts a batch of n chunks to the pages the filesystem grants blocks for
// (kernel.SpaceReserver.WriteRoom): generic_perform_write copies what write_begin
// could map, the write() returns that short count and dd's next write() gets
// ENOSPC (d.short).
func (d *DD) room(n int64) int64 {
	end := d.pos + n*d.chunk
	if d.total > 0 {
		end = min(end, d.total)
	}
	first := d.pos / kernel.PageSize
	pages := (end-1)/kernel.PageSize - first + 1
	r := d.space.WriteRoom(d.th, d.in, first, pages)
	if r >= pages {
		return n
	}
	d.short = true
	return max((first+r)*kernel.PageSize-d.pos, 0) / d.chunk
}

// ExitCause is why dd exited early: "enospc", or "" (still running, or done).
func (d *DD) ExitCause() string {
	if d.Enospc {
		return "enospc"
	}
	return ""
}

func (d *DD) finish() {
	d.state = ddExit
	d.Done = true
	d.Ended = d.k.W.Now()
	d.th.Task.Exit()
}

// cost is the CPU time of n write chunks: the write() syscalls that start in them,
// the copies, and the page-cache work for the pages they touch.
func (d *DD) cost(n int64) sim.Time {
	c := &d.k.P.Costs
	end := d.pos + n*d.chunk
	// unsigned divisions (all operands are ≥ 0): one instruction on wasm
	bs := uint64(d.bs)
	syscalls := int64((uint64(end)+bs-1)/bs - (uint64(d.pos)+bs-1)/bs)
	pages := (end-1)/kernel.PageSize - d.pos/kernel.PageSize + 1
	copyCost := sim.Time(n*d.chunk) * c.CopyPage / kernel.PageSize
	fsCost := d.in.BDI().FS.WriteBegin(d.th, d.in, d.pos/kernel.PageSize, pages, max(syscalls, 1))
	return sim.Time(syscalls)*c.WriteSyscall + copyCost + sim.Time(pages)*c.NewDirtyPage + fsCost
}

// balance is a writer's balance_dirty_pages call in progress (entered, or resuming
// after its pause).
type balance struct{ resume bool }

// step runs balance_dirty_pages for th until its next pause; it reports true when
// th now sleeps (call again when it resumes) and false when the call returned.
func (b *balance) step(k *kernel.Kernel, th *kernel.Thread) bool {
	p := k.BalanceDirtyPages(th, b.resume)
	b.resume = true
	if p > 0 {
		th.SleepFor(kernel.WaitBalance) // balance_dirty_pages' io_schedule_timeout
		th.Task.Sleep(p)
		return true
	}
	return false
}
