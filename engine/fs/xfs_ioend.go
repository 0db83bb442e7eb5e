package fs

import (
	"fmt"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// This file is XFS's IO completion (fs/xfs/linux-2.6/xfs_aops.c, 2.6.36-3.3): each
// ->writepage call builds one ioend over the pages it mapped; when the last bio of
// an ioend completes (xfs_end_bio → xfs_finish_ioend), an ioend that extends the
// on-disk size (xfs_ioend_is_append) is queued to the xfsdatad workqueue, any other
// is finished in interrupt context. The worker's xfs_end_io → xfs_setfilesize takes
// the ILOCK with xfs_ilock_nowait(ILOCK_EXCL); when that fails it requeues the ioend
// at the tail and sleeps one jiffy (delay(1)). The ioend's pages stay under
// writeback (counted in NR_WRITEBACK, waited on by fsync) until it is finished.
//
// The ILOCK's other holders are modelled as windows of virtual time during which a
// context takes the lock repeatedly, each holding it a known fraction of the window:
// the writer's __xfs_get_blocks (ILOCK_EXCL for one extent lookup per page), the
// writeback's xfs_map_blocks (ILOCK_SHARED per ->writepage mapping), and the
// completion worker's xfs_setfilesize (ILOCK_EXCL per ioend). A trylock at time t
// fails with the probability that a conflicting holder has it at t, drawn from the
// World's seeded Rand.

// ilockWindow is [from, till) during which a context holds the ILOCK ppm parts per
// million of the time.
type ilockWindow struct {
	from, till sim.Time
	ppm        int64
}

// heldPPM is the probability (ppm) that the window's holder has the lock at t.
func (w *ilockWindow) heldPPM(t sim.Time) int64 {
	if t >= w.from && t < w.till {
		return w.ppm
	}
	return 0
}

// set records a window of d from now in which holds of hold each are taken n times.
func (w *ilockWindow) set(now, d sim.Time, n int64, hold sim.Time) {
	if d <= 0 || n <= 0 || hold <= 0 {
		return
	}
	w.from, w.till = now, now+d
	w.ppm = min(int64(hold)*n*1_000_000/int64(d), 1_000_000)
}

// trylock draws an xfs_ilock_nowait against two holders busy with probabilities a
// and b (ppm): it succeeds when neither holds the lock.
func (x *Xfs) trylock(a, b int64) bool {
	if a|b == 0 {
		return true
	}
	free := (1_000_000 - a) * (1_000_000 - b) / 1_000_000
	return uint64(x.k.W.Rand.Int64N(1_000_000)) < uint64(free)
}

// xfsIoend is an xfs_ioend: pages [start, start+n) of inode ino, mapped by one
// ->writepage call and finished as one unit. It holds no pointer, so the rings of
// (possibly hundreds of thousands of) ioends cost the garbage collector nothing.
type xfsIoend struct {
	ino       uint64
	start, n  int64
	remaining int64 // pages whose bio has not completed yet (io_remaining)
}

// ioendRing is a FIFO of ioends (a slice with a moving head, compacted as it drains).
// unsorted notes that starts stopped ascending (a cyclic writeback wrapped).
type ioendRing struct {
	q        []xfsIoend
	head     int
	unsorted bool
}

func (r *ioendRing) len() int { return len(r.q) - r.head }

func (r *ioendRing) push(io xfsIoend) {
	if r.len() == 0 {
		clear(r.q)
		r.q, r.head, r.unsorted = r.q[:0], 0, false
	} else if r.head >= len(r.q)/2 {
		n := copy(r.q, r.q[r.head:])
		clear(r.q[n:])
		r.q, r.head = r.q[:n], 0
	}
	if n := len(r.q); n > r.head && io.start < r.q[n-1].start {
		r.unsorted = true
	}
	r.q = append(r.q, io)
}

func (r *ioendRing) pop() xfsIoend {
	io := r.q[r.head]
	r.q[r.head] = xfsIoend{}
	r.head++
	return io
}

// first is the index of the first ioend that may overlap pages from index on: a
// binary search while the starts ascend, else the head.
func (r *ioendRing) first(index int64) int {
	if r.unsorted {
		return r.head
	}
	lo, hi := r.head, len(r.q)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.q[m].start+r.q[m].n <= index {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// submitIoend records the ioend of a ->writepage call that started writeback on
// [start, start+n) of in (xfs_submit_ioend).
func (x *Xfs) submitIoend(in *kernel.Inode, start, n int64) {
	in.FS.(*xfsInode).ioends.push(xfsIoend{ino: in.Ino, start: start, n: n, remaining: n})
}

// EndWriteIO is xfs_end_bio → xfs_finish_ioend for a completed bio segment, which
// may span several ioends (the block layer merges their bios).
func (x *Xfs) EndWriteIO(in *kernel.Inode, index, pages int64) bool {
	r := &in.FS.(*xfsInode).ioends
	end, left := index+pages, pages
	for i := r.first(index); i < len(r.q) && left > 0; i++ {
		io := &r.q[i]
		if io.remaining == 0 || io.start >= end || io.start+io.n <= index {
			if !r.unsorted && io.start >= end {
				break
			}
			continue
		}
		ov := min(end, io.start+io.n) - max(index, io.start)
		io.remaining -= ov
		left -= ov
		if io.remaining == 0 {
			x.finishIoend(in, *io)
		}
	}
	for r.len() > 0 && r.q[r.head].remaining == 0 {
		r.pop() // finished ioends leave from the head (some finish out of order)
	}
	if left == pages {
		return false // no ioend's pages (written by another path): plain completion
	}
	if left > 0 {
		x.k.AddIrqCPU(sim.Time(left) * x.k.P.Costs.EndIOPage)
		x.k.EndPageWriteback(in, end-left, left) // defensive: cannot happen with disjoint ioends
	}
	return true
}

// finishIoend is xfs_finish_ioend once io_remaining of in's ioend reached zero.
func (x *Xfs) finishIoend(in *kernel.Inode, io xfsIoend) {
	xi := in.FS.(*xfsInode)
	if (io.start+io.n)*kernel.PageSize <= xi.diSize {
		// not extending the on-disk size: xfs_destroy_ioend in interrupt context
		x.k.AddIrqCPU(sim.Time(io.n) * x.k.P.Costs.EndIOPage)
		x.k.EndPageWriteback(in, io.start, io.n)
		return
	}
	x.workq.push(io)
	if x.workerIdle {
		x.workerIdle = false
		x.worker.Task.Wake()
	}
}

// xfsdatadBatch bounds the ioends one worker step finishes before it yields.
const xfsdatadBatch = 64

// xfsdatad is the xfsdatad worker running xfs_end_io on queued ioends. It is one
// thread: completions arrive on the CPU taking the disk's interrupt.
func (x *Xfs) xfsdatad() {
	th := x.worker
	for {
		if x.delayNext {
			// delay(1): schedule_timeout_uninterruptible(1), to the next tick
			x.delayNext = false
			j := x.k.W.Jiffies()
			th.Task.Sleep(x.k.W.JiffiesToTime(j+1) - x.k.W.Now())
			return
		}
		if x.workq.len() == 0 {
			x.workerIdle = true
			th.Task.SleepInterruptible(-1)
			return
		}
		now := x.k.W.Now()
		c := &x.k.P.Costs
		var cpu sim.Time
		x.batch++
		// contiguous finished ioends of one inode end their page writeback together
		var run *kernel.Inode
		var runStart, runEnd int64
		for i := 0; i < xfsdatadBatch && x.workq.len() > 0; i++ {
			io := x.workq.pop()
			in := x.k.Inode(io.ino)
			xi := in.FS.(*xfsInode)
			cpu += x.P.EndIoCost
			t := now + cpu
			if !x.trylock(xi.writer.heldPPM(t), xi.mapper.heldPPM(t)) {
				// xfs_setfilesize: EAGAIN ⇒ requeue at the tail, delay(1)
				x.workq.push(io)
				x.EndIoRequeues++
				x.delayNext = true
				break
			}
			if xi.batch != x.batch {
				xi.batch, xi.batchHeld = x.batch, 0
			}
			xi.batchHeld++
			xi.completion.set(now, cpu+x.P.IlockHold, xi.batchHeld, x.P.IlockHold)
			xi.diSize = max(xi.diSize, min(in.Size, (io.start+io.n)*kernel.PageSize))
			xi.updateCore = true // xfs_mark_inode_dirty
			x.k.MarkInodeDirty(in, kernel.IDirtySync|kernel.IDirtyDatasync)
			cpu += sim.Time(io.n) * c.EndIOPage
			x.Ioends++
			if run == in && runEnd == io.start {
				runEnd += io.n
				continue
			}
			if run != nil {
				x.k.EndPageWriteback(run, runStart, runEnd-runStart)
			}
			run, runStart, runEnd = in, io.start, io.start+io.n
		}
		if run != nil {
			x.k.EndPageWriteback(run, runStart, runEnd-runStart)
		}
		th.Charge(cpu)
		if th.YieldCPU() {
			return
		}
	}
}

// CheckInvariants is kernel.InvariantChecker: the pages under writeback are exactly
// those of the unfinished ioends (bios still at the device, or queued for
// xfsdatad).
func (x *Xfs) CheckInvariants() error {
	var wb, ioends int64
	for _, in := range x.k.Inodes() {
		if in.BDI() != x.bdi {
			continue // a file on another disk
		}
		wb += in.Writeback.Count()
		r := &in.FS.(*xfsInode).ioends
		for _, io := range r.q[r.head:] {
			if io.remaining < 0 || io.remaining > io.n {
				return fmt.Errorf("invariant xfs-ioend: inode %d ioend [%d,+%d) has %d pages to complete", in.Ino, io.start, io.n, io.remaining)
			}
			if io.remaining > 0 {
				ioends += io.n // its pages stay under writeback until it is finished
			}
		}
	}
	for _, io := range x.workq.q[x.workq.head:] {
		ioends += io.n
	}
	if wb != ioends {
		return fmt.Errorf("invariant xfs-ioend: %d pages under writeback, %d in unfinished ioends", wb, ioends)
	}
	return nil
}
