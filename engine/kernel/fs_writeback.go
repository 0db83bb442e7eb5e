package kernel

import (
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// swScaledChunk is writeback_chunk_size() of v3.1+ (bw/2, limit/8, 4 MB rounding);
// off: the fixed MAX_WRITEBACK_PAGES = 1024 of 2.6.32-3.0.
var swScaledChunk = declare(Switch{Name: "scaled_chunk", Order: 20,
	Doc:    "writeback_chunk_size scales with bandwidth and dirty limit (v3.1+) instead of 4 MB",
	Models: "writeback_chunk_size, fs/fs-writeback.c v3.1",
	Source: "Wu's IO-less series (v3.1 merge), " + threadWu})

var pathChunkScaled = swScaledChunk.path("writeback_chunk_size.scaled",
	"writeback_chunk_size calls where the scaled chunk is not MAX_WRITEBACK_PAGES")

// Wu 2011 "writeback: avoid touching dirtied_when on blocked inodes" series
// (../threads/wu-2011-more_io_wait-thread.txt). requeue_io_wait() exists only
// with more_io_wait; a switch that calls it without more_io_wait (a combination
// no kernel had) falls back to requeue_io().

// swMoreIOWait is patch 1/7: the b_more_io_wait list and requeue_io_wait(); queue_io
// splices it into b_io after b_more_io, wb_writeback does not loop on it (it only
// keeps going while b_more_io is non-empty) and wb_has_dirty_io counts it.
var swMoreIOWait = declare(Switch{Name: "more_io_wait", Order: 40,
	Doc:    "Wu 2011 patch 1: b_more_io_wait list + requeue_io_wait (spliced into b_io, not looped on)",
	Models: "queue_io, requeue_io_wait, wb_writeback, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 1/7, " + threadWu})

var pathMoreIOWaitOnly = swMoreIOWait.path("wb_writeback.more_io_wait_only",
	"passes without progress that end with only b_more_io_wait inodes left")

// swWriteInodeRequeueWait is patch 2/7 (Hellwig): an inode the filesystem left
// I_DIRTY after writeback (->write_inode failed, e.g. XFS EAGAIN on the ILOCK) is
// requeue_io_wait()ed instead of redirty_tail()ed.
var swWriteInodeRequeueWait = declare(Switch{Name: "write_inode_requeue_wait", Order: 50,
	Doc:    "Wu 2011 patch 2: inode left dirty by ->write_inode → requeue_io_wait, not redirty_tail",
	Models: "writeback_single_inode, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 2/7 (Hellwig), " + threadWu})

var pathWriteInodeFailed = swWriteInodeRequeueWait.path("write_inode_failed",
	"->write_inode calls that failed (XFS EAGAIN: ILOCK busy, inode pinned or flush-locked)")

// swPagesSkippedRequeueWait is patch 5/7: writeback_sb_inodes requeue_io_wait()s an
// inode with pages_skipped instead of redirty_tail().
var swPagesSkippedRequeueWait = declare(Switch{Name: "pages_skipped_requeue_wait", Order: 80,
	Doc:    "Wu 2011 patch 5: pages_skipped inode → requeue_io_wait, not redirty_tail",
	Models: "writeback_sb_inodes, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 5/7, " + threadWu})

var pathPagesSkipped = swPagesSkippedRequeueWait.path("pages_skipped",
	"writeback_single_inode calls that ended with pages_skipped > 0", swNoRedirtyOnPagesSkipped, swRequeueInode, swWroteMinusSkipped)

// swBlockedRequeueWait is patch 6/7: writeback_single_inode requeue_io_wait()s an
// inode with dirty pages left although nr_to_write was not used up ("blocked by
// something other than congestion") instead of redirty_tail().
var swBlockedRequeueWait = declare(Switch{Name: "blocked_requeue_wait", Order: 90,
	Doc:    "Wu 2011 patch 6: blocked inode (dirty pages, slice not used up) → requeue_io_wait",
	Models: "writeback_single_inode, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 6/7, " + threadWu})

// swGrabSuperRequeueWait is patch 7/7: __writeback_inodes_wb requeue_io_wait()s an
// inode whose superblock grab_super_passive() cannot take (s_umount held for
// write by umount/remount) instead of redirty_tail(). The model has one mounted
// superblock that is never unmounted or remounted during a run, so the grab never
// fails and the switch changes nothing here; it is kept so presets name the
// thread's kernels exactly.
var swGrabSuperRequeueWait = declare(Switch{Name: "grab_super_requeue_wait", Order: 100,
	Doc:    "Wu 2011 patch 7: failed superblock grab → requeue_io_wait (no effect: one sb, never unmounted)",
	Models: "__writeback_inodes_wb, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 7/7, " + threadWu})

var pathGrabSuperFailed = swGrabSuperRequeueWait.path("grab_super_failed",
	"grab_super_passive failures (one superblock, never unmounted: cannot fire)")

// swISyncRequeueWait is Kara's "writeback: requeue_io_wait() when I_SYNC is set":
// a WB_SYNC_NONE writeback that finds the inode under I_SYNC requeue_io_wait()s it,
// and wb_writeback no longer waits on the tail of b_more_io when nothing was
// written: it warns "Possible busyloop in data writeback" (counted in BusyLoops)
// and loops.
var swISyncRequeueWait = declare(Switch{Name: "i_sync_requeue_wait", Order: 110,
	Doc:    "Kara 2011: inode under I_SYNC → requeue_io_wait; wb_writeback warns (counts) busy loops instead of waiting",
	Models: "writeback_single_inode, wb_writeback, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Kara, \"writeback: requeue_io_wait() when I_SYNC is set\", " + threadWu})

var pathISyncSkip = swISyncRequeueWait.path("i_sync_skip",
	"WB_SYNC_NONE writebacks that found the inode under I_SYNC", swSbInodesISyncCheck)

var pathNoProgressMoreIO = swISyncRequeueWait.path("wb_writeback.no_progress_more_io",
	"wb_writeback passes without progress with b_more_io not empty (wait, busy loop or exit)", swRemoveMoreIOWait)

var pathInodeWaitWriteback = swISyncRequeueWait.path("inode_wait_for_writeback",
	"wb_writeback sleeps on the I_SYNC of b_more_io's tail", swRemoveMoreIOWait)

var pathBusyLoop = swISyncRequeueWait.path("wb_writeback.busy_loop",
	"wb_writeback passes retried at once without progress", swRemoveMoreIOWait)

// swNoRedirtyOnPagesSkipped is the thread's "remove redirty_tail() on
// pages_skipped": writeback_sb_inodes leaves an inode with pages_skipped on the
// list writeback_single_inode chose.
var swNoRedirtyOnPagesSkipped = declare(Switch{Name: "no_redirty_on_pages_skipped", Order: 120,
	Doc:    "Wu 2011: remove redirty_tail() on pages_skipped in writeback_sb_inodes",
	Models: "writeback_sb_inodes, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu, \"remove redirty_tail() on pages_skipped\", " + threadWu})

// swRemoveMoreIOWait is Wu's follow-up diff: requeue_io_wait ≡ requeue_io (no
// separate list) and wb_writeback leaves its loop as soon as a pass makes no
// progress.
var swRemoveMoreIOWait = declare(Switch{Name: "remove_more_io_wait", Order: 130,
	Doc:    "Wu 2011 follow-up: requeue_io_wait ≡ requeue_io, wb_writeback exits on a pass without progress",
	Models: "requeue_io_wait, wb_writeback, fs/fs-writeback.c (3.1-rc9 + diff)",
	Source: "Wu's follow-up diff, " + threadWu})

// v6.x writeback semantics (kernel-notes §1, "v6.x" paragraphs; the 6.1 preset).
// b_dirty_time and lazytime (I_DIRTY_TIME, dirtytime_expire_interval) are left
// out: the model has no atime/mtime-only dirtying.

// swISyncQueued is I_SYNC_QUEUED (v5.9+): move_expired_inodes sets it,
// __mark_inode_dirty leaves a queued inode where it is (instead of testing
// I_SYNC), redirty_tail and the move off the lists clear it.
var swISyncQueued = declare(Switch{Name: "i_sync_queued", Order: 240,
	Doc:    "v6: I_SYNC_QUEUED set by move_expired_inodes; __mark_inode_dirty leaves queued inodes in place",
	Models: "move_expired_inodes, __mark_inode_dirty, fs/fs-writeback.c v5.9+",
	Source: notesV6})

var pathMarkDirtyLeftQueued = swISyncQueued.path("mark_inode_dirty.left_queued",
	"__mark_inode_dirty calls that left an I_SYNC_QUEUED inode in place")

var pathMarkDirtyLeftISync = swISyncQueued.path("mark_inode_dirty.left_i_sync",
	"__mark_inode_dirty calls that left an inode under I_SYNC in place")

// swRequeueInode is requeue_inode() (v3.5+): pages_skipped is decided first
// (redirty_tail a dirty inode, drop a clean one) inside the decision tree,
// not by writeback_sb_inodes after it.
var swRequeueInode = declare(Switch{Name: "requeue_inode", Order: 250,
	Doc:    "v6: requeue_inode() decision tree (pages_skipped decided first: redirty_tail dirty, drop clean)",
	Models: "requeue_inode, fs/fs-writeback.c v3.5+",
	Source: notesV6})

// swRequeueDirtiedBefore is 6.12's requeue_inode(..., dirtied_before): an inode
// whose slice was used up goes back to b_more_io only if it was not dirtied after
// the cut-off writeback_sb_inodes took on entry (jiffies, for kupdate jiffies -
// dirty_expire_interval); one dirtied later is redirty_tail()ed to b_dirty, so a
// kupdate work does not keep writing a file that a previous work left on b_io
// although it has not expired.
var swRequeueDirtiedBefore = declare(Switch{Name: "requeue_inode_dirtied_before", Order: 255,
	Doc:    "6.10+: requeue_inode sends a slice-used inode dirtied after writeback_sb_inodes' cut-off to redirty_tail, not b_more_io",
	Models: "requeue_inode, writeback_sb_inodes, fs/fs-writeback.c v6.12.118",
	Source: "Kemeng Shi, \"fs/writeback: avoid to writeback non-expired inode in kupdate writeback\" (6.10, to confirm); " + notesV612})

var pathRequeueDirtiedAfter = swRequeueDirtiedBefore.path("requeue_inode.dirtied_after",
	"slice-used inodes with dirty pages that were dirtied after writeback_sb_inodes' cut-off (6.12: redirty_tail; 6.1: b_more_io)")

// SyncMode is enum writeback_sync_modes.
type SyncMode int

// Sync modes.
const (
	WBSyncNone SyncMode = 0 // WB_SYNC_NONE: don't wait on anything
	WBSyncAll  SyncMode = 1 // WB_SYNC_ALL: wait on every mapping (data integrity)
)

// Reason is enum wb_reason (v3.2).
type Reason int

// Writeback reasons.
const (
	ReasonBackground Reason = iota
	ReasonTryToFreePages
	ReasonSync
	ReasonPeriodic
	ReasonLaptopTimer
	ReasonFreeMoreMem
	ReasonFSFreeSpace
	ReasonForkerThread
)

var reasonNames = [...]string{"background", "try_to_free_pages", "sync", "periodic", "laptop_timer",
	"free_more_memory", "fs_free_space", "forker_thread"}

func (r Reason) String() string { return reasonNames[r] }

// WritebackControl is struct writeback_control.
type WritebackControl struct {
	SyncMode         SyncMode
	NrToWrite        int64 // nr_to_write: pages to write; decremented per page written
	PagesSkipped     int64 // pages_skipped: pages redirtied by ->writepage
	RangeStart       int64 // page index
	RangeEnd         int64 // page index, inclusive
	TaggedWritepages bool
	ForKupdate       bool
	ForBackground    bool
	ForReclaim       bool
	RangeCyclic      bool
}

// WbWritebackWork is struct wb_writeback_work.
type WbWritebackWork struct {
	NrPages          int64
	SyncMode         SyncMode
	TaggedWritepages bool
	ForKupdate       bool
	RangeCyclic      bool
	ForBackground    bool
	Reason           Reason

	olderThanThis int64
	hasOlder      bool
	done          bool
	waiters       sim.WaitQueue
}

// Done reports whether the flusher finished the work.
func (w *WbWritebackWork) Done() bool { return w.done }

// Waiters is the queue Wait sleeps on (for a caller that sleeps itself).
func (w *WbWritebackWork) Waiters() *sim.WaitQueue { return &w.waiters }

// Wait blocks th until the work is done; it reports false when already done.
func (w *WbWritebackWork) Wait(th *Thread) bool {
	if w.done {
		return false
	}
	th.Task.Wait(&w.waiters)
	return true
}

// workEvent is the writeback_work_class event tp for w on b.
func workEvent(tp tracepoint.Point, b *BDI, w *WbWritebackWork) tracepoint.Work {
	return tracepoint.Work{TP: tp, Bdi: b.Name, NrPages: w.NrPages, SyncMode: int(w.SyncMode),
		Kupdate: w.ForKupdate, RangeCyclic: w.RangeCyclic, Background: w.ForBackground, Reason: uint8(w.Reason)}
}

// markInodeDirty is __mark_inode_dirty (v3.2): set the flags; an inode that was not
// dirty (and is not under I_SYNC) gets dirtied_when = jiffies and moves to the head
// of b_dirty, and the first dirty inode arms the flusher's delayed wakeup.
func (k *Kernel) markInodeDirty(in *Inode, flags int) {
	if flags&(IDirtySync|IDirtyDatasync) != 0 && !in.metaDirty {
		in.metaDirty, in.metaSince = true, k.W.Now()
	}
	if in.State&flags == flags {
		return
	}
	wasDirty := in.State & IDirty
	in.State |= flags
	if k.on(swISyncQueued) {
		// v6: a queued inode stays where it is; the flusher places it afterwards
		if in.State&ISyncQueued != 0 || in.State&IFreeing != 0 {
			k.Fired(pathMarkDirtyLeftQueued)
			return
		}
	} else if in.State&ISync != 0 || in.State&IFreeing != 0 {
		k.Fired(pathMarkDirtyLeftISync)
		return
	}
	if wasDirty == 0 {
		b := in.bdi
		wakeup := !b.wbHasDirtyIO()
		in.DirtiedWhen = k.W.Jiffies()
		listMove(in, &b.bDirty)
		if wakeup {
			k.fd.inodeDirtied(b)
		}
	}
}

// MarkInodeDirty is __mark_inode_dirty for filesystems (e.g. metadata updates).
func (k *Kernel) MarkInodeDirty(in *Inode, flags int) { k.markInodeDirty(in, flags) }

// redirtyTail is redirty_tail (v3.2): move the inode to the head of b_dirty; if it is
// older than the current head, reset dirtied_when to now to keep b_dirty time-ordered
// (the inode loses its age).
func (k *Kernel) redirtyTail(in *Inode) {
	b := &in.bdi.bDirty
	if b.head != nil && in.DirtiedWhen < b.head.DirtiedWhen {
		in.DirtiedWhen = k.W.Jiffies()
	}
	listMove(in, b)
	in.State &^= ISyncQueued // redirty_tail_locked (v6)
}

// listDelClean is list_del_init / inode_cgwb_move_to_attached (v6): the clean
// inode leaves the writeback lists (and I_SYNC_QUEUED is cleared).
func listDelClean(in *Inode) {
	listDelInit(in)
	in.State &^= ISyncQueued
}

// requeueIO is requeue_io (v3.2): move the inode to b_more_io for the next round.
func (k *Kernel) requeueIO(in *Inode) { listMove(in, &in.bdi.bMoreIO) }

// requeueIOWait is requeue_io_wait (Wu 2011 patch 1): park the blocked inode on
// b_more_io_wait without touching dirtied_when; queue_io sends it to b_io again but
// wb_writeback does not keep looping for it. Wu's follow-up diff
// (RemoveMoreIOWait) makes it requeue_io; without the list (MoreIOWait off) the
// callers' switches fall back to requeue_io as well.
func (k *Kernel) requeueIOWait(in *Inode) {
	v := &k.P.Variants
	if !v.On(swMoreIOWait) || v.On(swRemoveMoreIOWait) {
		k.requeueIO(in)
		return
	}
	listMove(in, &in.bdi.bMoreIOWait)
}

// requeueIOWaitFor is requeueIOWait counting the cause under the list the inode
// went to.
func (k *Kernel) requeueIOWaitFor(in *Inode, c Cause) {
	if v := &k.P.Variants; !v.On(swMoreIOWait) || v.On(swRemoveMoreIOWait) {
		k.requeued(opRequeueIO, c)
	} else {
		k.requeued(opRequeueIOWait, c)
	}
	k.requeueIOWait(in)
}

// redirtyTailFor is redirtyTail counted by cause.
func (k *Kernel) redirtyTailFor(in *Inode, c Cause) { k.requeued(opRedirtyTail, c); k.redirtyTail(in) }

// requeueIOFor is requeueIO counted by cause.
func (k *Kernel) requeueIOFor(in *Inode, c Cause) { k.requeued(opRequeueIO, c); k.requeueIO(in) }

// moveExpiredInodes is move_expired_inodes (v3.2, single superblock): move inodes
// dirtied at or before the work's older_than_this from the tail of b_dirty to the
// head of b_io, oldest ending up at b_io's tail. It returns the number moved.
func (k *Kernel) moveExpiredInodes(wb *BDI, work *WbWritebackWork) int {
	tmp := &wb.moveTmp
	moved := 0
	for b := &wb.bDirty; b.tail != nil; {
		in := b.tail
		if work.hasOlder && in.DirtiedWhen > work.olderThanThis {
			break
		}
		listMove(in, tmp)
		if k.on(swISyncQueued) {
			in.State |= ISyncQueued
		}
		moved++
	}
	listSpliceInit(tmp, &wb.bIO)
	return moved
}

// queueIO is queue_io (v3.2): all of b_more_io, then (Wu 2011 patch 1) all of
// b_more_io_wait, then the expired b_dirty inodes, go to the head of b_io.
func (k *Kernel) queueIO(b *BDI, th *Thread, work *WbWritebackWork) {
	listSpliceInit(&b.bMoreIO, &b.bIO)
	listSpliceInit(&b.bMoreIOWait, &b.bIO)
	moved := k.moveExpiredInodes(b, work)
	if k.Tracing() {
		older, age := int64(0), int64(-1)
		if work.hasOlder {
			older = work.olderThanThis
			age = (k.W.Jiffies() - work.olderThanThis) * 1000 / k.W.HZ()
		}
		k.trace(th, tracepoint.QueueIO{Bdi: b.Name, Older: older, Age: age, Moved: moved, Reason: uint8(work.Reason)})
	}
}

// writebackChunkSize is writeback_chunk_size (v3.2): WB_SYNC_ALL and tagged works
// write each inode in one go; otherwise half a second of bandwidth, at most 1/8 of
// the dirty limit and the work's pages, rounded to 4 MB with 4 MB minimum. Without
// switch scaled_chunk it is MAX_WRITEBACK_PAGES (2.6.32-3.0).
func (k *Kernel) writebackChunkSize(b *BDI, work *WbWritebackWork) int64 {
	if work.SyncMode == WBSyncAll || work.TaggedWritepages {
		return longMax
	}
	pages := min(b.AvgWriteBandwidth/2, k.globalDirtyLimit/dirtyScope)
	pages = min(pages, work.NrPages)
	scaled := (pages + minWritebackPages) / minWritebackPages * minWritebackPages
	if scaled != maxWritebackPages {
		k.Fired(pathChunkScaled)
	}
	if !k.on(swScaledChunk) {
		return maxWritebackPages
	}
	return scaled
}

// singleInodeWB is the resumable state of writeback_single_inode.
type singleInodeWB struct {
	stage     int
	in        *Inode
	wc        WritebackCtx
	nrToWrite int64 // nr_to_write at entry (trace to_write)
	requeued  bool  // I_SYNC busy, requeue_io'd without writing
	fromLists bool  // called by the flusher on its lists (vs. sync_inode)
	// iSyncChecked: the caller (v6 writeback_sb_inodes) already handled I_SYNC
	// and calls __writeback_single_inode directly.
	iSyncChecked bool
	stats        bool
	// dirtiedBefore is writeback_sb_inodes' cut-off (jiffies) that 6.12's
	// requeue_inode compares dirtied_when with (fromLists calls only).
	dirtiedBefore int64
}

const (
	wsiStart = iota
	wsiWritepages
	wsiWait
	wsiWriteInode
	wsiDone
)

func (m *singleInodeWB) begin(k *Kernel, th *Thread, in *Inode, wbc WritebackControl, fromLists bool) {
	*m = singleInodeWB{in: in, fromLists: fromLists, nrToWrite: wbc.NrToWrite}
	m.wc = WritebackCtx{K: k, Th: th, In: in, Wbc: wbc}
}

// writebackSingleInode is writeback_single_inode (v3.2) as a resumable machine. It
// reports true when th blocked.
func (k *Kernel) writebackSingleInode(th *Thread, m *singleInodeWB) bool {
	in := m.in
	for {
		switch m.stage {
		case wsiStart:
			if in.State&ISync != 0 && !m.iSyncChecked {
				if m.wc.Wbc.SyncMode != WBSyncAll {
					k.Fired(pathISyncSkip)
					if k.on(swISyncRequeueWait) {
						k.requeueIOWaitFor(in, CauseISync) // Kara 2011
					} else {
						k.requeueIOFor(in, CauseISync)
					}
					m.requeued = true
					m.stage = wsiDone
					if k.Tracing() {
						k.trace(th, k.wsiEvent(tracepoint.WritebackSingleInodeRequeue, m))
					}
					return false
				}
				th.Task.Wait(&in.syncWait) // inode_wait_for_writeback
				return true
			}
			in.State |= ISync
			in.State &^= IDirtyPages
			th.Charge(k.P.Costs.InodeWriteback)
			if k.Tracing() {
				k.trace(th, k.wsiEvent(tracepoint.WritebackSingleInodeStart, m))
			}
			if m.fromLists {
				age := k.W.Now() - k.W.JiffiesToTime(in.DirtiedWhen)
				in.stats.WritebackCalls++
				in.stats.SumAge += age
				in.stats.MaxAge = max(in.stats.MaxAge, age)
			}
			// do_writepages (v3.2): nothing to do when nr_to_write <= 0 on entry
			m.stage = wsiWritepages
			if m.wc.Wbc.NrToWrite <= 0 {
				m.stage = wsiWait
			} else if k.on(swBandwidthFromWritepages) {
				k.wbBandwidthEstimateStart(in.bdi)
			}
		case wsiWritepages:
			if in.bdi.FS.Writepages(&m.wc) {
				return true
			}
			if k.on(swBandwidthFromWritepages) {
				// do_writepages (v6): update the bandwidth once in a while
				if k.W.Jiffies() > in.bdi.bwTimeStamp+max(k.W.HZ()/5, 1) {
					k.wbUpdateBandwidthV6(in.bdi)
				}
			}
			m.stage = wsiWait
		case wsiWait:
			if m.wc.Wbc.SyncMode == WBSyncAll && !in.Writeback.Empty() {
				th.SleepFor(WaitPageWriteback)
				th.Task.Wait(&in.wbWait) // filemap_fdatawait
				return true
			}
			m.stage = wsiWriteInode
		case wsiWriteInode:
			dirty := in.State & IDirty
			in.State &^= IDirtySync | IDirtyDatasync
			if dirty&(IDirtySync|IDirtyDatasync) != 0 {
				th.Charge(k.P.Costs.WriteInode)
				if k.Tracing() {
					k.trace(th, tracepoint.WriteInode{TP: tracepoint.WritebackWriteInodeStart, Bdi: in.bdi.Name, Ino: in.Ino, SyncMode: int(m.wc.Wbc.SyncMode)})
				}
				err := in.bdi.FS.WriteInode(&m.wc)
				if err != nil {
					k.Fired(pathWriteInodeFailed)
				}
				if k.Tracing() {
					k.trace(th, tracepoint.WriteInode{TP: tracepoint.WritebackWriteInode, Bdi: in.bdi.Name, Ino: in.Ino, SyncMode: int(m.wc.Wbc.SyncMode)})
				}
				if err == nil && in.State&(IDirtySync|IDirtyDatasync) == 0 {
					if in.metaDirty {
						age := k.W.Now() - in.metaSince
						in.stats.MaxMetaAge = max(in.stats.MaxMetaAge, age)
						in.stats.MetaWrites++
						in.metaDirty = false
					}
				}
			}
			k.wsiFinish(th, m)
			m.stage = wsiDone
			return false
		case wsiDone:
			return false
		}
	}
}

// wsiFinish is the tail of writeback_single_inode (v3.2): clear I_SYNC and put the
// inode on the list its state calls for.
func (k *Kernel) wsiFinish(th *Thread, m *singleInodeWB) {
	in, wbc := m.in, &m.wc.Wbc
	in.State &^= ISync
	if k.on(swRequeueInode) {
		k.requeueInode(m)
	} else if in.State&IFreeing == 0 {
		if in.State&IDirty != 0 && (wbc.SyncMode == WBSyncAll || wbc.TaggedWritepages) {
			in.DirtiedWhen = k.W.Jiffies()
		}
		switch {
		case !in.Dirty.Empty():
			in.State |= IDirtyPages
			switch {
			case wbc.NrToWrite <= 0:
				k.requeueIOFor(in, CauseSliceUsed) // slice used up: queue for next turn
			case k.on(swBlockedRequeueWait):
				k.requeueIOWaitFor(in, CauseBlocked) // Wu 2011 patch 6
			default:
				k.redirtyTailFor(in, CauseBlocked) // blocked by something other than congestion
			}
		case in.State&IDirty != 0:
			// the fs redirtied the inode during writeback (delalloc metadata, or
			// ->write_inode failed and re-marked it)
			if k.on(swWriteInodeRequeueWait) {
				k.requeueIOWaitFor(in, CauseInodeDirty) // Wu 2011 patch 2 (Hellwig)
			} else {
				k.redirtyTailFor(in, CauseInodeDirty)
			}
		default:
			listDelClean(in) // clean
		}
	}
	if in.syncWait.Len() > 0 {
		in.syncWait.WakeAll() // inode_sync_complete
	}
	if k.Tracing() {
		k.trace(th, k.wsiEvent(tracepoint.WritebackSingleInode, m))
	}
}

// requeueInode is requeue_inode (v3.5+, v6.1) for the flusher's calls, and the
// list handling at the end of v6 writeback_single_inode for the others (fsync,
// sync_inode): a clean inode leaves the lists; a dirty one is left to the flusher
// while I_SYNC_QUEUED, else redirty_tail()ed.
func (k *Kernel) requeueInode(m *singleInodeWB) {
	in, wbc := m.in, &m.wc.Wbc
	if in.State&IFreeing != 0 {
		return
	}
	if !m.fromLists {
		switch {
		case in.State&IDirty == 0 && in.Dirty.Empty():
			listDelClean(in)
		case in.State&ISyncQueued == 0:
			if !in.Dirty.Empty() {
				in.State |= IDirtyPages
			}
			k.redirtyTail(in)
		}
		return
	}
	if in.State&IDirty != 0 && (wbc.SyncMode == WBSyncAll || wbc.TaggedWritepages) {
		in.DirtiedWhen = k.W.Jiffies()
	}
	if !in.Dirty.Empty() {
		in.State |= IDirtyPages // mapping_tagged(PAGECACHE_TAG_DIRTY)
	}
	if wbc.PagesSkipped > 0 {
		// writeback is not making progress due to locked buffers
		if in.State&IDirty != 0 {
			k.redirtyTailFor(in, CausePagesSkipped)
		} else {
			listDelClean(in)
		}
		return
	}
	switch {
	case !in.Dirty.Empty():
		after := wbc.NrToWrite <= 0 && in.DirtiedWhen > m.dirtiedBefore // inode_dirtied_after
		if after {
			k.Fired(pathRequeueDirtiedAfter)
		}
		if wbc.NrToWrite <= 0 && !(after && k.on(swRequeueDirtiedBefore)) {
			k.requeueIOFor(in, CauseSliceUsed) // slice used up: queue for next turn
		} else if wbc.NrToWrite <= 0 {
			k.redirtyTailFor(in, CauseSliceUsed) // 6.12: dirtied after the cut-off
		} else {
			k.redirtyTailFor(in, CauseBlocked) // blocked by something other than congestion
		}
	case in.State&IDirty != 0:
		k.redirtyTailFor(in, CauseInodeDirty)
	default:
		listDelClean(in)
	}
}

// sbRequeueEvent is writeback_sb_inodes_requeue for in. show_inode_state does not
// print I_SYNC_QUEUED.
func (k *Kernel) sbRequeueEvent(in *Inode) tracepoint.SbInodesRequeue {
	return tracepoint.SbInodesRequeue{Bdi: in.bdi.Name, Ino: in.Ino, State: uint64(in.State &^ ISyncQueued),
		DirtiedWhen: in.DirtiedWhen, Age: (k.W.Jiffies() - in.DirtiedWhen) / k.W.HZ()}
}

// wsiEvent is the writeback_single_inode class event tp for m.
func (k *Kernel) wsiEvent(tp tracepoint.Point, m *singleInodeWB) tracepoint.SingleInode {
	in := m.in
	return tracepoint.SingleInode{TP: tp, Bdi: in.bdi.Name, Ino: in.Ino, State: uint64(in.State &^ ISyncQueued),
		DirtiedWhen: in.DirtiedWhen, Age: (k.W.Jiffies() - in.DirtiedWhen) / k.W.HZ(),
		Index: in.WritebackIndex, ToWrite: m.nrToWrite, Wrote: m.nrToWrite - m.wc.Wbc.NrToWrite}
}
