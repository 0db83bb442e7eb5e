package kernel

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

// This file is the writeback design before Axboe's per-bdi flusher threads
// (2.6.30, ../shared/threads/axboe-2009-per-bdi-flusher-threads.txt), selected by
// Variants.Pdflush, and the IO-full balance_dirty_pages of 2.6.30-3.1 (Variants.
// IOFullThrottle):
//
//   - writeback_inodes(wbc) / generic_sync_sb_inodes (2.6.30): one pass over the
//     superblock's inodes with a single wbc whose nr_to_write (MAX_WRITEBACK_PAGES for
//     pdflush, sync_writeback_pages() for a dirtier) spans all inodes; nonblocking
//     writeback (pdflush) gives up when the queue is write-congested
//     (encountered_congestion); only one pdflush works a bdi at a time
//     (writeback_acquire / BDI_pdflush);
//   - a pool of MIN_PDFLUSH_THREADS = 2 pdflush threads (the pool grows to 8 when all
//     are busy for a second; not modelled) taking pdflush_operation() requests:
//     wb_kupdate from wb_timer every dirty_writeback_interval, and
//     background_writeout from balance_dirty_pages; a request finding no idle
//     thread fails (wb_timer then retries in a second);
//   - congestion_wait(WRITE, HZ/10): sleep until the queue leaves write congestion
//     or 100 ms pass;
//   - IO-full balance_dirty_pages: over the limit, the dirtier writes back
//     write_chunk pages itself (blocking in get_request_wait), then waits in
//     congestion_wait until it is under the limit or has done its chunk.

