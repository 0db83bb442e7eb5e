package kernel

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// SwWCPTerminateLE0 is Chinner's 2.6.36 fix (commit 546a1924): write_cache_pages stops
// when --nr_to_write <= 0. Off: the 2.6.36-rc1 rule, which only decrements and
// stops while nr_to_write > 0 and so never stops once ->writepage drove it ≤ 0.
var SwWCPTerminateLE0 = declare(Switch{Name: "wcp_terminate_le0", Order: 10,
	Doc:    "write_cache_pages stops at --nr_to_write <= 0 (Chinner's 2.6.36 fix)",
	Models: "write_cache_pages, mm/page-writeback.c v2.6.36",
	Source: "commit 546a1924, " + threadChinner})

var PathWCPNrToWriteLE0 = SwWCPTerminateLE0.path("write_cache_pages.nr_to_write_le0",
	"->writepage calls after which write_cache_pages found nr_to_write <= 0 (2.6.36-rc1 continues, the fix stops)")

// swWbcNonblocking is writeback before 2.6.37 (Wu's "remove wbc->nonblocking"):
// WB_SYNC_NONE writeback only gives up on a busy lock (XFS's ILOCK in
// xfs_map_blocks, a locked buffer) when wbc->nonblocking is set, which only
// 2.6.30's pdflush background writeout did; the per-bdi flusher and the
// dirtiers block on the lock. Off: every WB_SYNC_NONE writeback uses trylocks.
var swWbcNonblocking = declare(Switch{Name: "wbc_nonblocking", Order: 220,
	Doc:    "pre-2.6.37: WB_SYNC_NONE writeback blocks on busy locks unless wbc->nonblocking (2.6.30 pdflush)",
	Models: "wbc->nonblocking users (xfs_map_blocks, write_cache_pages), v2.6.30-v2.6.36",
	Source: "Wu, \"remove wbc->nonblocking\" (2.6.37)"})

var pathLockBlocking = swWbcNonblocking.path("writepage_lock.blocking",
	"WB_SYNC_NONE ->writepage lock decisions that wait (no wbc->nonblocking)")

var pathLockTrylock = swWbcNonblocking.path("writepage_lock.trylock",
	"WB_SYNC_NONE ->writepage lock decisions that trylock")

// PathWCPNrToWriteLE0 counts ->writepage calls write_cache_pages' check found nr_to_write <= 0.

// WritebackCtx is one ->writepages call in progress: the calling thread, the inode,
// its writeback_control and write_cache_pages' cursor (so the call can block in
// submit_bio or wait_on_page_writeback and resume where it stopped).
type WritebackCtx struct {
	K   *Kernel
	Th  *Thread
	In  *Inode
	Wbc WritebackControl

	wcp     wcpCursor
	blocked bool // the last submission blocked the thread
	// nonblocking is wbc->nonblocking (2.6.30 pdflush): stop when the queue is
	// write-congested, setting congested (wbc->encountered_congestion)
	nonblocking, congested bool
	// FSCall is the filesystem's own state of this ->writepages call (its own
	// type, e.g. ext4's cursor and nr_to_write bump); nil when the call starts.
	FSCall any
	// DoneIndexNext makes WalkDirty's done_index the page after the last one it
	// looked up, as ext4's write_cache_pages_da sets it (page->index + 1, v3.1),
	// so the writeback_index a range_cyclic walk leaves is the next page to write;
	// write_cache_pages (v3.2) leaves the last page itself (page->index).
	DoneIndexNext bool
}

// wcpCursor holds write_cache_pages' locals across blocking points.
type wcpCursor struct {
	started        bool
	index, end     int64
	writebackIndex int64 // mapping->writeback_index at entry ("prev offset")
	doneIndex      int64
	cycled, done   bool
	rangeWhole     bool
	tagged         bool
	finished       bool    // WalkDirty: the walk ended; the call returns at its next entry
	towrite        PageSet // PAGECACHE_TAG_TOWRITE
}

// begin is write_cache_pages' entry (v3.2): the range, range_cyclic's start at
// mapping->writeback_index, and for a tagged walk tag_pages_for_writeback.
func (c *wcpCursor) begin(wc *WritebackCtx, tagged bool) {
	in, wbc := wc.In, &wc.Wbc
	*c = wcpCursor{started: true, towrite: c.towrite} // TOWRITE tags outlive a walk, as in the page cache
	if wbc.RangeCyclic {
		c.writebackIndex = in.WritebackIndex
		c.index = c.writebackIndex
		c.cycled = c.index == 0
		c.end = longMax
	} else {
		c.index, c.end = wbc.RangeStart, wbc.RangeEnd
		c.rangeWhole = wbc.RangeStart == 0 && wbc.RangeEnd == longMax
		c.cycled = true
	}
	c.tagged = tagged
	c.retry(in)
}

