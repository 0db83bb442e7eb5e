package fs

import (
	"slices"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// swExt4WritebackBump is ext4_da_writepages' nr_to_write bump of 2.6.32-3.x
// (s_max_writeback_mb_bump: up to 128 MB of contiguous dirty pages, given back at
// exit). Off: 2.6.30's ext4_da_writepages, which only raises nr_to_write to
// s_mb_stream_request (16 pages) and keeps the bump (fs/ext4/inode.c of 2.6.30).
var swExt4WritebackBump = kernel.DeclareSwitch(kernel.Switch{Name: "ext4_writeback_bump", Order: 30,
	Doc:    "ext4_da_writepages raises nr_to_write to 128 MB of contiguous dirty pages (2.6.32+); off: 16 pages (2.6.30)",
	Models: "ext4_da_writepages, fs/ext4/inode.c v2.6.32+ (off: v2.6.30 s_mb_stream_request raise)",
	Source: "ext4 in 2.6.32 (larger contiguous ext4_da_writepages chunks); off in the 2.6.30 presets of axboe-2009-per-bdi-flusher-threads.txt"})

var pathExt4NrToWriteRaise = swExt4WritebackBump.DeclarePath("ext4_da_writepages.nr_to_write_raise",
	"ext4_da_writepages calls that raised nr_to_write (the 128 MB bump, or 2.6.30's s_mb_stream_request)")

// swJbd2CompleteTransaction is 6.1's ext4_sync_file → jbd2_complete_transaction:
// the fsync waits for the transaction that holds the inode's last change
// (i_sync_tid): nothing if it has committed, the commit in progress if it is
// that one, else it asks for the running transaction's commit. Off: v3.x's
// ext3-style wait for a commit that starts after the call.
var swJbd2CompleteTransaction = kernel.DeclareSwitch(kernel.Switch{Name: "jbd2_complete_transaction", Order: 31,
	Doc:    "ext4 fsync waits for the inode's transaction (i_sync_tid): none if committed, the running commit if it holds it (off: a commit started after the call)",
	Models: "ext4_sync_file, ext4_fsync_journal, jbd2_complete_transaction, fs/ext4/fsync.c and fs/jbd2/journal.c v6.1",
	Source: "Linux 6.1.192 fs/ext4/fsync.c, fs/jbd2/journal.c; docs/linux-6.12-notes.md"})

// swJbd2WaitUpdates is jbd2_journal_commit_transaction's wait for t_updates == 0
// (jbd2_journal_wait_updates, 6.1): the commit locks the transaction and waits
// for every open handle, and ext4_writepages holds its handle across
// mpage_map_and_submit_extent, whose bio submissions sleep in wbt or for a tag;
// the transaction is switched (T_FLUSH, new handles join the next) once they are
// closed. Off: v3.x's model, with no handle wait.
var swJbd2WaitUpdates = kernel.DeclareSwitch(kernel.Switch{Name: "jbd2_wait_updates", Order: 32,
	Doc:    "jbd2 commit waits for the open handles (t_updates == 0), writeback's held across its blocked bio submissions (off: no handle wait)",
	Models: "jbd2_journal_commit_transaction, jbd2_journal_wait_updates, ext4_writepages (handle around mpage_map_and_submit_extent), v6.1",
	Source: "Linux 6.1.192 fs/jbd2/commit.c, fs/ext4/inode.c; docs/linux-6.12-notes.md"})

// swJbd2ReqIdle is JBD2_JOURNAL_REQ_FLAGS (6.1, include/linux/jbd2.h): the
// commit's descriptor, metadata and commit-block writes carry REQ_META |
// REQ_SYNC | REQ_IDLE, which blk-wbt does not throttle (wbt_should_throttle).
// Off: REQ_SYNC | REQ_META, throttled at wbt's normal limit.
var swJbd2ReqIdle = kernel.DeclareSwitch(kernel.Switch{Name: "jbd2_req_idle", Order: 33,
	Doc:    "jbd2's log writes carry REQ_SYNC|REQ_IDLE|REQ_META and bypass blk-wbt (off: REQ_SYNC|REQ_META, wbt-throttled)",
	Models: "JBD2_JOURNAL_REQ_FLAGS, jbd2_journal_commit_transaction, journal_submit_commit_record, v6.1; wbt_should_throttle",
	Source: "Linux 6.1.192 include/linux/jbd2.h, fs/jbd2/commit.c, block/blk-wbt.c"})

// swExt4WriteHandleWait is write()'s jbd2 handle in 6.1: ext4_da_write_end
// marks the inode dirty (and file_update_time updates mtime) through
// ext4_dirty_inode, which starts a handle (ext4_journal_start → start_this_handle);
// while the committing transaction is T_LOCKED, waiting for its open handles,
// wait_transaction_locked puts the writer to sleep until it is switched. With
// jbd2_wait_updates the lock lasts while the flusher's writeback handle sleeps in
// its bio submission. Off: the v3.x model's ext4 writer never waits on the journal.
var swExt4WriteHandleWait = kernel.DeclareSwitch(kernel.Switch{Name: "ext4_write_handle_wait", Order: 34,
	Doc:    "ext4 write() waits in start_this_handle while the committing transaction is T_LOCKED (off: the writer never waits on jbd2)",
	Models: "ext4_da_write_end, ext4_dirty_inode, start_this_handle, wait_transaction_locked, v6.1",
	Source: "Linux 6.1.192 fs/ext4/inode.c, fs/jbd2/transaction.c"})

var pathExt4WriteHandleWait = swExt4WriteHandleWait.DeclarePath("start_this_handle.wait_locked",
	"write()s that slept in start_this_handle behind a T_LOCKED transaction")

var (
	pathJbd2AlreadyCommitted = swJbd2CompleteTransaction.DeclarePath("jbd2_complete_transaction.committed",
		"ext4 fsyncs whose inode's transaction had already committed: no wait")
	pathJbd2JoinCommitting = swJbd2CompleteTransaction.DeclarePath("jbd2_complete_transaction.committing",
		"ext4 fsyncs whose inode's transaction was the one committing: they waited for it")
	pathJbd2ReqIdle = swJbd2ReqIdle.DeclarePath("jbd2_log_write.req_idle",
		"jbd2 log writes (descriptor, metadata, commit block) submitted REQ_SYNC|REQ_IDLE, past blk-wbt")
	pathJbd2HandleWait = swJbd2WaitUpdates.DeclarePath("jbd2_journal_wait_updates.handle_open",
		"jbd2 commit checks that found a handle open (a writeback handle sleeping in bio submission)")
	pathJbd2WritebackLocked = swJbd2WaitUpdates.DeclarePath("start_this_handle.writeback_wait_locked",
		"ext4_writepages handle starts that slept behind a T_LOCKED transaction (add_transaction_credits)")
)

// Ext4Params are ext4's tunables (v3.2, default mount: delalloc, data=ordered, jbd2).
type Ext4Params struct {
	// MaxWritebackMBBump is s_max_writeback_mb_bump (128): ext4_da_writepages raises
	// nr_to_write up to this many MB of contiguous dirty pages.
	MaxWritebackMBBump int64
	// MbStreamRequest is s_mb_stream_request (16 pages, mballoc's stream threshold):
	// 2.6.30's ext4_da_writepages raises a smaller nr_to_write to it.
	MbStreamRequest int64
	// MaxExtentPages is the most blocks mballoc allocates for one extent (2048 =
	// 8 MB); ext4_da_writepages maps and submits at most one extent per journal handle.
	MaxExtentPages int64
	// HandleCost is the CPU time of one ext4_journal_start/stop pair plus
	// ext4_map_blocks allocating one extent (mballoc, extent tree, bitmaps).
	HandleCost sim.Time
	// WriteBeginCost is the delalloc write path per newly dirtied page
	// (ext4_da_write_begin/ext4_da_write_end): a jbd2 handle start/stop and
	// ext4_da_get_block_prep's extent lookup under i_data_sem plus the delalloc
	// reservation (ext4_da_reserve_space: quota, per-CPU free-block counters). An
	// estimate of the same order as XFS's DelallocCost; no thread's figure pins it.
	WriteBeginCost sim.Time
	// PageCost is write_cache_pages_da's per-page work (lock, buffer walk,
	// mpage_add_bh_to_extent, set_page_writeback) plus building the bio.
	PageCost sim.Time
	// CommitInterval is the jbd2 commit interval (JBD2_DEFAULT_MAX_COMMIT_AGE, 5 s).
	CommitInterval sim.Time
	// JournalMB is the journal size (mke2fs default 128 MB for this disk size); the
	// journal sits in the middle of the filesystem (JournalSector).
	JournalMB int64
	// JournalSector is where the journal starts on the device; 0 is the middle of
	// the device (mke2fs's placement).
	JournalSector int64
	// MetaBlocksPerExtent is how many metadata blocks one extent allocation logs
	// (block bitmap, group descriptor, extent tree leaf / inode).
	MetaBlocksPerExtent int64
	// Layout is the block allocator: mballoc's per-inode preallocation windows.
	Layout Layout
}

// DefaultExt4Params returns v3.2 ext4 defaults on a 500 GB disk.
func DefaultExt4Params() Ext4Params {
	return Ext4Params{
		MaxWritebackMBBump:  128,
		MbStreamRequest:     16,
		MaxExtentPages:      2048,
		HandleCost:          6 * sim.Microsecond,
		WriteBeginCost:      2 * sim.Microsecond,
		PageCost:            1500 * sim.Nanosecond,
		CommitInterval:      5 * sim.Second,
		JournalMB:           128,
		MetaBlocksPerExtent: 3,
		// mballoc normalises a large file's request to an 8 MB inode preallocation
		Layout: Layout{StartSector: 2048 * 8, MinWindowPages: 2048, MaxWindowPages: 2048},
	}
}

// Ext4 is ext4 with delalloc and jbd2 (v3.2):
//   - write() only reserves blocks (delalloc); blocks are allocated at writeback,
//     one extent (≤ MaxExtentPages) per journal handle, from the inode's mballoc
//     preallocation window;
//   - ext4_da_writepages bumps nr_to_write up to MaxWritebackMBBump of contiguous dirty
//     pages and gives the bump back at exit, so the caller sees only its own budget
//     consumed (or over-consumed); before 2.6.32 (switch ext4_writeback_bump off) it
//     only raises nr_to_write to MbStreamRequest;
//   - allocation changes i_disksize and the extent tree and marks the inode
//     I_DIRTY_SYNC under I_SYNC (dquot_claim_block); writeback_single_inode clears
//     that before ->write_inode, which in WB_SYNC_NONE returns at once (the inode
//     is in the running jbd2 transaction) without dirtying it again;
//   - a jbd2 thread commits every CommitInterval: with delalloc little data is
//     pending, so it writes the logged metadata blocks and a commit block
//     (WRITE_SYNC | META, FUA for the commit block with barriers on).
type Ext4 struct {
	P Ext4Params
	k *kernel.Kernel
	j *journal

	calls callPool[ext4Call]
	// Bumps counts ext4_da_writepages calls that raised nr_to_write.
	Bumps int64
	full  kernel.SpaceFull
	// holders are the tasks sleeping in a bio submission with a handle open
	holders []*kernel.Thread
	// writeHandleWait is ext4_write_handle_wait
	writeHandleWait bool
}

type ext4Inode struct {
	m fileMap
	// syncTid is i_sync_tid: the transaction of the inode's last change
	// (ext4_update_inode_fsync_trans)
	syncTid int64
}

// NewExt4 returns ext4 with default parameters.
func NewExt4() *Ext4 { return &Ext4{P: DefaultExt4Params()} }

func (e *Ext4) Name() string { return "ext4" }

func (e *Ext4) Mount(k *kernel.Kernel, b *kernel.BDI) error {
	e.P.Layout.EndSector = deviceEnd(b)
	e.k = k
	e.j = newJournal(k, b, "jbd2/sda1-8", e.P.CommitInterval, journalSector(b, e.P.JournalSector), e.P.JournalMB<<8, true)
	e.j.reqIdle = k.P.Variants.On(swJbd2ReqIdle)
	e.writeHandleWait = k.P.Variants.On(swExt4WriteHandleWait)
	if k.P.Variants.On(swJbd2WaitUpdates) {
		e.j.handlesOpen = e.handlesOpen
	}
	l := &e.P.Layout
	l.Holes = []Hole{{e.j.start, e.j.start + e.j.len*devices.PageSectors}}
	l.Blocks, l.Delalloc = ext2Blocks(l), true
	return nil
}

// WriteRoom is kernel.SpaceReserver: ext4_da_write_begin → ext4_da_get_block_prep
// → ext4_da_reserve_space (v3.1) reserves one block per new delalloc page with
// ext4_claim_free_blocks, which lets root (the harness's dd) use the reserved
// blocks: free is the free-block count less what is reserved and not yet
// allocated (s_dirtyblocks_counter). A failed claim forces a jbd2 commit and
// retries (ext4_should_retry_alloc), which frees nothing here (no file is
// deleted), then the write() fails with ENOSPC. Not modelled: the metadata
// reservation (ext4_calc_metadata_amount; extent blocks live in the journal
// here) and ext4_nonda_switch's fall-back to allocating at write() near full.
func (e *Ext4) WriteRoom(th *kernel.Thread, in *kernel.Inode, index, n int64) int64 {
	room := e.P.Layout.delallocRoom(&in.FS.(*ext4Inode).m, index, n)
	e.full.Note(e.k.W.Now(), room, n)
	return room
}

// FullAt is kernel.SpaceReserver.
func (e *Ext4) FullAt() (sim.Time, bool) { return e.full.At, e.full.Full }

func (e *Ext4) Create(in *kernel.Inode) {
	in.FS = &ext4Inode{}
	e.j.pendingMeta++ // the new inode and directory entry
}

// WriteBegin is ext4_da_write_begin: reserve blocks, no allocation.
// WriteBegin is ext4_da_write_begin/ext4_da_write_end for n newly dirtied pages:
// their CPU (WriteBeginCost each); blocks are only reserved (delalloc).
func (e *Ext4) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n, calls int64) sim.Time {
	e.P.Layout.reserve(&in.FS.(*ext4Inode).m, index+n)
	// the write()'s file_update_time → ext4_dirty_inode logs the inode
	e.touch(in)
	return sim.Time(n) * e.P.WriteBeginCost
}

