package kernel

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

// This file is the writeback design before Axboe's per-bdi flusher threads
// (2.6.30, ../shared/threads/axboe-2009-per-bdi-flusher-threads.txt), selected by
// switch pdflush, and the IO-full balance_dirty_pages of 2.6.30-3.1 (switch
// io_full_throttle):
//
//   - writeback_inodes(wbc) / generic_sync_sb_inodes (2.6.30): one pass over the
//     superblock's inodes with a single wbc whose nr_to_write (MAX_WRITEBACK_PAGES for
//     pdflush, sync_writeback_pages() for a dirtier) spans all inodes; nonblocking
//     writeback (pdflush) gives up when the queue is write-congested
//     (encountered_congestion): before each inode, and inside one where the
//     filesystem looks (write_cache_pages checks at entry and after every
//     ->writepage; ext4_da_writepages calls it once per extent and submits the
//     extent's pages only after collecting them, so a pass over one extent is not
//     cut short by its own submissions: WritebackCtx.WalkDirty); only one pdflush
//     works a bdi at a time (writeback_acquire / BDI_pdflush); a dirtier does not
//     take BDI_pdflush, and a WB_SYNC_NONE pass finding an inode under I_SYNC
//     requeue_io()s it (__writeback_single_inode); __sync_single_inode puts an inode
//     with pages left back with redirty_tail, except for kupdate's used-up slices
//     (requeue_io);
//   - mm/pdflush.c: a pool of MIN_PDFLUSH_THREADS = 2 to MAX_PDFLUSH_THREADS = 8
//     threads taking pdflush_operation() requests (the most recently idle thread
//     first); a thread finishing its work starts a new one when the pool has had no
//     idle thread for a second, and exits when the thread idle longest has slept
//     more than a second; a request finding no idle thread fails (wb_timer then
//     retries in a second);
//   - wb_kupdate from wb_timer every dirty_writeback_interval, and
//     background_writeout from balance_dirty_pages;
//   - congestion_wait(WRITE, HZ/10): sleep until the queue leaves write congestion
//     or 100 ms pass;
//   - IO-full balance_dirty_pages: over the limit, the dirtier writes back
//     write_chunk pages itself (blocking in get_request_wait), then waits in
//     congestion_wait until it is under the limit or has done its chunk.
//
// The 2.6.30 sources modelled, checked against a stored 2.6.30.4 tree
// (cocojk/linux-2.6.30.4): mm/pdflush.c; mm/page-writeback.c (background_writeout,
// wb_kupdate, wb_timer_fn, get_dirty_limits with task_dirty_limit and
// clip_bdi_dirty_limit, balance_dirty_pages writing back whenever
// bdi_nr_reclaimable is non-zero, write_cache_pages' congestion checks);
// fs/ext4/inode.c (ext4_da_writepages: a journal handle and a write_cache_pages
// call per extent, nr_to_write raised to s_mb_stream_request); fs/fs-writeback.c
// (generic_sync_sb_inodes, __writeback_single_inode, __sync_single_inode's list
// placement), and the per-bdi side against the stored copy of the series before
// v4 (generic_sync_bdi_inodes and writeback_single_inode keep 2.6.30's inode walk
// and placement: I_SYNC →
// requeue_io for WB_SYNC_NONE; kupdate requeue_io / redirty_tail; redirty_tail
// otherwise). The per-bdi series' flusher (bdi_flush there, wb_writeback in 2.6.32)
// has no wbc->nonblocking and no congestion_wait, and its balance_dirty_pages still
// writes back in the dirtier's context (generic_sync_bdi_inodes(NULL, &wbc); 2.6.32
// writeback_inodes_wbc). Not modelled: sync_supers() at the start of wb_kupdate,
// laptop mode, clip_bdi_dirty_limit (a no-op with one disk).

// swPdflush is the design before Axboe's per-bdi flusher threads (2.6.30): a pool
// of pdflush threads running background_writeout and wb_kupdate with congestion
// waits (pdflush.go). Off: the per-bdi flush-MAJ:MIN thread with its work list.
var swPdflush = declare(Switch{Name: "pdflush", Order: 140,
	Doc:    "2.6.30: pdflush thread pool, background_writeout/wb_kupdate (off: Axboe's per-bdi flushers)",
	Models: "mm/pdflush.c, background_writeout, wb_kupdate, mm/page-writeback.c v2.6.30",
	Source: threadAxboe})

var pathCongestionWait = swPdflush.path("congestion_wait",
	"congestion_wait(WRITE, HZ/10) sleeps of 2.6.30's pdflush and balance_dirty_pages", swIOFullThrottle, swIOFullPauseBackoff)