// wrap is the end of write_cache_pages' walk: once around to the start of the file
// for range_cyclic (true: walk on), else the writeback_index update (false).
func (c *wcpCursor) wrap(wc *WritebackCtx) bool {
	if !c.cycled && !c.done {
		c.cycled = true
		c.index, c.end = 0, c.writebackIndex-1
		c.retry(wc.In)
		return true
	}
	if wc.Wbc.RangeCyclic || (c.rangeWhole && wc.Wbc.NrToWrite > 0) {
		wc.In.WritebackIndex = max(c.doneIndex, 0)
	}
	return false
}

// integrityTagged reports whether write_cache_pages (v3.2) looks pages up by
// PAGECACHE_TAG_TOWRITE: WB_SYNC_ALL and tagged_writepages walks.
func (wc *WritebackCtx) integrityTagged() bool {
	return wc.Wbc.SyncMode == WBSyncAll || wc.Wbc.TaggedWritepages
}

// WalkStep is the body of a filesystem's page walk: it writes from the dirty run
// [s, e) (dirty, not under writeback, TOWRITE-tagged in a tagged walk) and returns
// the pages it consumed (≥ 1) and whether the walk is done. A step that put the
// thread to sleep before it wrote anything (a journal handle's start) returns
// consumed < 0: the walk returns blocked and resumes at s when the thread wakes.
type WalkStep func(s, e int64) (consumed int64, done bool)

// WalkDirty is the page walk the filesystems' own copies of write_cache_pages
// share: ext4's write_cache_pages_da (v3.2), btrfs's extent_write_cache_pages and
// XFS's batched 2.6.36-rc1 steady state. It is write_cache_pages' walk (v3.2)
// with step as the per-page body: the range and range_cyclic wrap, PageWriteback
// skipped for WB_SYNC_NONE and waited on (wait_on_page_writeback) otherwise, the
// writeback_index update, and with tagged the PAGECACHE_TAG_TOWRITE lookup of
// integrity walks (WB_SYNC_ALL, tagged_writepages). It reports true when the thread
// blocked (call again on resume) and false when the walk has ended; WalkDone tells
// whether it has ended even when the last step blocked.
func (wc *WritebackCtx) WalkDirty(tagged bool, step WalkStep) bool {
	in, wbc, c, th := wc.In, &wc.Wbc, &wc.wcp, wc.Th
	if c.finished {
		return false
	}
	if !c.started {
		c.begin(wc, tagged && wc.integrityTagged())
	}
	for {
		for !c.done && c.index <= c.end {
			run, ok := c.nextRun(in)
			if !ok {
				break
			}
			s, e := run.Start, run.End
			if wb, ok := in.Writeback.Next(s); ok && wb.Start < e {
				if wb.Start == s {
					if wbc.SyncMode == WBSyncNone {
						c.index = min(e, wb.End) // PageWriteback: skip
						c.doneIndex = c.index - wc.doneBack()
						continue
					}
					th.Sub.FlushPlug() // schedule() flushes a sleeping task's plug
					th.SleepFor(WaitPageWriteback)
					th.Task.Wait(&in.wbWait) // wait_on_page_writeback
					return true
				}
				e = wb.Start
			}
			n, done := step(s, e)
			if n < 0 {
				return true // asleep before the step wrote: resume at s
			}
			c.index = s + max(n, 1)
			c.doneIndex = c.index - wc.doneBack()
			if wc.nonblocking && in.bdi.Q.Congested(devices.Write) && !done {
				// 2.6.30: the walk's next write_cache_pages call (ext4 makes one per
				// extent) or its next page finds the queue congested
				wc.congested, done = true, true
			}
			if done {
				c.done = true
				c.wrap(wc)
				c.finished = true
			}
			if th.Sub.Blocked() || th.YieldCPU() {
				return true
			}
		}
		if c.wrap(wc) {
			continue
		}
		break
	}
	c.finished = true
	return false
}

// doneBack is how far WalkDirty's done_index lies behind its cursor: 1 for
// write_cache_pages' page->index, 0 for write_cache_pages_da's page->index + 1.
func (wc *WritebackCtx) doneBack() int64 {
	if wc.DoneIndexNext {
		return 0
	}
	return 1
}

// WalkDone reports whether wc's WalkDirty walk has ended.
func (wc *WritebackCtx) WalkDone() bool { return wc.wcp.finished }