// numDirtyPages is ext4_num_dirty_pages: contiguous dirty pages from index, up to max.
func numDirtyPages(in *kernel.Inode, index, maxPages int64) int64 {
	n := int64(0)
	for n < maxPages {
		r, ok := in.Dirty.Next(index + n)
		if !ok || r.Start != index+n {
			break
		}
		n += r.End - r.Start
	}
	return min(n, maxPages)
}

// ext4Call is one ext4_da_writepages call in progress: the nr_to_write bump, held
// until it is given back (the walk's cursor is the WritebackCtx's).
type ext4Call struct {
	bump     int64
	bumpHeld bool
}

// Writepages is ext4_da_writepages (v3.2).
func (e *Ext4) Writepages(wc *kernel.WritebackCtx) bool {
	wbc := &wc.Wbc
	// writeback_index is left at the page after the last one written:
	// write_cache_pages_da's done_index (v3.1), index + pages_written (2.6.30),
	// mpd.first_page (v6)
	wc.DoneIndexNext = true
	c, fresh := callState(&e.calls, wc)
	if fresh {
		// the nr_to_write bump
		maxPages := e.P.MaxWritebackMBBump << 8
		desired := int64(0)
		switch {
		case !e.k.P.Variants.On(swExt4WritebackBump):
			// 2.6.30: at least s_mb_stream_request pages; the bump is not given back
			if wbc.NrToWrite < e.P.MbStreamRequest {
				wbc.NrToWrite = e.P.MbStreamRequest
				e.Bumps++
				e.k.Fired(pathExt4NrToWriteRaise)
			}
		case wbc.RangeCyclic:
			desired = numDirtyPages(wc.In, wc.In.WritebackIndex, maxPages)
		case wbc.RangeStart == 0 && wbc.RangeEnd == 1<<63-1 && wbc.NrToWrite != 1<<63-1:
			desired = min(wbc.NrToWrite*8, maxPages) // range_whole, non-cyclic
		}
		if wbc.NrToWrite < desired {
			c.bump = desired - wbc.NrToWrite
			wbc.NrToWrite = desired
			e.Bumps++
			e.k.Fired(pathExt4NrToWriteRaise)
		}
		c.bumpHeld = true
		wc.Th.Sub.StartPlug()
	}
	// write_cache_pages_da (v3.2) looks pages up by PAGECACHE_TAG_TOWRITE for
	// WB_SYNC_ALL and tagged_writepages, after tag_pages_for_writeback
	blocked := wc.WalkDirty(true, func(s, end int64) (int64, bool) { return e.mapAndSubmit(wc, s, end) })
	if wc.WalkDone() && c.bumpHeld {
		// the walk is over (even if its last submission blocked): unplug and give
		// the bump back now, since the caller may not call again
		wc.Th.Sub.FinishPlug()
		wbc.NrToWrite -= c.bump
		c.bump, c.bumpHeld = 0, false
	}
	if !blocked {
		e.calls.end(wc)
	}
	return blocked
}