var pathPdflushThreadStart = swPdflush.path("pdflush.thread_start",
	"pdflush threads started at run time (beyond MIN_PDFLUSH_THREADS)")

var pathPdflushThreadExit = swPdflush.path("pdflush.thread_exit",
	"pdflush threads that exited after a second idle")

var pathPdflushOperations = swPdflush.path("pdflush.operations",
	"pdflush_operation calls (wb_kupdate from wb_timer, background_writeout from balance_dirty_pages), with or without an idle thread")

// wbInodesM is writeback_inodes(wbc) → generic_sync_sb_inodes (2.6.30) as a
// resumable machine: the walk over the superblocks (one per bdi here), newest
// mount first (list_for_each_entry_reverse(sb, &super_blocks)), skipping those
// without dirty inodes, until nr_to_write is used up.
type wbInodesM struct {
	// bdi is wbc->bdi: a dirtier writes back only its own bdi's superblocks
	// (generic_sync_sb_inodes stops at once on another queue); nil for pdflush.
	bdi     *BDI
	walking bool
	sb      int  // index into k.bdis of the superblock being written
	inSb    bool // inside generic_sync_sb_inodes(sb)

	wbc           WritebackControl
	nonblocking   bool  // wbc->nonblocking
	congested     bool  // wbc->encountered_congestion
	moreIO        bool  // wbc->more_io
	olderThanThis int64 // wbc->older_than_this, jiffies
	hasOlder      bool
	pdflush       bool // current_is_pdflush()

	started  bool
	start    int64 // jiffies at entry (inode_dirtied_after)
	inInode  bool
	acquired bool
	skipped0 int64
	wsi      singleInodeWB
}

// writebackInodes is writeback_inodes (fs/fs-writeback.c, 2.6.30): run m over the
// superblocks; it reports true when th blocked (call again on resume).
func (k *Kernel) writebackInodes(th *Thread, m *wbInodesM) bool {
	if !m.walking {
		m.walking, m.sb = true, len(k.bdis)-1
		m.congested, m.moreIO = false, false
		// writeback_inodes: sb_lock, the super_blocks walk, s_umount, inode_lock
		th.Charge(k.P.Costs.WbLoop)
	}
	for m.sb >= 0 {
		b := k.bdis[m.sb]
		if !m.inSb {
			if m.bdi != nil && b != m.bdi {
				m.sb-- // generic_sync_sb_inodes: "fs has the wrong queue"
				continue
			}
			if len(k.bdis) > 1 && !b.wbHasDirtyIO() {
				m.sb-- // sb_has_dirty_inodes
				continue
			}
			m.inSb = true
			th.useBDI(b)
		}
		if k.genericSyncSbInodes(th, b, m) {
			return true
		}
		m.inSb = false
		m.sb--
		if m.wbc.NrToWrite <= 0 {
			break
		}
	}
	m.walking = false
	return false
}

// genericSyncSbInodes is generic_sync_sb_inodes (2.6.30) for b's superblock; it
// reports true when th blocked.
func (k *Kernel) genericSyncSbInodes(th *Thread, b *BDI, m *wbInodesM) bool {
	if !m.started {
		m.started, m.start = true, k.W.Jiffies()
		if !m.wbc.ForKupdate || b.bIO.n == 0 {
			k.queueIO(b, th, &WbWritebackWork{olderThanThis: m.olderThanThis, hasOlder: m.hasOlder, Reason: ReasonBackground})
		}
	}
	for {
		if !m.inInode {
			if b.bIO.n == 0 {
				break
			}
			in := b.bIO.tail
			if m.nonblocking && b.Q.Congested(devices.Write) {
				m.congested = true // skip a congested fs
				break
			}
			if in.DirtiedWhen > m.start {
				break // dirtied after this writeback started
			}
			if m.pdflush {
				if b.writebackRunning {
					break // another pdflush is already flushing this queue
				}
				b.writebackRunning, m.acquired = true, true // writeback_acquire
			}
			m.skipped0 = m.wbc.PagesSkipped
			m.wsi.begin(k, th, in, m.wbc, true)
			m.wsi.wc.nonblocking = m.nonblocking
			m.inInode = true
		}
		if k.writebackSingleInode(th, &m.wsi) {
			return true
		}
		m.inInode = false
		in := m.wsi.in
		m.wbc.NrToWrite, m.wbc.PagesSkipped = m.wsi.wc.Wbc.NrToWrite, m.wsi.wc.Wbc.PagesSkipped
		if m.wsi.wc.congested {
			m.congested = true
		}
		if !m.wsi.requeued {
			k.syncSingleInodeRequeue(in, &m.wbc)
		}
		if m.acquired {
			b.writebackRunning, m.acquired = false, false // writeback_release
		}
		if m.wbc.PagesSkipped != m.skipped0 {
			k.redirtyTail(in) // writeback is not making progress due to locked buffers
		}
		if m.wbc.NrToWrite <= 0 {
			m.moreIO = true
			break
		}
		if b.bMoreIO.n > 0 {
			m.moreIO = true
		}
	}
	m.started = false
	return false
}