// WalkStarted reports whether wc's WalkDirty walk has begun (a resumed call).
func (wc *WritebackCtx) WalkStarted() bool { return wc.wcp.started }

// TryLocks reports whether ->writepage gives up on a busy lock rather than waiting
// for it: WB_SYNC_NONE writeback, and before 2.6.37 (switch wbc_nonblocking) only
// with wbc->nonblocking set.
func (wc *WritebackCtx) TryLocks() bool {
	if wc.Wbc.SyncMode != WBSyncNone {
		return false
	}
	if wc.K.on(swWbcNonblocking) && !wc.nonblocking {
		wc.K.Fired(pathLockBlocking)
		return false
	}
	wc.K.Fired(pathLockTrylock)
	return true
}

// SetNonblocking sets wbc->nonblocking (2.6.30's pdflush background writeout).
func (wc *WritebackCtx) SetNonblocking(on bool) { wc.nonblocking = on }

// maxBatchPages bounds the pages handled per step so CPU time and submissions
// interleave like the kernel's per-page loop (one 512 KiB request's worth).
const maxBatchPages = 128

// WritePages starts writeback of the dirty pages [index, index+n) of wc's inode and
// submits them: clear_page_dirty_for_io + set_page_writeback + submit_bio. The pages
// must be dirty and not under writeback. If the block layer blocks the thread,
// wc remembers it and the caller must return (blocked) after finishing its step.
func (wc *WritebackCtx) WritePages(index, n int64) {
	if wc.In.bdi.Q.Submit(wc.Th.Sub, wc.StartWriteback(index, n)) {
		wc.blocked = true
	}
}

// StartWriteback is WritePages without the submission: clear_page_dirty_for_io and
// set_page_writeback for the dirty pages [index, index+n) of wc's inode, and the
// bio that carries them, for the filesystem to submit later from another thread
// (btrfs's checksumming workers, btrfs_wq_submit_bio). Its completion is the
// kernel's (end_page_writeback).
func (wc *WritebackCtx) StartWriteback(index, n int64) devices.Bio {
	k, in := wc.K, wc.In
	removed := in.Dirty.Remove(index, n)
	in.Writeback.Add(index, n)
	k.G.NrFileDirty -= removed
	in.bdi.Stats.Reclaimable -= removed
	k.G.NrWriteback += n
	in.bdi.Stats.Writeback += n
	wc.Th.Stats.PagesSubmitted += n
	if wc.wcp.tagged {
		wc.wcp.towrite.Remove(index, n)
	}
	return devices.Bio{Sector: in.bdi.FS.Sector(in, index), Pages: n, Op: devices.Write, Flags: wc.WriteFlags(),
		Owner: k, Cookie: in.Ino, Index: index}
}

// WriteFlags is wbc_to_write_flags (v4.10+): WB_SYNC_ALL → REQ_SYNC, kupdate and
// background writeback → REQ_BACKGROUND.
func (wc *WritebackCtx) WriteFlags() devices.Flags {
	var flags devices.Flags
	if wc.Wbc.SyncMode == WBSyncAll {
		flags |= devices.FlagSync
	}
	if wc.Wbc.ForKupdate || wc.Wbc.ForBackground {
		flags |= devices.FlagBackground
	}
	return flags
}

// RedirtyPageForWritepage is redirty_page_for_writepage: the fs could not write
// the page now; it stays dirty and wbc.pages_skipped counts it.
func (wc *WritebackCtx) RedirtyPageForWritepage(n int64) { wc.Wbc.PagesSkipped += n }

// EndWritebackNoIO is ->writepage on the dirty pages [index, index+n) of wc's
// inode when none of their buffers goes out (__block_write_full_page, v3.1, with
// nr_underway == 0): clear_page_dirty_for_io, set_page_writeback and at once
// end_page_writeback, whose test_clear_page_writeback counts the pages in
// NR_WRITTEN and BDI_WRITTEN (and the writeout fraction) as if written. With
// redirty a WB_SYNC_NONE trylock_buffer failed on each page (another writer
// holds the buffer): redirty_page_for_writepage counts pages_skipped and
// __set_page_dirty_nobuffers dirties the page again, so account_page_dirtied
// counts it once more in NR_DIRTIED and BDI_DIRTIED (v3.2) and the page stays
// dirty. Without redirty the buffers were clean (written by someone else with
// submit_bh) and the pages are clean now.
func (wc *WritebackCtx) EndWritebackNoIO(index, n int64, redirty bool) {
	k, in := wc.K, wc.In
	b := in.bdi
	if redirty {
		wc.Wbc.PagesSkipped += n
		k.accountDirtied(wc.Th, in, n)
		k.markInodeDirty(in, IDirtyPages)
	} else {
		removed := in.Dirty.Remove(index, n)
		k.G.NrFileDirty -= removed
		b.Stats.Reclaimable -= removed
		if wc.wcp.tagged {
			wc.wcp.towrite.Remove(index, n)
		}
	}
	k.accountWritten(in, n)
	if k.mm != nil {
		k.rotateReclaimable(in, index, n)
	}
}