// mapAndSubmit is one journal handle: write_cache_pages_da collects the contiguous
// run from s, mpage_da_map_and_submit allocates one extent and submits it.
func (e *Ext4) mapAndSubmit(wc *kernel.WritebackCtx, s, end int64) (int64, bool) {
	wbc := &wc.Wbc
	if e.j.handlesOpen != nil && e.j.locked && wc.Th != e.j.th {
		// ext4_journal_start_with_reserve → start_this_handle (6.1): a handle that
		// is not a reserved one may not join a T_LOCKED transaction;
		// add_transaction_credits sleeps in wait_transaction_locked until the
		// commit has switched it (the handle is opened only after that)
		e.k.Fired(pathJbd2WritebackLocked)
		wc.Th.SleepFor(kernel.WaitJournal)
		wc.WaitOn(&e.j.waiters)
		return -1, false
	}
	ei := wc.In.FS.(*ext4Inode)
	n := min(end-s, e.P.MaxExtentPages)
	if wbc.SyncMode == kernel.WBSyncNone {
		n = min(n, max(wbc.NrToWrite, 1))
	}
	if s+n > ei.m.allocEnd {
		if x := e.P.Layout.alloc(&ei.m, s+n); x > 0 {
			e.j.pendingMeta += x * e.P.MetaBlocksPerExtent
		}
		// ext4_map_blocks → ext4_da_update_reserve_space → dquot_claim_block →
		// mark_inode_dirty_sync: I_DIRTY_SYNC while the inode is under I_SYNC
		// (writeback_single_inode clears it again right before ->write_inode)
		e.k.MarkInodeDirty(wc.In, kernel.IDirtySync)
		e.touch(wc.In)
	}
	n = min(n, ei.m.contig(s))
	wc.Th.Charge(e.P.HandleCost + sim.Time(n)*e.P.PageCost + e.k.P.Costs.SubmitBio)
	wc.WritePages(s, n)
	if e.j.handlesOpen != nil && wc.Th.Sub.Blocked() {
		// the submission sleeps with the handle open (ext4_journal_stop follows
		// mpage_map_and_submit_extent)
		e.holders = append(e.holders, wc.Th)
	}
	wbc.NrToWrite -= n
	return n, wbc.NrToWrite <= 0 && wbc.SyncMode == kernel.WBSyncNone
}