// syncSingleInodeRequeue is the list placement at the end of __sync_single_inode
// (2.6.30) for writeback_inodes' callers, over writeback_single_inode's (v3.2): an
// inode left with dirty pages goes back to s_dirty with redirty_tail ("fully
// redirty the inode so that other inodes on this superblock will get some
// writeout"), except that kupdate requeue_io()s an inode whose slice was used up
// and that was not dirtied again meanwhile (I_DIRTY_SYNC/DATASYNC here: pages
// redirtied during the pass are not told apart).
func (k *Kernel) syncSingleInodeRequeue(in *Inode, wbc *WritebackControl) {
	if in.State&IFreeing != 0 || in.list != &in.bdi.bMoreIO {
		return // v3.2 and 2.6.30 agree (redirty_tail, clean, or requeued by I_SYNC)
	}
	if wbc.ForKupdate && wbc.NrToWrite <= 0 && in.State&(IDirtySync|IDirtyDatasync) == 0 {
		return // slice used up: queue for next turn
	}
	k.redirtyTail(in)
}

// congestionWait is congestion_wait(BLK_RW_ASYNC, HZ/10) (2.6.30): th sleeps until
// the queue leaves write congestion (EndIO wakes the queue) or 100 ms pass; the
// sleep and the wake-up cost a schedule() each.
func (k *Kernel) congestionWait(th *Thread) {
	k.Fired(pathCongestionWait)
	th.Charge(k.P.Costs.SleepWake)
	th.Task.WaitTimeout(&k.congestionWQ, k.W.JiffiesToTime(max(k.W.HZ()/10, 1)))
}

// wakeCongestion is clear_bdi_congested's wake-up of congestion_wait sleepers (2.6.30):
// b's queue leaving write congestion wakes every sleeper (one global wait queue).
func (k *Kernel) wakeCongestion(b *BDI) {
	if k.congestionWQ.Len() > 0 && !b.Q.Congested(devices.Write) {
		k.congestionWQ.WakeAll()
	}
}

// pdflush operations (my_work->fn).
const (
	pdNone = iota
	pdKupdate
	pdBackground
)

// Pool bounds (mm/pdflush.c).
const (
	minPdflushThreads = 2 // MIN_PDFLUSH_THREADS
	maxPdflushThreads = 8 // MAX_PDFLUSH_THREADS
)

// pdflushThread is one pdflush thread (mm/pdflush.c, 2.6.30): __pdflush's loop
// around wb_kupdate or background_writeout.
type pdflushThread struct {
	k  *Kernel
	th *Thread
	fn int // my_work->fn
	pc int

	whenWentToSleep int64 // my_work->when_i_went_to_sleep, jiffies
	exited          bool

	m         wbInodesM
	nrToWrite int64 // wb_kupdate's nr_to_write
	minPages  int64 // background_writeout's min_pages
	nextJif   int64
}

// pdflush is the pool (pdflush_list, nr_pdflush_threads, last_empty_jifs) and
// wb_timer.
type pdflush struct {
	// idle is pdflush_list: idle threads, the head (most recently idle) last.
	idle    []*pdflushThread
	threads []*pdflushThread // every thread started
	nr      int              // nr_pdflush_threads
	// lastEmptyJifs is last_empty_jifs: when pdflush_operation took the last idle
	// thread.
	lastEmptyJifs int64
	wbTimer       sim.Timer
	stats         PdflushStats
}

// PdflushStats counts the pool's events.
type PdflushStats struct {
	Started, Exited int   // threads started (beyond the first MIN_PDFLUSH_THREADS) and exited
	MaxThreads      int   // largest nr_pdflush_threads
	Operations      int64 // pdflush_operation() calls that found an idle thread
	Failed          int64 // pdflush_operation() calls that found none
}