// WaitOn puts wc's thread to sleep on q inside ->writepage (lock_buffer on a
// buffer another writer holds: WB_SYNC_ALL, or pre-2.6.37 writeback without
// wbc->nonblocking); the walk returns blocked and resumes when q wakes it. The
// task's plug is flushed first, as schedule() does.
func (wc *WritebackCtx) WaitOn(q *sim.WaitQueue) {
	wc.Th.Sub.FlushPlug()
	wc.Th.Task.Wait(q)
	wc.blocked = true
}

// WaitOnWriteback is wait_on_page_writeback for a thread outside write_cache_pages
// (a journal waiting on its transaction's pages): th sleeps until some of in's
// writeback ends.
func (in *Inode) WaitOnWriteback(th *Thread) {
	th.SleepFor(WaitPageWriteback)
	th.Task.Wait(&in.wbWait)
}

// nextRun finds the next run of pages write_cache_pages would look up from the
// cursor: dirty (and TOWRITE-tagged for integrity writeback), within the range.
func (c *wcpCursor) nextRun(in *Inode) (PageRun, bool) {
	if !c.tagged {
		r, ok := in.Dirty.Next(c.index)
		if !ok || r.Start > c.end {
			return PageRun{}, false
		}
		r.End = min(r.End, c.endExcl())
		return r, true
	}
	for {
		t, ok := c.towrite.Next(c.index)
		if !ok || t.Start > c.end {
			return PageRun{}, false
		}
		d, ok := in.Dirty.Next(t.Start)
		if ok && d.Start < t.End {
			return PageRun{d.Start, min(t.End, d.End, c.endExcl())}, true
		}
		// tagged pages no longer dirty: written by someone else
		stop := t.End
		if ok {
			stop = min(stop, d.Start)
		}
		c.towrite.Remove(t.Start, stop-t.Start)
	}
}

// endExcl is the exclusive end of the range, without overflowing at LLONG_MAX.
func (c *wcpCursor) endExcl() int64 {
	if c.end == longMax {
		return longMax
	}
	return c.end + 1
}

// retry is write_cache_pages' "retry:" label: tag the range for integrity writeback.
func (c *wcpCursor) retry(in *Inode) {
	if c.tagged {
		c.towrite.CopyRange(&in.Dirty, c.index, c.endExcl()) // tag_pages_for_writeback
	}
	c.doneIndex = c.index
}

// callsBeforeStop is how many consecutive one-page ->writepage calls write_cache_pages
// makes before its nr_to_write check ends the loop (WB_SYNC_NONE), with the kernel's
// termination rule: Chinner's fix stops at --nr_to_write <= 0; 2.6.36-rc1 only
// decrements and stops while nr_to_write > 0, so it never stops once nr_to_write ≤ 0.
func (k *Kernel) callsBeforeStop(nr int64) int64 {
	if nr > 0 {
		return nr
	}
	if k.on(SwWCPTerminateLE0) {
		return 1
	}
	return longMax
}

// afterWritepageCalls applies write_cache_pages' per-call nr_to_write decrement and
// check for n calls (the first n-1 of which cannot have stopped the loop).
func (wc *WritebackCtx) afterWritepageCalls(n int64) {
	wbc, c := &wc.Wbc, &wc.wcp
	if wbc.NrToWrite <= 0 && wbc.SyncMode == WBSyncNone {
		// ->writepage drove nr_to_write <= 0 (clustering): the two termination rules differ
		if wc.K.on(SwWCPTerminateLE0) {
			wc.K.Fired(PathWCPNrToWriteLE0)
		} else {
			wc.K.FiredN(PathWCPNrToWriteLE0, n)
		}
	}
	if wc.K.on(SwWCPTerminateLE0) {
		wbc.NrToWrite -= n
		if wbc.NrToWrite <= 0 && wbc.SyncMode == WBSyncNone {
			c.done = true
		}
		return
	}
	if wbc.NrToWrite > 0 {
		d := min(n, wbc.NrToWrite)
		wbc.NrToWrite -= d
		if wbc.NrToWrite == 0 && wbc.SyncMode == WBSyncNone {
			c.done = true
		}
	}
}