func (e *Ext4) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	n, _ := e.mapAndSubmit(wc, index, index+1)
	wbc := &wc.Wbc
	wbc.NrToWrite += n // write_cache_pages counts the call itself
	return n
}

// WriteInode is ext4_write_inode (3.1/3.2, journalled): WB_SYNC_ALL forces a jbd2
// commit; otherwise it returns 0 at once, the inode being in the running
// transaction, and does not dirty it again. The I_DIRTY_SYNC that delalloc
// allocation set during the pass was cleared by writeback_single_inode before this
// call (fs/fs-writeback.c and fs/ext4/inode.c of 3.1.10), so the inode ends the pass
// I_DIRTY only if its writer dirtied it meanwhile.
func (e *Ext4) WriteInode(wc *kernel.WritebackCtx) error {
	e.j.pendingMeta++
	if wc.Wbc.SyncMode == kernel.WBSyncAll {
		e.j.kick()
	}
	return nil
}

// WriteWait is kernel.WriteStaller (ext4_write_handle_wait): a writer's handle
// start waits while the committing transaction is locked (jbd2 itself never waits
// on its own commit).
func (e *Ext4) WriteWait(th *kernel.Thread, in *kernel.Inode) *sim.WaitQueue {
	if !e.writeHandleWait || !e.j.locked || th == e.j.th {
		return nil
	}
	e.k.Fired(pathExt4WriteHandleWait)
	return &e.j.waiters
}

