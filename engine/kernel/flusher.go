package kernel

import (
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// swLastActiveProgress is patch 3/7 (Kara): wb_writeback returns its progress
// (pages plus inodes cleaned) and wb->last_active moves on that progress.
var swLastActiveProgress = declare(Switch{Name: "last_active_progress", Order: 60,
	Doc:    "Wu 2011 patch 3: wb->last_active moves on pages or inodes written",
	Models: "wb_writeback, wb_do_writeback, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 3/7 (Kara), " + threadWu})

var pathLastActiveDiffers = swLastActiveProgress.path("last_active.progress_differs",
	"flusher passes whose progress (pages plus inodes cleaned) differs from pages written")

// swKupdateRetryEarly is patch 4/7 (Kara): kupdate runs early while b_more_io_wait
// is non-empty and the flusher sleeps 1, 2, 4 ... jiffies (reset on progress) up
// to dirty_writeback_interval instead of the full interval.
var swKupdateRetryEarly = declare(Switch{Name: "kupdate_retry_early", Order: 70,
	Doc:    "Wu 2011 patch 4: kupdate retries b_more_io_wait early, pause doubling up to dirty_writeback_interval",
	Models: "wb_check_old_data_flush, bdi_writeback_thread, fs/fs-writeback.c (3.1-rc9 + patch)",
	Source: "Wu 2011 patch 4/7 (Kara), " + threadWu})

var pathKupdateEarly = swKupdateRetryEarly.path("kupdate.retry_early",
	"kupdate runs started early while b_more_io_wait is not empty, and the short retry sleeps")

// swDirtiedBeforeEachLoop is v6 wb_writeback's dirtied_before: background work
// takes jiffies on every loop iteration (all dirty inodes), kupdate
// jiffies - dirty_expire_interval; other works keep the start-of-work cut-off.
var swDirtiedBeforeEachLoop = declare(Switch{Name: "dirtied_before_each_loop", Order: 230,
	Doc:    "v6: background work's dirtied_before = jiffies on every wb_writeback loop (picks up newly dirtied inodes)",
	Models: "wb_writeback, fs/fs-writeback.c v6.1",
	Source: notesV6})

var pathBackgroundCutoff = swDirtiedBeforeEachLoop.path("background.later_loops",
	"background wb_writeback loops after the work's first jiffy (start-of-work vs per-loop cut-off)")

// swWbWritebackQueued is 6.12 wb_writeback's queued flag: a pass that made no
// progress loops again (instead of ending on an empty b_more_io) while this
// wb_writeback has not refilled b_io yet, so inodes a previous work left on b_io
// do not end a work before queue_io looked at b_dirty. 6.12's cut-off is
// recomputed only when b_io is refilled; 6.1's on every loop: both reach queue_io
// with the same value (it is read nowhere else), so dirtied_before_each_loop
// stays on in 6.12.
var swWbWritebackQueued = declare(Switch{Name: "wb_writeback_queued", Order: 235,
	Doc:    "6.10+: wb_writeback retries a pass without progress until it has queued b_io once (bool queued)",
	Models: "wb_writeback, fs/fs-writeback.c v6.12.118",
	Source: "Kemeng Shi, \"fs/writeback: bail out if there is no more inodes for IO and queued once\" (6.10, to confirm); " + notesV612})

var pathNotQueuedRetry = swWbWritebackQueued.path("wb_writeback.not_queued_retry",
	"wb_writeback passes without progress before the work's first queue_io (6.12 loops, 6.1 may end the work)")

// swSbInodesISyncCheck moves the I_SYNC test into writeback_sb_inodes (v6):
// WB_SYNC_NONE requeue_io()s the busy inode with writeback_sb_inodes_requeue
// (no writeback_single_inode call), WB_SYNC_ALL sleeps on it and re-examines.
var swSbInodesISyncCheck = declare(Switch{Name: "sb_inodes_i_sync_check", Order: 260,
	Doc:    "v6: I_SYNC check in writeback_sb_inodes (requeue_io + writeback_sb_inodes_requeue, or sleep for sync)",
	Models: "writeback_sb_inodes, fs/fs-writeback.c v6.1",
	Source: notesV6})

// swWroteMinusSkipped is v6 writeback_sb_inodes' total_wrote: write_chunk -
// nr_to_write - pages_skipped, floored at 0 (+1 for an inode made clean).
var swWroteMinusSkipped = declare(Switch{Name: "wrote_minus_skipped", Order: 290,
	Doc:    "v6: writeback_sb_inodes counts write_chunk - nr_to_write - pages_skipped (floored at 0)",
	Models: "writeback_sb_inodes, fs/fs-writeback.c v6.1",
	Source: notesV6})

// Flusher is the per-bdi flusher thread "flush-MAJ:MIN" (bdi_writeback_thread,
// v3.2) with its work list. Its Resume runs a resumable version of
// bdi_writeback_thread → wb_do_writeback → wb_writeback → writeback_sb_inodes →
// writeback_single_inode.
type Flusher struct {
	k        *Kernel
	b        *BDI
	th       *Thread
	workList []*WbWritebackWork
	wakeup   sim.Timer // wakeup_timer (bdi_wakeup_thread_delayed)

	pc           int
	ret          int // pc to continue at after the current wb_writeback
	work         *WbWritebackWork
	pagesWritten int64 // wb_do_writeback's wrote
	// totalProgress is the pass's wb_writeback progress (pages plus inodes cleaned;
	// Wu 2011 patch 3 returns it instead of pages).
	totalProgress int64
	// pause is bdi_writeback_thread's retry pause in jiffies (Wu 2011 patch 4).
	pause int64
	// startAll is WB_start_all with its reason (v6 wb_start_all / wb_check_start_all).
	startAll       bool
	startAllReason Reason
	// bwDwork is wb->bw_dwork (v6): the bandwidth update after IO completion.
	bwDwork sim.Timer

	// wb_writeback locals
	wbStage  int
	wbStart  int64
	nrPages0 int64
	progress int64
	queued   bool // this wb_writeback called queue_io (6.12)
	// writeback_sb_inodes locals
	sbStart    int64
	sbBefore   int64 // dirtied_before (6.12 requeue_inode)
	wrote      int64
	writeChunk int64
	inInode    bool
	wsi        singleInodeWB

	Stats FlusherStats
}

// FlusherStats counts the flusher's activity.
type FlusherStats struct {
	Works        [8]int64 // works run per reason
	InodeCalls   int64    // writeback_single_inode calls
	WrotePages   int64    // pages written by those calls (write_chunk - nr_to_write)
	ChunkCalls   int64    // calls with a finite write_chunk (WB_SYNC_NONE, untagged)
	ChunkPages   int64    // sum of their write_chunk (nr_to_write at entry)
	Wakeups      int64
	IdleSleeps   int64
	BackgroundWB int64
	KupdateWB    int64
	RetrySleeps  int64 // Wu 2011 patch 4's short sleeps
	StartAllWB   int64 // wb_check_start_all works (v6)
	SbRequeues   int64 // writeback_sb_inodes_requeue: busy inodes requeued (v6)
}

const (
	fpTop = iota
	fpWorks
	fpStartAll
	fpKupdate
	fpBackground
	fpWriteback
	fpDone
)

const (
	wbLoop = iota
	wbInodes
	wbAfter
)

func newFlusher(k *Kernel, b *BDI) *Flusher {
	f := &Flusher{k: k, b: b}
	f.th = k.NewThreadOn(b, "flush-"+b.Name)
	f.th.Task.Resume = f.resume
	f.wakeup.Fn = f.wakeupTimerFn
	f.bwDwork.Fn = func() { k.wbUpdateBandwidthWorkfn(b) }
	f.pause = 1
	// bdi_forker_thread starts the thread on first use; it then sleeps until woken.
	f.th.Task.SleepInterruptible(-1)
	return f
}

// Thread is the flusher's thread.
func (f *Flusher) Thread() *Thread { return f.th }

// flusherDesign is how work reaches a bdi's flusher and how the flusher sleeps,
// chosen once by New (newFlusherDesign): the per-bdi thread of 2.6.32-4.x
// (bdiThread, below), the v6 work item (wbWorkfn, flusher_workqueue.go), and
// 2.6.30's pdflush pool in front of either (pdflushPool, pdflush.go).
type flusherDesign interface {
	// inodeDirtied is __mark_inode_dirty's wakeup when b gets its first dirty inode.
	inodeDirtied(b *BDI)
	// wakeupDelayed wakes f in dirty_writeback_interval.
	wakeupDelayed(f *Flusher)
	// startAll asks b's flusher to write every dirty page (WB_SYNC_NONE).
	startAll(b *BDI, reason Reason)
	// startBackground starts background writeback on b.
	startBackground(b *BDI)
	// top runs when the flusher starts a pass.
	top(f *Flusher)
	// idle puts f to sleep after a pass that left no work.
	idle(f *Flusher)
}

// newFlusherDesign picks the kernel's flusher design (switches pdflush and
// workqueue_flusher).
func newFlusherDesign(k *Kernel) flusherDesign {
	var d flusherDesign = bdiThread{k}
	if k.on(swWorkqueueFlusher) {
		d = wbWorkfn{bdiThread{k}}
	}
	if k.on(swPdflush) {
		d = pdflushPool{d, k}
	}
	return d
}

// bdiThread is the per-bdi flusher thread of 2.6.32-4.x (bdi_writeback_thread,
// fs/fs-writeback.c v3.2): a kthread that sleeps dirty_writeback_interval, or
// shorter with Wu 2011's patch 4, and is woken for queued works.
type bdiThread struct{ k *Kernel }

// inodeDirtied is __mark_inode_dirty's delayed wakeup: bdi_wakeup_thread_delayed
// (v3.2), wb_wakeup_delayed (v6), whichever k.fd has.
func (d bdiThread) inodeDirtied(b *BDI) { d.k.fd.wakeupDelayed(b.flusher) }

// wakeupDelayed is bdi_wakeup_thread_delayed (v3.2): wake the flusher in
// dirty_writeback_interval (5 s).
func (bdiThread) wakeupDelayed(f *Flusher) {
	d := f.k.W.JiffiesToTime(f.k.W.MsecsToJiffies(int64(f.k.P.DirtyWritebackCs) * 10))
	f.k.W.After(&f.wakeup, d)
}

// startAll is v3.2's __bdi_start_writeback(bdi, nr_dirty, range_cyclic=0,
// reason): a queued work.
func (d bdiThread) startAll(b *BDI, reason Reason) {
	k := d.k
	k.QueueWorkOn(b, &WbWritebackWork{NrPages: k.G.NrFileDirty + int64(k.nrDirtyInodes()), SyncMode: WBSyncNone, Reason: reason})
}

// startBackground is bdi_start_background_writeback (v3.2): no work item, just
// wake the flusher; wb_check_background_flush does the work.
func (bdiThread) startBackground(b *BDI) { b.flusher.wake() }

// top is bdi_writeback_thread's del_timer (v3.2): the delayed wakeup is not
// needed while the thread runs.
func (bdiThread) top(f *Flusher) { f.k.W.Cancel(&f.wakeup) }

// idle is bdi_writeback_thread's sleep (v3.2): dirty_writeback_interval while
// dirty IO remains (with Wu 2011 patch 4, 1, 2, 4 ... jiffies while inodes wait
// on b_more_io_wait), else until woken.
func (bdiThread) idle(f *Flusher) {
	k := f.k
	maxPause := k.W.HZ()
	if k.P.DirtyWritebackCs > 0 {
		maxPause = k.W.MsecsToJiffies(int64(k.P.DirtyWritebackCs) * 10)
	}
	if k.on(swKupdateRetryEarly) && f.b.bMoreIOWait.n > 0 && f.pause < maxPause {
		// Wu 2011 patch 4: retry b_more_io_wait after 1, 2, 4 ... jiffies
		f.Stats.RetrySleeps++
		k.Fired(pathKupdateEarly)
		f.th.Task.SleepInterruptible(k.W.JiffiesToTime(f.pause))
		f.pause <<= 1
	} else if f.b.wbHasDirtyIO() && k.P.DirtyWritebackCs > 0 {
		f.th.Task.SleepInterruptible(k.W.JiffiesToTime(maxPause))
	} else {
		f.th.Task.SleepInterruptible(-1)
	}
}

// StartAll asks every bdi's flusher to write all dirty pages: v6 wb_start_all
// (wakeup_flusher_threads), v3.2 __bdi_start_writeback (flusherDesign.startAll).
func (k *Kernel) StartAll(reason Reason) {
	for _, b := range k.bdis {
		k.fd.startAll(b, reason)
	}
}

// wakeupTimerFn is wakeup_timer_fn (v3.2).
func (f *Flusher) wakeupTimerFn() {
	if f.k.Tracing() { // v6.6's delayed work has no such event: its wording drops it
		f.k.trace(nil, tracepoint.Bdi{TP: tracepoint.WritebackWakeThread, Bdi: f.b.Name})
	}
	f.wake()
}

func (f *Flusher) wake() {
	if f.th.Task.Wake() {
		f.Stats.Wakeups++
	}
}

// QueueWork is bdi_queue_work (v3.2) on the first disk's bdi.
func (k *Kernel) QueueWork(w *WbWritebackWork) { k.QueueWorkOn(k.BDI, w) }

// QueueWorkOn is bdi_queue_work (v3.2): append to b's work list and wake its
// flusher.
func (k *Kernel) QueueWorkOn(b *BDI, w *WbWritebackWork) {
	f := b.flusher
	if k.Tracing() {
		k.trace(nil, workEvent(tracepoint.WritebackQueue, b, w))
	}
	f.workList = append(f.workList, w)
	f.wake()
}

// StartBackgroundWriteback is bdi_start_background_writeback (v3.2), or 2.6.30's
// pdflush_operation(background_writeout) (flusherDesign.startBackground).
func (k *Kernel) StartBackgroundWriteback(b *BDI) {
	if k.Tracing() {
		k.trace(nil, tracepoint.Bdi{TP: tracepoint.WritebackWakeBackground, Bdi: b.Name})
	}
	k.fd.startBackground(b)
}

func (f *Flusher) resume() {
	k := f.k
	for {
		switch f.pc {
		case fpTop: // bdi_writeback_thread loop, wb_workfn (v6)
			k.fd.top(f)
			f.pagesWritten, f.totalProgress = 0, 0
			f.b.writebackRunning = true
			f.pc = fpWorks
		case fpWorks: // wb_do_writeback: queued works, FIFO
			if len(f.workList) == 0 {
				f.pc = fpStartAll
				continue
			}
			w := f.workList[0]
			f.workList = f.workList[1:]
			if k.Tracing() {
				k.trace(f.th, workEvent(tracepoint.WritebackExec, f.b, w))
			}
			f.startWork(w, fpWorks)
		case fpStartAll: // wb_check_start_all (v6)
			f.pc = fpKupdate
			if !f.startAll {
				continue
			}
			nr := k.G.NrFileDirty // get_nr_dirty_pages (one wb: no split)
			if nr == 0 {
				f.startAll = false
				continue
			}
			f.Stats.StartAllWB++
			f.startWork(&WbWritebackWork{NrPages: nr, SyncMode: WBSyncNone, RangeCyclic: true,
				Reason: f.startAllReason}, fpKupdate)
		case fpKupdate: // wb_check_old_data_flush
			f.startAll = false
			f.pc = fpBackground
			if k.P.DirtyWritebackCs == 0 {
				continue
			}
			expired := f.b.lastOldFlush + k.W.MsecsToJiffies(int64(k.P.DirtyWritebackCs)*10)
			// Wu 2011 patch 4: run early while inodes wait on b_more_io_wait
			retry := k.on(swKupdateRetryEarly) && f.b.bMoreIOWait.n > 0
			if k.W.Jiffies() < expired && !retry {
				continue
			}
			if k.W.Jiffies() < expired {
				k.Fired(pathKupdateEarly)
			}
			f.b.lastOldFlush = k.W.Jiffies()
			nr := k.G.NrFileDirty + int64(k.nrDirtyInodes())
			if nr > 0 {
				f.Stats.KupdateWB++
				f.startWork(&WbWritebackWork{NrPages: nr, SyncMode: WBSyncNone, ForKupdate: true,
					RangeCyclic: true, Reason: ReasonPeriodic}, fpBackground)
			}
		case fpBackground: // wb_check_background_flush
			f.pc = fpDone
			if k.overBgroundThresh(f.b, f.th) {
				f.Stats.BackgroundWB++
				f.startWork(&WbWritebackWork{NrPages: longMax, SyncMode: WBSyncNone, ForBackground: true,
					RangeCyclic: true, Reason: ReasonBackground}, fpDone)
			}
		case fpWriteback:
			if f.wbWriteback() {
				return
			}
			w := f.work
			f.work = nil
			w.done = true
			w.waiters.WakeAll()
			f.pc = f.ret
		case fpDone:
			if f.th.YieldCPU() {
				return
			}
			f.b.writebackRunning = false
			if k.Tracing() {
				k.trace(f.th, tracepoint.PagesWritten{Pages: f.pagesWritten})
			}
			progress := f.pagesWritten
			if k.on(swLastActiveProgress) {
				progress = f.totalProgress // Wu 2011 patch 3
			}
			if (f.totalProgress > 0) != (f.pagesWritten > 0) {
				k.Fired(pathLastActiveDiffers)
			}
			if progress > 0 {
				f.b.lastActive = k.W.Jiffies()
				f.pause = 1
			}
			f.pc = fpTop
			if len(f.workList) > 0 {
				continue
			}
			f.Stats.IdleSleeps++
			k.Fired(pathFlusherIdle)
			k.fd.idle(f)
			return
		}
	}
}

func (f *Flusher) startWork(w *WbWritebackWork, ret int) {
	f.work, f.ret, f.pc = w, ret, fpWriteback
	f.Stats.Works[w.Reason]++
	f.wbStage = wbLoop
	// wb_writeback (v3.2) entry: older_than_this = jiffies at the start of the work
	f.wbStart = f.k.W.Jiffies()
	f.nrPages0 = w.NrPages
	f.queued = false
	w.olderThanThis, w.hasOlder = f.wbStart, true
}

// loopDirtiedBefore is the cut-off wb_writeback takes on each loop iteration:
// kupdate jiffies - dirty_expire_interval; with DirtiedBeforeEachLoop (v6
// dirtied_before) background work jiffies, i.e. every dirty inode. Other works
// keep the start-of-work time set by startWork.
func (k *Kernel) loopDirtiedBefore(w *WbWritebackWork) {
	if w.ForKupdate {
		w.olderThanThis = k.W.Jiffies() - k.W.MsecsToJiffies(int64(k.P.DirtyExpireCs)*10)
	} else if w.ForBackground && k.on(swDirtiedBeforeEachLoop) {
		w.olderThanThis = k.W.Jiffies()
	}
}

// nrDirtyInodes is get_nr_dirty_inodes(): inodes with I_DIRTY set.
func (k *Kernel) nrDirtyInodes() int {
	n := 0
	for _, in := range k.inodes {
		if in.State&IDirty != 0 {
			n++
		}
	}
	return n
}

// wbWriteback is wb_writeback (v3.2) as a resumable machine; it reports true when the
// flusher blocked. On return false, f.pagesWritten includes the work's pages.
func (f *Flusher) wbWriteback() bool {
	k, w, b := f.k, f.work, f.b
	for {
		switch f.wbStage {
		case wbLoop:
			if w.NrPages <= 0 {
				return f.wbFinish()
			}
			if (w.ForBackground || w.ForKupdate) && len(f.workList) > 0 {
				return f.wbFinish() // yield to queued works
			}
			if w.ForBackground && !k.overBgroundThresh(f.b, f.th) {
				return f.wbFinish()
			}
			if w.ForBackground && k.W.Jiffies() > f.wbStart {
				k.Fired(pathBackgroundCutoff)
			}
			k.loopDirtiedBefore(w)
			if k.Tracing() {
				k.trace(f.th, workEvent(tracepoint.WritebackStart, f.b, w))
			}
			if b.bIO.n == 0 {
				k.queueIO(b, f.th, w)
				f.queued = true
			}
			f.th.Charge(k.P.Costs.WbLoop)
			f.sbStart, f.wrote, f.inInode = k.W.Jiffies(), 0, false
			// writeback_sb_inodes' dirtied_before (6.12): jiffies, kupdate less the expiry
			f.sbBefore = f.sbStart
			if w.ForKupdate {
				f.sbBefore -= k.W.MsecsToJiffies(int64(k.P.DirtyExpireCs) * 10)
			}
			f.wbStage = wbInodes
		case wbInodes:
			if f.writebackSbInodes() {
				return true
			}
			f.progress = f.wrote
			f.wbStage = wbAfter
		case wbAfter:
			if k.Tracing() {
				k.trace(f.th, workEvent(tracepoint.WritebackWritten, f.b, w))
			}
			if !k.on(swBandwidthFromWritepages) {
				k.wbUpdateBandwidth(b, f.wbStart)
			}
			f.wbStage = wbLoop
			f.totalProgress += f.progress
			if f.progress > 0 {
				if f.th.YieldCPU() {
					return true
				}
				continue
			}
			if !f.queued {
				k.Fired(pathNotQueuedRetry)
				if k.on(swWbWritebackQueued) {
					if f.th.YieldCPU() {
						return true
					}
					continue // 6.12: "if (progress || !queued) continue"
				}
			}
			if b.bMoreIO.n > 0 {
				k.Fired(pathNoProgressMoreIO)
			} else if b.bMoreIOWait.n > 0 {
				k.Fired(pathMoreIOWaitOnly)
			}
			if k.on(swRemoveMoreIOWait) {
				return f.wbFinish() // Wu's diff: "if (!progress) break;"
			}
			if b.bMoreIO.n == 0 {
				return f.wbFinish() // b_more_io_wait does not keep the loop going
			}
			if k.on(swISyncRequeueWait) {
				// Kara 2011: pr_warn_ratelimited("mm: Possible busyloop in data
				// writeback ...") and loop
				k.busyLoops++
				k.Fired(pathBusyLoop)
				if k.Tracing() {
					k.trace(f.th, workEvent(tracepoint.WritebackBusyloop, f.b, w))
				}
				if f.th.YieldCPU() {
					return true
				}
				continue
			}
			if k.Tracing() {
				k.trace(f.th, workEvent(tracepoint.WritebackWait, f.b, w))
			}
			// inode_wait_for_writeback on the tail of b_more_io
			if in := b.bMoreIO.tail; in.State&ISync != 0 {
				k.Fired(pathInodeWaitWriteback)
				f.th.Task.Wait(&in.syncWait)
				return true
			}
			k.busyLoops++
			k.Fired(pathBusyLoop)
			if f.th.YieldCPU() {
				return true
			}
		}
	}
}

func (f *Flusher) wbFinish() bool {
	f.pagesWritten += f.nrPages0 - f.work.NrPages
	return false
}

// writebackSbInodes is writeback_sb_inodes / __writeback_inodes_wb (v3.2, one
// superblock): write inodes from the tail of b_io until it is empty, the work's
// pages are done, or 100 ms (HZ/10) have passed with some progress.
func (f *Flusher) writebackSbInodes() bool {
	k, w, b := f.k, f.work, f.b
	for {
		if !f.inInode {
			if b.bIO.n == 0 {
				return false
			}
			in := b.bIO.tail
			if in.State&(INew|IFreeing|IWillFree) != 0 {
				k.redirtyTailFor(in, CauseNewFreeing)
				continue
			}
			if in.State&ISync != 0 && k.on(swSbInodesISyncCheck) {
				// v6: someone else writes the inode
				if w.SyncMode != WBSyncAll {
					k.Fired(pathISyncSkip)
					k.requeueIOFor(in, CauseISync)
					f.Stats.SbRequeues++
					if k.Tracing() {
						k.trace(f.th, k.sbRequeueEvent(in))
					}
					continue
				}
				th := f.th
				th.Task.Wait(&in.syncWait) // inode_sleep_on_writeback, then look again
				return true
			}
			f.writeChunk = k.writebackChunkSize(b, w)
			wbc := WritebackControl{
				SyncMode: w.SyncMode, NrToWrite: f.writeChunk, TaggedWritepages: w.TaggedWritepages,
				ForKupdate: w.ForKupdate, ForBackground: w.ForBackground, RangeCyclic: w.RangeCyclic,
				RangeStart: 0, RangeEnd: longMax,
			}
			f.wsi.begin(k, f.th, in, wbc, true)
			f.wsi.iSyncChecked = k.on(swSbInodesISyncCheck)
			f.wsi.dirtiedBefore = f.sbBefore
			f.inInode = true
			f.Stats.InodeCalls++
		}
		if k.writebackSingleInode(f.th, &f.wsi) {
			return true
		}
		f.inInode = false
		in, wbc := f.wsi.in, &f.wsi.wc.Wbc
		done := f.writeChunk - wbc.NrToWrite
		w.NrPages -= done
		if k.on(swWroteMinusSkipped) {
			f.wrote += max(done-wbc.PagesSkipped, 0) // v6 total_wrote
		} else {
			f.wrote += done
		}
		f.Stats.WrotePages += done
		in.stats.WrotePages += done
		if f.writeChunk != longMax {
			f.Stats.ChunkCalls++
			f.Stats.ChunkPages += f.writeChunk
		}
		if in.State&IDirty == 0 {
			f.wrote++
		}
		if wbc.PagesSkipped > 0 {
			k.Fired(pathPagesSkipped)
		}
		if wbc.PagesSkipped > 0 && !k.on(swRequeueInode) {
			// writeback is not making progress due to locked buffers
			switch v := &k.P.Variants; {
			case v.On(swNoRedirtyOnPagesSkipped):
				// removed: the inode stays where writeback_single_inode put it
			case v.On(swPagesSkippedRequeueWait):
				k.requeueIOWaitFor(in, CausePagesSkipped) // Wu 2011 patch 5
			default:
				k.redirtyTailFor(in, CausePagesSkipped)
			}
		}
		if f.wrote > 0 {
			if k.W.Jiffies() > f.sbStart+k.W.HZ()/10 || w.NrPages <= 0 {
				return false
			}
		}
		if f.th.YieldCPU() {
			return true
		}
	}
}