// WriteCachePages is write_cache_pages (v3.2) driving the filesystem's ->writepage,
// computed over runs of pages. It reports true when the thread blocked; call it again
// when the thread resumes.
func (wc *WritebackCtx) WriteCachePages() bool {
	k, in, wbc, c, th := wc.K, wc.In, &wc.Wbc, &wc.wcp, wc.Th
	if !c.started {
		c.begin(wc, wc.integrityTagged())
	}
	fs, q := in.bdi.FS, in.bdi.Q
	onePage := in.bdi.onePage
	for {
		for !c.done && c.index <= c.end {
			run, ok := c.nextRun(in)
			if !ok {
				break
			}
			s, e := run.Start, run.End
			if wb, ok := in.Writeback.Next(s); ok && wb.Start < e {
				if wb.Start == s {
					if wbc.SyncMode == WBSyncNone {
						c.index = min(e, wb.End) // PageWriteback: skip
						c.doneIndex = c.index - 1
						continue
					}
					th.Sub.FlushPlug() // schedule() flushes a sleeping task's plug
					th.SleepFor(WaitPageWriteback)
					th.Task.Wait(&in.wbWait) // wait_on_page_writeback
					return true
				}
				e = wb.Start
			}
			c.doneIndex = s
			if onePage != nil {
				n := e - s
				if wbc.SyncMode == WBSyncNone {
					n = min(n, k.callsBeforeStop(wbc.NrToWrite))
				}
				n = min(n, maxBatchPages)
				io := true
				if sp, ok := onePage.(WritepageRunSplitter); ok {
					n, io = sp.WritepageRunIO(wc, s, n)
				}
				if io {
					room := q.Room(th.Sub, devices.Bio{Sector: fs.Sector(in, s), Op: devices.Write, Flags: wc.WriteFlags()})
					if room > 0 || !th.Sub.Plugged() {
						// stop where the next page would wait for a request
						n = max(1, min(n, room))
					}
					// else a plugged task's next pages merge into the plug request the
					// page it waits for gets (blk_attempt_plug_merge comes before
					// get_request/wbt_wait): the run goes out as one blocked submission
				}
				if k.Tracing() {
					wc.TraceWritepage(n)
				}
				onePage.WritepageRun(wc, s, n)
				wc.afterWritepageCalls(n)
				c.index = s + n
				c.doneIndex = s + n - 1
			} else {
				if k.Tracing() {
					wc.TraceWritepage(1)
				}
				written := fs.Writepage(wc, s, e)
				wc.afterWritepageCalls(1)
				c.index = s + max(written, 1)
			}
			if wc.nonblocking && q.Congested(devices.Write) {
				wc.congested, c.done = true, true
			}
			if wc.blocked {
				wc.blocked = false
				return true
			}
			if th.YieldCPU() {
				return true
			}
		}
		if c.wrap(wc) {
			continue
		}
		break
	}
	c.started = false
	return false
}

// TraceWritepage emits the wbc_writepage lines of calls consecutive ->writepage
// calls (for filesystems that run their own write_cache_pages-like loop).
func (wc *WritebackCtx) TraceWritepage(calls int64) {
	nr := wc.Wbc.NrToWrite
	for i := int64(0); i < calls; i++ {
		wc.traceWritepage(wc.K.W.Now(), nr)
		if wc.K.on(SwWCPTerminateLE0) || nr > 0 {
			nr--
		}
	}
}

// TraceWritepageAt emits the wbc_writepage line of one ->writepage call that starts
// off after now (a call of a batch computed in one step), with the current wbc.
func (wc *WritebackCtx) TraceWritepageAt(off sim.Time) {
	wc.traceWritepage(wc.K.W.Now()+off, wc.Wbc.NrToWrite)
}

// traceWritepage emits wbc_writepage with towrt nr; the range is in bytes
// (range_end LLONG_MAX for the whole file).
func (wc *WritebackCtx) traceWritepage(t sim.Time, nr int64) {
	wbc := &wc.Wbc
	end := longMax
	if wbc.RangeEnd != longMax {
		end = (wbc.RangeEnd+1)*PageSize - 1
	}
	wc.K.traceAt(wc.Th, t, tracepoint.Writepage{Bdi: wc.In.bdi.Name, NrToWrite: nr, PagesSkipped: wbc.PagesSkipped,
		SyncMode: int(wbc.SyncMode), Kupdate: wbc.ForKupdate, Background: wbc.ForBackground, Reclaim: wbc.ForReclaim,
		RangeCyclic: wbc.RangeCyclic, RangeStart: wbc.RangeStart * PageSize, RangeEnd: end})
}