// FsyncCommit is kernel.FsyncCommitter: ext4_sync_file waits for the jbd2 commit
// holding the inode's metadata (jbd2_complete_transaction).
func (e *Ext4) FsyncCommit(th *kernel.Thread, in *kernel.Inode) bool {
	if e.k.P.Variants.On(swJbd2CompleteTransaction) {
		return e.j.completeTransaction(th, in.FS.(*ext4Inode).syncTid)
	}
	return e.j.fsyncWait(th)
}

// touch is ext4_update_inode_fsync_trans: in changed in the running transaction.
func (e *Ext4) touch(in *kernel.Inode) { in.FS.(*ext4Inode).syncTid = e.j.runningTid() }

// handlesOpen is t_updates > 0: a writeback task still sleeps in the bio
// submission of a handle (holders); the ones that woke have closed theirs.
func (e *Ext4) handlesOpen() bool {
	e.holders = slices.DeleteFunc(e.holders, func(th *kernel.Thread) bool { return !th.Sub.Blocked() })
	if len(e.holders) > 0 {
		e.k.Fired(pathJbd2HandleWait)
		return true
	}
	return false
}

func (e *Ext4) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*ext4Inode).m.sector(&e.P.Layout, index)
}

// Journal reports the jbd2 commits and journal pages written.
func (e *Ext4) Journal() (commits, pages int64) { return e.j.Commits, e.j.MetaPages }

func (i *ext4Inode) blockMap() *fileMap { return &i.m }