// pdflushPool is 2.6.30's writeback design: background writeout and kupdate
// run in the pdflush pool; the bdi's flusher (the design it wraps) only serves
// queued works (sync), and is not woken when an inode is first dirtied.
type pdflushPool struct {
	flusherDesign
	k *Kernel
}

// inodeDirtied does nothing: wb_timer (wbTimerFn) runs kupdate every
// dirty_writeback_interval.
func (pdflushPool) inodeDirtied(*BDI) {}

// startBackground is pdflush_operation(background_writeout, 0): every superblock.
func (d pdflushPool) startBackground(*BDI) { d.k.pdflushOperation(pdBackground) }

// newPdflush is pdflush_init (mm/pdflush.c, 2.6.30: MIN_PDFLUSH_THREADS threads) and
// page_writeback_init's wb_timer (mm/page-writeback.c, 2.6.30: first expiry one
// dirty_writeback_interval after boot).
func newPdflush(k *Kernel) *pdflush {
	p := &pdflush{}
	k.pd = p
	for range minPdflushThreads { // pdflush_init
		k.startOnePdflushThread(false)
	}
	p.wbTimer.Fn = func() { k.wbTimerFn() }
	if k.P.DirtyWritebackCs > 0 {
		k.W.After(&p.wbTimer, k.W.JiffiesToTime(k.W.MsecsToJiffies(int64(k.P.DirtyWritebackCs)*10)))
	}
	return p
}

// startOnePdflushThread is start_one_pdflush_thread (2.6.30): kthread_run(pdflush);
// the new thread counts itself in and goes idle. Threads started at run time pay
// the kthread creation (boot's are created before the simulation starts).
func (k *Kernel) startOnePdflushThread(runtime bool) {
	p := k.pd
	t := &pdflushThread{k: k, th: k.NewThread("pdflush")} // moves between queues (useBDI)
	t.th.Task.Resume = t.resume
	p.threads = append(p.threads, t)
	p.nr++ // nr_pdflush_threads++ in __pdflush, before it first sleeps
	p.stats.MaxThreads = max(p.stats.MaxThreads, p.nr)
	if runtime {
		p.stats.Started++
		t.th.Charge(k.P.Costs.KthreadCreate)
		t.pc = pdIdle
		t.th.Task.Start()
		return
	}
	t.goIdle()
}

// goIdle is the top of __pdflush's loop (mm/pdflush.c, 2.6.30):
// TASK_INTERRUPTIBLE, list_move onto pdflush_list, when_i_went_to_sleep = jiffies,
// schedule().
func (t *pdflushThread) goIdle() {
	p := t.k.pd
	t.fn, t.pc = pdNone, pdIdle
	p.idle = append(p.idle, t)
	t.whenWentToSleep = t.k.W.Jiffies()
	t.th.Task.SleepInterruptible(-1)
}

// Pdflush lists every pdflush thread started, exited ones included (nil for
// per-bdi kernels).
func (k *Kernel) Pdflush() []*Thread {
	if k.pd == nil {
		return nil
	}
	out := make([]*Thread, len(k.pd.threads))
	for i, t := range k.pd.threads {
		out[i] = t.th
	}
	return out
}

// PdflushStats reports the pool's counters (zero for per-bdi kernels).
func (k *Kernel) PdflushStats() PdflushStats {
	if k.pd == nil {
		return PdflushStats{}
	}
	return k.pd.stats
}

// NrPdflushThreads is nr_pdflush_threads (/proc/sys/vm/nr_pdflush_threads).
func (k *Kernel) NrPdflushThreads() int {
	if k.pd == nil {
		return 0
	}
	return k.pd.nr
}

// pdflushOperation is pdflush_operation (2.6.30): hand fn to the most recently
// idle pdflush thread; false (-1) when none is idle.
func (k *Kernel) pdflushOperation(fn int) bool {
	p := k.pd
	n := len(p.idle)
	if n == 0 {
		p.stats.Failed++
		return false
	}
	t := p.idle[n-1]
	p.idle[n-1] = nil
	p.idle = p.idle[:n-1]
	if n == 1 {
		p.lastEmptyJifs = k.W.Jiffies()
	}
	p.stats.Operations++
	t.fn, t.pc = fn, pdStart
	t.th.Task.Wake()
	return true
}

// wbTimerFn is wb_timer_fn (2.6.30): start wb_kupdate, or retry in a second when
// every pdflush thread is busy.
func (k *Kernel) wbTimerFn() {
	if !k.pdflushOperation(pdKupdate) {
		k.W.After(&k.pd.wbTimer, k.W.JiffiesToTime(k.W.HZ()))
	}
}