// wbInodesM is writeback_inodes(wbc) → generic_sync_sb_inodes (2.6.30, one
// superblock) as a resumable machine.
type wbInodesM struct {
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

// writebackInodes runs m; it reports true when th blocked (call again on resume).
func (k *Kernel) writebackInodes(th *Thread, m *wbInodesM) bool {
	b := k.BDI
	if !m.started {
		m.started, m.start = true, k.W.Jiffies()
		m.congested, m.moreIO = false, false
		if !m.wbc.ForKupdate || b.bIO.n == 0 {
			k.queueIO(th, &WbWritebackWork{olderThanThis: m.olderThanThis, hasOlder: m.hasOlder, Reason: ReasonBackground})
		}
	}
	for {
		if !m.inInode {
			if b.bIO.n == 0 {
				break
			}
			in := b.bIO.tail
			if m.nonblocking && k.Q.Congested(devices.Write) {
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

// congestionWait is congestion_wait(BLK_RW_ASYNC, HZ/10) (2.6.30): th sleeps until
// the queue leaves write congestion (EndIO wakes the queue) or 100 ms pass.
func (k *Kernel) congestionWait(th *Thread) {
	th.Task.WaitTimeout(&k.congestionWQ, k.W.JiffiesToTime(max(k.W.HZ()/10, 1)))
}

// wakeCongestion is clear_bdi_congested's wake-up of congestion_wait sleepers.
func (k *Kernel) wakeCongestion() {
	if k.congestionWQ.Len() > 0 && !k.Q.Congested(devices.Write) {
		k.congestionWQ.WakeAll()
	}
}

// pdflush operations.
const (
	pdNone = iota
	pdKupdate
	pdBackground
)

// pdflushThread is one pdflush thread (mm/pdflush.c, 2.6.30) running wb_kupdate or
// background_writeout.
type pdflushThread struct {
	k  *Kernel
	th *Thread
	op int
	pc int

	m         wbInodesM
	nrToWrite int64 // wb_kupdate's nr_to_write
	minPages  int64 // background_writeout's min_pages
	nextJif   int64
}

const minPdflushThreads = 2 // MIN_PDFLUSH_THREADS

// pdflush is the pool and wb_timer.
type pdflush struct {
	threads []*pdflushThread
	wbTimer sim.Timer
}

func newPdflush(k *Kernel) *pdflush {
	p := &pdflush{}
	for range minPdflushThreads {
		t := &pdflushThread{k: k, th: k.NewThread("pdflush")}
		t.th.Task.Resume = t.resume
		t.th.Task.SleepInterruptible(-1)
		p.threads = append(p.threads, t)
	}
	p.wbTimer.Fn = func() { k.wbTimerFn() }
	if k.P.DirtyWritebackCs > 0 {
		k.W.After(&p.wbTimer, k.W.JiffiesToTime(k.W.MsecsToJiffies(int64(k.P.DirtyWritebackCs)*10)))
	}
	return p
}

// Pdflush lists the pdflush threads (nil for per-bdi kernels).
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

// pdflushOperation is pdflush_operation (2.6.30): hand op to an idle pdflush
// thread; false when all are busy.
func (k *Kernel) pdflushOperation(op int) bool {
	for _, t := range k.pd.threads {
		if t.op == pdNone {
			t.op, t.pc = op, 0
			t.th.Task.Wake()
			return true
		}
	}
	return false
}

// wbTimerFn is wb_timer_fn (2.6.30): start wb_kupdate, or retry in a second when
// every pdflush thread is busy.
func (k *Kernel) wbTimerFn() {
	if !k.pdflushOperation(pdKupdate) {
		k.W.After(&k.pd.wbTimer, k.W.JiffiesToTime(k.W.HZ()))
	}
}

const (
	pdStart = iota
	pdLoop
	pdWriting
	pdEnd
)

func (t *pdflushThread) resume() {
	k := t.k
	for {
		switch t.pc {
		case pdStart:
			if t.op == pdNone {
				t.th.Task.SleepInterruptible(-1)
				return
			}
			if t.op == pdKupdate { // wb_kupdate
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
			if t.op == pdKupdate {
				if t.nrToWrite <= 0 {
					t.pc = pdEnd
					continue
				}
			} else {
				bg, _ := k.dirtyLimits()
				if k.G.NrFileDirty < bg && t.minPages <= 0 {
					t.pc = pdEnd
					continue
				}
			}
			t.m.wbc = WritebackControl{SyncMode: WBSyncNone, NrToWrite: maxWritebackPages, RangeCyclic: true,
				ForKupdate: t.op == pdKupdate, ForBackground: t.op == pdBackground, RangeEnd: longMax}
			t.m.nonblocking, t.m.pdflush = true, true
			t.th.Charge(k.P.Costs.WbLoop)
			t.pc = pdWriting
		case pdWriting:
			if k.writebackInodes(t.th, &t.m) {
				return
			}
			wrote := maxWritebackPages - t.m.wbc.NrToWrite
			t.nrToWrite -= wrote
			t.minPages -= wrote
			t.pc = pdLoop
			if t.m.wbc.NrToWrite > 0 || (t.op == pdBackground && t.m.wbc.PagesSkipped > 0) {
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
			if t.op == pdKupdate && k.P.DirtyWritebackCs > 0 {
				next := t.nextJif
				if now := k.W.Jiffies(); next < now+k.W.HZ() {
					next = now + k.W.HZ()
				}
				k.W.At(&k.pd.wbTimer, k.W.JiffiesToTime(next))
			}
			t.op, t.pc = pdNone, pdStart
			if t.th.YieldCPU() {
				return
			}
		}
	}
}

// balanceDirtyPagesIOFull is balance_dirty_pages of 2.6.30-3.1: over the bdi limit
// the dirtier writes write_chunk pages itself, then waits in congestion_wait until
// it is under the limit or its chunk is done. The returned time is the longest the
// task may stay asleep: when the dirtier's writeback blocked (a full request pool)
// or it entered congestion_wait, th already waits on a queue and the caller's
// sleep turns into a wait with that timeout.
func (k *Kernel) balanceDirtyPagesIOFull(th *Thread, resume bool) sim.Time {
	s := &th.bdp
	b := k.BDI
	writeChunk := k.ratelimitPages + k.ratelimitPages/2 // sync_writeback_pages()
	th.noYield = true
	defer func() { th.noYield = false }()
	if !resume {
		*s = bdpState{active: true}
		th.Charge(k.P.Costs.BalanceDirty)
		th.Stats.BdpCalls++
	}
	for {
		if s.ioFullStage == 1 { // writeback_inodes(&wbc) in the dirtier's context
			if k.writebackInodes(th, &s.m) {
				return k.W.JiffiesToTime(k.W.HZ()) // blocked in get_request_wait
			}
			s.pagesDirtied += writeChunk - s.m.wbc.NrToWrite // pages_written
			s.ioFullStage = 2
		}
		bg, thresh := k.globalDirtyLimits(th)
		bdiThresh := k.bdiDirtyLimit(thresh)
		bdiDirty := b.Stats.Reclaimable + b.Stats.Writeback
		if s.ioFullStage == 0 {
			s.bg = bg
			if bdiDirty <= bdiThresh {
				break
			}
			if k.G.NrFileDirty+k.G.NrWriteback < (bg+thresh)/2 {
				break // throttle only when background writeback cannot catch up
			}
			b.DirtyExceeded = true
			if b.Stats.Reclaimable > 0 {
				s.m = wbInodesM{wbc: WritebackControl{SyncMode: WBSyncNone, NrToWrite: writeChunk, RangeCyclic: true, RangeEnd: longMax}}
				s.ioFullStage = 1
				continue
			}
			s.ioFullStage = 2
		}
		// stage 2: after the dirtier's writeback
		if bdiDirty <= bdiThresh || s.pagesDirtied >= writeChunk {
			break
		}
		s.ioFullStage = 0
		th.Stats.Pauses++
		k.congestionWait(th)
		return k.W.JiffiesToTime(max(k.W.HZ()/10, 1))
	}
	if b.Stats.Reclaimable+b.Stats.Writeback < k.bdiDirtyLimit(k.dirtyLimitsThresh()) && b.DirtyExceeded {
		b.DirtyExceeded = false
	}
	s.active = false
	if b.writebackRunning {
		return 0 // pdflush / the flusher is already working this queue
	}
	if bg, _ := k.dirtyLimits(); k.G.NrFileDirty > bg {
		k.StartBackgroundWriteback()
	}
	return 0
}

func (k *Kernel) dirtyLimitsThresh() int64 { _, t := k.dirtyLimits(); return t }

// balanceDirtyPagesRatelimitedIOFull is balance_dirty_pages_ratelimited_nr
// (2.6.30): a per-CPU count of dirtied pages; ratelimit_pages, or 8 pages while the
// bdi is over its limit.
func (k *Kernel) balanceDirtyPagesRatelimitedIOFull(th *Thread, nr int64) bool {
	ratelimit := k.ratelimitPages
	if k.BDI.DirtyExceeded {
		ratelimit = 8
	}
	th.Stats.Dirtied += nr
	cpu := max(th.Task.CPU, 0) % len(k.bdpRatelimits)
	p := &k.bdpRatelimits[cpu]
	*p += nr
	if *p >= ratelimit {
		*p = 0
		return true
	}
	return false
}