const (
	pdIdle = iota
	pdStart
	pdLoop
	pdWriting
	pdEnd
	pdDone
)

// resume is __pdflush's loop (mm/pdflush.c, 2.6.30) running my_work->fn: wb_kupdate
// or background_writeout (mm/page-writeback.c, 2.6.30), each a loop of
// writeback_inodes passes of MAX_WRITEBACK_PAGES with congestion_wait when a pass
// wrote less and met congestion or more_io; then the pool management (pdflushDone).
func (t *pdflushThread) resume() {
	k := t.k
	for {
		switch t.pc {
		case pdIdle: // started, or woken without work ("pdflush: bogus wakeup")
			if t.th.YieldCPU() {
				return
			}
			if t.fn == pdNone {
				t.goIdle()
				return
			}
			t.pc = pdStart
		case pdStart:
			t.th.Charge(k.P.Costs.SleepWake) // woken by pdflush_operation
			if t.fn == pdKupdate {           // wb_kupdate
				start := k.W.Jiffies()
				t.nextJif = start + k.W.MsecsToJiffies(int64(k.P.DirtyWritebackCs)*10)
				t.m.olderThanThis = start - k.W.MsecsToJiffies(int64(k.P.DirtyExpireCs)*10)
				t.m.hasOlder = true
				t.nrToWrite = k.G.NrFileDirty + int64(k.nrDirtyInodes())
			} else { // background_writeout(0)
				t.m.hasOlder = false
				t.minPages = 0
			}
			t.pc = pdLoop
		case pdLoop:
			if t.fn == pdKupdate {
				if t.nrToWrite <= 0 {
					t.pc = pdEnd
					continue
				}
			} else {
				t.th.Charge(k.P.Costs.BalanceDirty) // get_dirty_limits
				bg, _ := k.dirtyLimits()
				if k.G.NrFileDirty < bg && t.minPages <= 0 {
					t.pc = pdEnd
					continue
				}
			}
			t.m.wbc = WritebackControl{SyncMode: WBSyncNone, NrToWrite: maxWritebackPages, RangeCyclic: true,
				ForKupdate: t.fn == pdKupdate, ForBackground: t.fn == pdBackground, RangeEnd: longMax}
			t.m.nonblocking, t.m.pdflush = true, true
			t.pc = pdWriting
		case pdWriting:
			if k.writebackInodes(t.th, &t.m) {
				return
			}
			wrote := maxWritebackPages - t.m.wbc.NrToWrite
			t.nrToWrite -= wrote
			t.minPages -= wrote
			t.pc = pdLoop
			if t.m.wbc.NrToWrite > 0 || (t.fn == pdBackground && t.m.wbc.PagesSkipped > 0) {
				// wrote less than expected
				if t.m.congested || t.m.moreIO {
					k.congestionWait(t.th)
					return
				}
				t.pc = pdEnd
				continue
			}
			if t.th.YieldCPU() {
				return
			}
		case pdEnd:
			if t.fn == pdKupdate && k.P.DirtyWritebackCs > 0 {
				next := t.nextJif
				if now := k.W.Jiffies(); next < now+k.W.HZ() {
					next = now + k.W.HZ()
				}
				k.W.At(&k.pd.wbTimer, k.W.JiffiesToTime(next))
			}
			t.pc = pdDone
			if t.th.YieldCPU() {
				return
			}
		case pdDone:
			if !t.pdflushDone() {
				t.goIdle()
			}
			return
		}
	}
}

// pdflushDone is __pdflush's pool management after my_work->fn returned (2.6.30):
// start a thread when no thread has been idle for a second, then exit this one
// when the thread idle longest has slept more than a second. It reports true when
// the thread exited.
func (t *pdflushThread) pdflushDone() bool {
	k, p := t.k, t.k.pd
	now := k.W.Jiffies()
	// thread creation: for how long have there been zero available threads?
	if now > p.lastEmptyJifs+k.W.HZ() && len(p.idle) == 0 && p.nr < maxPdflushThreads {
		k.startOnePdflushThread(true)
	}
	t.fn = pdNone
	// thread destruction: for how long has the sleepiest thread slept?
	if len(p.idle) == 0 || p.nr <= minPdflushThreads {
		return false
	}
	if pdf := p.idle[0]; now > pdf.whenWentToSleep+k.W.HZ() {
		pdf.whenWentToSleep = now // limit exit rate
		p.nr--
		p.stats.Exited++
		t.exited = true
		t.th.Task.Exit()
		return true
	}
	return false
}
