package fs

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// swExt3JbdBuffers is ext3's own driver with jbd (2.6.x to 4.2; from 4.3 ext3
// mounts go to ext4 with jbd2) as its sources have it: kjournald writes a
// data=ordered commit's data by buffer (journal_submit_data_buffers:
// trylock_buffer, submit_bh, no PG_writeback; the page stays dirty), so
// ->writepage (__block_write_full_page) meets buffers kjournald holds locked,
// which WB_SYNC_NONE writeback skips from 2.6.37 on (redirty_page_for_writepage:
// pages_skipped, NR_DIRTIED again), and buffers it already wrote, which it ends
// under writeback without IO; both count in NR_WRITTEN. No preset has it: with
// it the model's flusher passes over kjournald's locked buffers about once per
// page per commit (many times with Wu 2011's patches 4 and 5), and ext3's
// harness write_bw runs 15-60 % above the thread's (README, "ext3's ordered
// data"). Off: kjournald writes the transaction's data as page writeback.
var swExt3JbdBuffers = kernel.DeclareSwitch(kernel.Switch{Name: "ext3_jbd_buffers", Order: 210,
	Doc:    "ext3's jbd as its sources have it (2.6.x-4.2): kjournald writes ordered data by buffer; ->writepage skips the buffers it holds (pages_skipped) and ends the ones it wrote without IO, both in NR_WRITTEN (no preset: write_bw then runs far above the thread's)",
	Models: "journal_submit_data_buffers, fs/jbd/commit.c; __block_write_full_page, fs/buffer.c; redirty_page_for_writepage, mm/page-writeback.c v3.1",
	Source: "ext3 of 2.6.x-4.2; wu-2011-more_io_wait-thread.txt" + " (T2's ext3 cells)"})

var pathExt3KjournaldBuffers = swExt3JbdBuffers.DeclarePath("ext3_writepage.kjournald_buffers",
	"ext3 ->writepage runs on pages whose buffers kjournald wrote by buffer: still locked (skipped, pages_skipped) or clean (ended under writeback without IO)")

// Ext3Params are ext3's tunables (v3.2 defaults: data=ordered, jbd, barriers on).
type Ext3Params struct {
	// WriteBeginCost is ext3_write_begin + ext3_ordered_write_end per page: a
	// journal handle (journal_start/stop), ext3_get_block mapping or allocating the
	// block, and journal_dirty_data filing the buffer on the running transaction.
	WriteBeginCost sim.Time
	// HandleCost is the journal handle ext3_ordered_writepage starts for a page
	// whose buffers are not all mapped (journal_start, get_block, walk_page_buffers,
	// journal_stop), on top of the generic ->writepage work. A page whose buffers
	// are mapped, as every page dd wrote is (blocks are allocated at write()), goes
	// straight to block_write_full_page without a handle (v3.1).
	HandleCost sim.Time
	// CommitInterval is kjournald's commit interval (JBD_DEFAULT_MAX_COMMIT_AGE,
	// 5 s; the commit= mount option).
	CommitInterval sim.Time
	// JournalMB is the journal size (mke2fs default 128 MB on this disk); it sits
	// at JournalSector, 0 meaning the middle of the device (mke2fs's placement).
	JournalMB     int64
	JournalSector int64
	// CommitDataPages bounds one journal_submit_data_buffers batch (pages per bio
	// run submitted by kjournald before it yields): j_wbufsize, the journal block
	// size over sizeof(journal_block_tag_t), 4096 / 8 = 512 (journal_init_common, v3.1).
	CommitDataPages int64
	// IndirectPerPages: one indirect block is journalled per this many newly
	// allocated blocks (4 KB blocks hold 1024 block numbers).
	IndirectPerPages int64
	// BlocksPerGroup, DescPerBlock and InodesPerBlock are the on-disk geometry
	// that decides which metadata blocks an allocation dirties (mke2fs defaults
	// for 4 KB blocks: 8 * 4096 blocks per group, one block bitmap each; 4096 /
	// 32-byte group descriptors; 4096 / 256-byte inodes).
	BlocksPerGroup, DescPerBlock, InodesPerBlock int64
	// Layout is the block allocator: ext3 block reservation windows, 8 blocks
	// (EXT3_DEFAULT_RESERVE_BLOCKS) doubling while the file fills them, at most
	// EXT3_MAX_RESERVE_BLOCKS (1027); one indirect block inline before every 1024
	// data blocks (GapEvery), written to its home location after the commit that
	// journalled it (checkpoint: kjournald / the block device's writeback).
	Layout Layout
}

// DefaultExt3Params returns v3.2 ext3 defaults on a 500 GB disk.
func DefaultExt3Params() Ext3Params {
	return Ext3Params{
		WriteBeginCost:   1500 * sim.Nanosecond,
		HandleCost:       1200 * sim.Nanosecond,
		CommitInterval:   5 * sim.Second,
		JournalMB:        128,
		CommitDataPages:  512,
		IndirectPerPages: 1024,
		BlocksPerGroup:   32768,
		DescPerBlock:     128,
		InodesPerBlock:   16,
		Layout:           Layout{StartSector: 2048 * 8, MinWindowPages: 8, MaxWindowPages: 1027, GapEvery: 1024},
	}
}

// Ext3 is ext3 with data=ordered (v3.2):
//   - blocks are allocated at write() (WriteBegin: handle + get_block per page, in
//     reservation windows) and the dirtied data joins the running transaction;
//   - kjournald commits every CommitInterval, and when fsync's ->write_inode asks:
//     it writes the transaction's still-dirty data pages itself with WRITE_SYNC (not
//     throttled as background writeback), waits for them, then writes the metadata
//     blocks and the commit block (FUA with barriers);
//   - ->writepage (ext3_ordered_writepage, v3.1) of a page whose buffers are all
//     mapped calls block_write_full_page without a journal handle (only a page
//     with unmapped buffers starts one); ext3 has no ->writepages, so writeback is
//     kernel.WriteCachePages over one-page calls (bios split at extent
//     boundaries);
//   - writers' journal_start waits while the committing transaction is T_LOCKED
//     (WriteWait), which lasts until the open handles stop: dd's handles last
//     from write_begin to write_end, within one step of the model, and the flusher
//     holds none, so the lock ends when the commit starts (kernel-notes §2.4's
//     ~800 ms stalls come from handles held across a wait, which 3.1's dd case
//     does not have);
//   - fsync (ext3_sync_file) forces a commit and waits for it (FsyncCommit).
type Ext3 struct {
	P Ext3Params
	k *kernel.Kernel
	j *journal

	running    []*kernel.Inode // inodes with data in the running transaction
	runSegs    []dataSeg       // the running transaction's t_sync_datalist, in write() order
	comSegs    []dataSeg       // the committing transaction's data list
	committing bool
	ci         int     // committing inode being written
	homeRun    []int64 // inline metadata homes logged in the running transaction
	// logged are the metadata blocks already journalled in the running
	// transaction (jbd files a buffer on t_buffers once: journal_dirty_metadata
	// of a buffer the transaction holds changes nothing more to log)
	logged  map[ext3Meta]struct{}
	tid     int64   // the running transaction's number
	homeCom []int64 // ... in the committing transaction, to checkpoint
	hi      int     // next home write of homeCom
	calls   callPool[ext3Call]

	// by buffer (switch ext3_jbd_buffers, jbd's journal_submit_data_buffers)
	byBuffer  bool
	batch     []dataSeg     // buffers locked and filed BJ_Locked, not yet submitted (wbuf)
	batchLen  int64         // pages in batch
	waitSegs  []dataSeg     // the committing transaction's data list as the commit found it
	wi        int           // next of waitSegs to wait on (t_locked_list)
	waiting   bool          // the data walk is done: waiting for the locked buffers
	bufUnlock sim.WaitQueue // kjournald waiting for its data buffers' IO (wait_on_buffer)

	// statistics
	CommitDataPages int64 // data pages written by kjournald
	// PagesSkipped are ->writepage calls whose trylock_buffer failed on a buffer
	// kjournald held (redirty_page_for_writepage), CleanPages those that found the
	// buffer already written by kjournald (ended under writeback without IO).
	PagesSkipped, CleanPages int64
	Checkpointed             int64 // indirect blocks written to their home location
	Stalls                   int64 // writes that waited behind a locked commit
	full                     kernel.SpaceFull
	// Commits lists each commit's start and the data pages kjournald wrote in it.
	Commits []Ext3Commit
}

// Ext3Commit is one kjournald commit: when it started, the data it wrote, when
// the transaction's data was on disk (the t_locked_list wait ended) and when
// kjournald was done with it (commit block on disk, checkpoint writes submitted).
type Ext3Commit struct {
	At        sim.Time
	DataPages int64
	DataDone  sim.Time
	End       sim.Time
}

// ext3Meta names a metadata block: its kind and which one.
type ext3Meta struct {
	kind uint8
	n    int64
}

// Metadata block kinds dirtied by a write that allocates.
const (
	metaBitmap uint8 = iota // a block group's block bitmap
	metaDesc                // the group descriptor block holding a group's descriptor
	metaInode               // an inode table block
	metaDind                // a file's double-indirect block
)

// logMeta counts metadata block m in the running transaction's log writes unless
// the transaction already holds it.
func (e *Ext3) logMeta(m ext3Meta) {
	if _, ok := e.logged[m]; ok {
		return
	}
	if e.logged == nil {
		e.logged = map[ext3Meta]struct{}{}
	}
	e.logged[m] = struct{}{}
	e.j.pendingMeta++
}

// dataSeg is a stretch of the transaction's data list: pages [lo, hi) of in,
// filed by consecutive write()s of one task.
type dataSeg struct {
	in     *kernel.Inode
	lo, hi int64
}

type ext3Inode struct {
	m              fileMap
	inRun          bool  // the inode has data in the running transaction
	allocSinceMeta int64 // allocated pages not yet covered by a journalled indirect block
	// metaGroup is the block group of the file's last allocated block, whose bitmap
	// and descriptor block the running transaction metaTid has logged
	metaTid, metaGroup int64
	// bufClean are dirty pages whose buffer kjournald has written (submit_bh cleared
	// BH_Dirty; PG_dirty stays until ->writepage meets the page); bufLocked those of
	// them whose buffer kjournald holds locked, from journal_submit_data_buffers'
	// trylock_buffer until end_buffer_write_sync (by-buffer model only).
	bufClean, bufLocked kernel.PageSet
}

// NewExt3 returns ext3 with default parameters.
func NewExt3() *Ext3 { return &Ext3{P: DefaultExt3Params()} }

func (e *Ext3) Name() string { return "ext3" }

func (e *Ext3) Mount(k *kernel.Kernel, b *kernel.BDI) error {
	e.P.Layout.EndSector = deviceEnd(b)
	e.k = k
	e.j = newJournal(k, b, "kjournald", e.P.CommitInterval, journalSector(b, e.P.JournalSector), e.P.JournalMB<<8, true)
	e.j.beforeCommit = e.commitData
	if e.byBuffer = k.P.Variants.On(swExt3JbdBuffers); e.byBuffer {
		e.j.beforeCommit = e.commitDataBuffers
	}
	// T_LOCKED until t_updates drops to zero: no handle outlives a step
	e.j.handlesOpen = func() bool { return false }
	e.j.checkpoint = e.checkpoint
	e.mountSpace()
	return nil
}

// mountSpace makes the journal a hole in the data area and counts the free
// blocks (ext2Blocks).
func (e *Ext3) mountSpace() {
	l := &e.P.Layout
	l.Holes = []Hole{{e.j.start, e.j.start + e.j.len*devices.PageSectors}}
	l.Blocks = ext2Blocks(l)
}

// WriteRoom is kernel.SpaceReserver: ext3_get_block allocates at write() time
// (ext3_write_begin → block_write_begin → ext3_get_blocks_handle →
// ext3_new_blocks, v3.1), data and indirect blocks alike; ext3_has_free_blocks
// lets root (the harness's dd) use the reserved blocks, so a write fails with
// ENOSPC only when no free block is left. The allocation itself is WriteBegin's.
func (e *Ext3) WriteRoom(th *kernel.Thread, in *kernel.Inode, index, n int64) int64 {
	l := &e.P.Layout
	if l.Blocks == 0 {
		return n
	}
	room := l.allocRoom(&in.FS.(*ext3Inode).m, index, n, l.free())
	e.full.Note(e.k.W.Now(), room, n)
	return room
}

// FullAt is kernel.SpaceReserver.
func (e *Ext3) FullAt() (sim.Time, bool) { return e.full.At, e.full.Full }

func (e *Ext3) Create(in *kernel.Inode) {
	in.FS = &ext3Inode{metaTid: -1}
	e.j.pendingMeta++
}

// WriteWait is kernel.WriteStaller: a writer's journal_start waits while the
// commit is locked (kjournald itself never waits on its own commit).
func (e *Ext3) WriteWait(th *kernel.Thread, in *kernel.Inode) *sim.WaitQueue {
	if e.j.locked && th != e.j.th {
		e.Stalls++
		return &e.j.waiters
	}
	return nil
}

// FsyncCommit is kernel.FsyncCommitter: ext3_sync_file forces a commit and waits
// for it (log_start_commit + log_wait_commit).
func (e *Ext3) FsyncCommit(th *kernel.Thread, in *kernel.Inode) bool { return e.j.fsyncWait(th) }

// CommitLocked reports whether the committing transaction is locked (new handles
// would wait in journal_start).
func (e *Ext3) CommitLocked() bool { return e.j.locked }

// WriteBegin allocates the blocks of pages [index, index+n) (ext3_get_block at
// write time) and files them on the running transaction. The metadata the
// allocation dirties is journalled once per transaction (v3.1 ext3_new_blocks:
// the block bitmap and the group descriptor of each block group it allocates in;
// ext3_alloc_branch: each new indirect block, and the double-indirect block that
// points to it; ext3_mark_inode_dirty: the inode's inode table block).
func (e *Ext3) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n, calls int64) sim.Time {
	ei := in.FS.(*ext3Inode)
	if end := index + n; end > ei.m.allocEnd {
		from, prevEnd := ei.m.allocEnd, ei.m.winCur
		ei.allocSinceMeta += end - from
		newWindows := e.P.Layout.alloc(&ei.m, end)
		if g := e.group(ei.m.winCur - 1); newWindows > 0 || ei.metaTid != e.tid || ei.metaGroup != e.group(prevEnd-1) || ei.metaGroup != g {
			// not a contiguous extension inside the group already logged for the file
			e.logGroups(&ei.m, from, end)
			ei.metaTid, ei.metaGroup = e.tid, g
		}
		if ind := ei.allocSinceMeta / e.P.IndirectPerPages; ind > 0 {
			e.j.pendingMeta += ind // new indirect blocks are new buffers
			e.logMeta(ext3Meta{metaDind, int64(in.Ino)<<24 | end/(e.P.IndirectPerPages*e.P.IndirectPerPages)})
		}
		ei.allocSinceMeta %= e.P.IndirectPerPages
		if l := &e.P.Layout; len(l.Gaps) > 0 {
			e.homeRun = append(e.homeRun, l.Gaps...)
			l.Gaps = l.Gaps[:0]
		}
	}
	if e.byBuffer {
		// __block_commit_write: mark_buffer_dirty on the written buffers
		ei.bufClean.Remove(index, n)
	}
	if !ei.inRun {
		ei.inRun = true
		e.running = append(e.running, in)
		e.logMeta(ext3Meta{metaInode, (int64(in.Ino) - 1) / e.P.InodesPerBlock}) // i_size, i_blocks
	}
	// journal_dirty_data files the buffers at the tail of t_sync_datalist: with
	// several writers the list interleaves their files in write() order
	if k := len(e.runSegs); k > 0 && e.runSegs[k-1].in == in && e.runSegs[k-1].hi == index {
		e.runSegs[k-1].hi = index + n
	} else {
		e.runSegs = append(e.runSegs, dataSeg{in, index, index + n})
	}
	return sim.Time(n) * e.P.WriteBeginCost
}

// group is the block group holding sector s.
func (e *Ext3) group(s int64) int64 { return s / (e.P.BlocksPerGroup * devices.PageSectors) }

// logGroups journals the block bitmap and group descriptor block of every block
// group holding the newly allocated pages [from, end) of f (ext3_new_blocks, v3.1).
func (e *Ext3) logGroups(f *fileMap, from, end int64) {
	for i := from; i < end; {
		c := min(end-i, f.contig(i))
		s := f.sector(&e.P.Layout, i)
		for g := e.group(s); g <= e.group(s+c*devices.PageSectors-1); g++ {
			e.logMeta(ext3Meta{metaBitmap, g})
			e.logMeta(ext3Meta{metaDesc, g / e.P.DescPerBlock})
		}
		i += c
	}
}

// commitData is journal_submit_data_buffers (commit phase 2): write the committing
// transaction's still-dirty data with WRITE_SYNC, walking t_sync_datalist in the
// order write() filed the buffers (interleaving the files of several writers; the
// plug and the elevator merge and sort what they can). It reports true when
// kjournald blocked.
func (e *Ext3) commitData() bool {
	if !e.committing {
		e.startCommit()
	}
	th := e.j.th
	for !e.waiting && e.ci < len(e.comSegs) {
		sg := &e.comSegs[e.ci]
		in := sg.in
		ei := in.FS.(*ext3Inode)
		r, ok := in.Dirty.Next(sg.lo)
		if !ok || r.Start >= sg.hi {
			e.ci++
			continue
		}
		s, end := r.Start, min(r.End, sg.hi)
		if wb, ok := in.Writeback.Next(s); ok && wb.Start < end {
			if wb.Start <= s {
				sg.lo = min(end, wb.End) // under writeback by the flusher
				continue
			}
			end = wb.Start
		}
		n := min(end-s, ei.m.contig(s), e.P.CommitDataPages)
		wc := kernel.WritebackCtx{K: e.k, Th: th, In: in, Wbc: kernel.WritebackControl{SyncMode: kernel.WBSyncAll, NrToWrite: n}}
		th.Charge(sim.Time(n)*e.k.P.Costs.Writepage/2 + e.k.P.Costs.SubmitBio)
		wc.WritePages(s, n)
		e.CommitDataPages += n
		e.Commits[len(e.Commits)-1].DataPages += n
		sg.lo = s + n
		if th.Sub.Blocked() || th.YieldCPU() {
			return true
		}
	}
	return e.finishCommitData(th)
}

// finishCommitData ends kjournald's plug and waits for the transaction's data
// (journal_commit_transaction, fs/jbd/commit.c v3.1: the t_locked_list wait before
// the metadata); true while it must wait.
func (e *Ext3) finishCommitData(th *kernel.Thread) bool {
	if !e.waiting {
		th.Sub.FinishPlug()
		e.waiting, e.wi = true, 0
	}
	if e.waitData() {
		return true
	}
	e.endCommitData()
	return false
}

// startCommit switches the running transaction to the committing one (T_FLUSH)
// and starts kjournald's plug (blk_start_plug around the data writes).
func (e *Ext3) startCommit() {
	e.committing = true
	e.comSegs, e.runSegs = e.runSegs, e.comSegs[:0]
	clear(e.logged) // a new running transaction
	e.tid++
	for _, in := range e.running {
		in.FS.(*ext3Inode).inRun = false
	}
	e.running = e.running[:0]
	e.homeCom, e.homeRun, e.hi = append(e.homeCom, e.homeRun...), e.homeRun[:0], 0
	e.waitSegs = append(e.waitSegs[:0], e.comSegs...)
	e.j.th.Sub.StartPlug()
	e.Commits = append(e.Commits, Ext3Commit{At: e.k.W.Now()})
}

// endCommitData ends commit phase 2: the data list is empty.
func (e *Ext3) endCommitData() {
	e.Commits[len(e.Commits)-1].DataDone = e.k.W.Now()
	e.committing, e.ci, e.waiting = false, 0, false
	e.comSegs = e.comSegs[:0]
}

// commitDataBuffers is journal_submit_data_buffers and the t_locked_list wait of
// journal_commit_transaction (fs/jbd/commit.c, v3.1), commit phase 2 by buffer:
// walking t_sync_datalist in the order write() filed the buffers, a dirty buffer
// is locked (trylock_buffer), cleaned (test_clear_buffer_dirty) and filed
// BJ_Locked; every j_wbufsize buffers the batch goes out with submit_bh
// (WRITE_SYNC in 3.1 and 3.2; Kara's later "jbd: Refine commit writeout logic"
// writes async unless someone waits for the commit), which may sleep in
// get_request_wait with the rest of the batch still locked. A buffer
// under the flusher's writeback (locked, clean) is filed BJ_Locked; a clean one
// leaves the list. The pages stay dirty: no PG_writeback, nothing in
// NR_WRITTEN. Then kjournald waits until every BJ_Locked buffer is unlocked
// (wait_on_buffer): its own writes and the flusher's. It reports true when
// kjournald blocked.
func (e *Ext3) commitDataBuffers() bool {
	th := e.j.th
	if !e.committing {
		e.startCommit()
	}
	for !e.waiting && e.ci < len(e.comSegs) {
		sg := &e.comSegs[e.ci]
		ei := sg.in.FS.(*ext3Inode)
		s, n, ok := dirtyBuffers(sg.in, ei, sg.lo, sg.hi)
		if !ok {
			e.ci++
			continue
		}
		n = min(n, e.P.CommitDataPages-e.batchLen, ei.m.contig(s))
		ei.bufLocked.Add(s, n)
		ei.bufClean.Add(s, n)
		th.Charge(sim.Time(n) * e.k.P.Costs.Writepage / 2)
		e.batch = append(e.batch, dataSeg{sg.in, s, s + n})
		e.batchLen += n
		e.CommitDataPages += n
		e.Commits[len(e.Commits)-1].DataPages += n
		sg.lo = s + n
		if e.batchLen == e.P.CommitDataPages {
			// journal_do_submit_data, then "goto write_out_data" (cond_resched)
			if e.submitData() || th.YieldCPU() {
				return true
			}
		}
	}
	if !e.waiting && e.submitData() {
		return true
	}
	return e.finishCommitData(th)
}

// waitData is the t_locked_list wait of journal_commit_transaction (fs/jbd/commit.c,
// v3.1): before the metadata goes to the log, kjournald waits (wait_on_buffer)
// until every data buffer of the transaction that was locked when it passed is
// unlocked: its own writes and those under the flusher's writeback. It reports
// true when kjournald blocked.
func (e *Ext3) waitData() bool {
	th := e.j.th
	for e.wi < len(e.waitSegs) {
		sg := e.waitSegs[e.wi]
		ei := sg.in.FS.(*ext3Inode)
		if ei.bufLocked.CountRange(sg.lo, sg.hi) > 0 {
			th.Task.Wait(&e.bufUnlock) // kjournald's own write
			return true
		}
		if sg.in.Writeback.CountRange(sg.lo, sg.hi) > 0 {
			sg.in.WaitOnWriteback(th) // a page under writeback
			return true
		}
		e.wi++
	}
	return false
}

// dirtyBuffers finds the first run of pages in [lo, hi) of in whose buffers are
// dirty: PG_dirty, not written by kjournald since, not under writeback.
func dirtyBuffers(in *kernel.Inode, ei *ext3Inode, lo, hi int64) (int64, int64, bool) {
	for lo < hi {
		r, ok := in.Dirty.Next(lo)
		if !ok || r.Start >= hi {
			return 0, 0, false
		}
		s, end := r.Start, min(r.End, hi)
		if c, ok := ei.bufClean.Next(s); ok && c.Start < end {
			if c.Start <= s {
				lo = min(end, c.End)
				continue
			}
			end = c.Start
		}
		if wb, ok := in.Writeback.Next(s); ok && wb.Start < end {
			if wb.Start <= s {
				lo = min(end, wb.End)
				continue
			}
			end = wb.Start
		}
		return s, end - s, true
	}
	return 0, 0, false
}

// submitData is journal_do_submit_data: submit_bh for each buffer of the batch
// (contiguous buffers as one run; the plug and the elevator merge them). The
// submissions after one that sleeps in get_request_wait go out in order when it
// wakes. It reports true when kjournald blocked.
func (e *Ext3) submitData() bool {
	th := e.j.th
	blocked := false
	for _, sg := range e.batch {
		ei := sg.in.FS.(*ext3Inode)
		for i := sg.lo; i < sg.hi; {
			c := min(sg.hi-i, ei.m.contig(i))
			th.Charge(e.k.P.Costs.SubmitBio)
			b := devices.Bio{Sector: e.Sector(sg.in, i), Pages: c, Op: devices.Write, Flags: devices.FlagSync,
				Owner: e, Cookie: sg.in.Ino, Index: i}
			if e.j.q.Submit(th.Sub, b) {
				blocked = true
			}
			i += c
		}
	}
	e.batch, e.batchLen = e.batch[:0], 0
	return blocked
}

// WritepageRunIO is kernel.WritepageRunSplitter: under jbd, a run of pages whose
// buffers kjournald holds, or has written, needs no request.
func (e *Ext3) WritepageRunIO(wc *kernel.WritebackCtx, index, n int64) (int64, bool) {
	if !e.byBuffer {
		return n, true
	}
	ei := wc.In.FS.(*ext3Inode)
	c, ok := ei.bufClean.Next(index)
	if !ok || c.Start >= index+n {
		return n, true
	}
	if c.Start > index {
		return c.Start - index, true
	}
	return min(n, c.End-index), false
}

// checkpoint writes the committed transaction's indirect blocks to their homes
// inline in the data (4 KB writes behind the data stream), asynchronously.
func (e *Ext3) checkpoint() bool {
	th := e.j.th
	for e.hi < len(e.homeCom) {
		s := e.homeCom[e.hi]
		e.hi++
		e.Checkpointed++
		if e.j.q.Submit(th.Sub, devices.Bio{Sector: s, Pages: 1, Op: devices.Write, Flags: devices.FlagMeta, Owner: e}) {
			return true
		}
	}
	e.homeCom, e.hi = e.homeCom[:0], 0
	if n := len(e.Commits); n > 0 {
		e.Commits[n-1].End = e.k.W.Now()
	}
	return false
}

// EndIO completes kjournald's writes: a data buffer's end_buffer_write_sync
// unlocks it (cookie is the inode; the page stays dirty); checkpoint writes
// (cookie 0) have no waiter.
func (e *Ext3) EndIO(cookie uint64, index, pages int64, op devices.Op) {
	if cookie == 0 {
		return
	}
	e.k.AddIrqCPU(sim.Time(pages) * e.k.P.Costs.EndIOPage)
	e.k.Inode(cookie).FS.(*ext3Inode).bufLocked.Remove(index, pages)
	e.bufUnlock.WakeAll()
}

// Writepages is ext3's address space without ->writepages (v3.1): do_writepages
// falls back to generic_writepages, which plugs (blk_start_plug) around
// write_cache_pages calling ext3_ordered_writepage once per page (WritepageRun).
func (e *Ext3) Writepages(wc *kernel.WritebackCtx) bool {
	if _, fresh := callState(&e.calls, wc); fresh {
		wc.Th.Sub.StartPlug()
	}
	if wc.WriteCachePages() {
		return true
	}
	wc.Th.Sub.FinishPlug()
	e.calls.end(wc)
	return false
}

// ext3Call marks an ext3 ->writepages call in progress (its plug is open).
type ext3Call struct{}

// WritepageRun is n ext3_ordered_writepage calls (kernel.OnePageWriter, v3.1):
// block_write_full_page per page, with a journal handle (HandleCost) only for
// pages whose blocks are not allocated yet (pages dirtied without WriteBegin, as in
// tests); bios follow the file's extents (an extent boundary starts a new bio).
func (e *Ext3) WritepageRun(wc *kernel.WritebackCtx, index, n int64) {
	ei := wc.In.FS.(*ext3Inode)
	c := &e.k.P.Costs
	if e.byBuffer {
		if cl, ok := ei.bufClean.Next(index); ok && cl.Start < index+n {
			// WritepageRunIO handed a run of buffers kjournald wrote
			e.writepageNoIO(wc, ei, index, n)
			return
		}
	}
	cost := sim.Time(n)*c.Writepage + c.SubmitBio
	if end := index + n; end > ei.m.allocEnd {
		cost += sim.Time(end-max(index, ei.m.allocEnd)) * e.P.HandleCost
		e.P.Layout.alloc(&ei.m, end) // pages dirtied without WriteBegin (tests)
	}
	wc.Th.Charge(cost)
	submitRun(wc, &ei.m, index, n)
}

// endClean ends pages [index, index+n) whose buffers kjournald wrote and no
// longer holds: clean buffers, the pages set and ended under writeback without IO.
func (e *Ext3) endClean(wc *kernel.WritebackCtx, ei *ext3Inode, index, n int64) {
	e.CleanPages += n
	ei.bufClean.Remove(index, n)
	wc.EndWritebackNoIO(index, n, false)
}

// writepageNoIO is __block_write_full_page (v3.1) on pages [index, index+n) whose
// buffers kjournald has written: where it still holds them locked, WB_SYNC_NONE
// writeback's trylock_buffer fails and the page is redirtied (pages_skipped);
// otherwise (or after lock_buffer waited, in WB_SYNC_ALL and pre-2.6.37 writeback
// without wbc->nonblocking) the buffer is clean. Either way the page is set and
// at once ended under writeback with nothing submitted (NR_WRITTEN counts it).
func (e *Ext3) writepageNoIO(wc *kernel.WritebackCtx, ei *ext3Inode, index, n int64) {
	c := &e.k.P.Costs
	e.k.Fired(pathExt3KjournaldBuffers)
	wc.Th.Charge(sim.Time(n) * (c.Writepage + c.EndIOPage))
	for i, end := index, index+n; i < end; {
		l, ok := ei.bufLocked.Next(i)
		if !ok || l.Start >= end {
			e.endClean(wc, ei, i, end-i)
			return
		}
		if l.Start > i {
			e.endClean(wc, ei, i, l.Start-i)
			i = l.Start
			continue
		}
		j := min(end, l.End)
		if !wc.TryLocks() {
			// lock_buffer sleeps until kjournald's write ends; the buffer is then
			// clean (the page is counted now, the caller resumes after the wait)
			e.endClean(wc, ei, i, end-i)
			wc.Th.SleepFor(kernel.WaitJournal) // behind the commit's ordered-data write
			wc.WaitOn(&e.bufUnlock)
			return
		}
		e.PagesSkipped += j - i
		wc.EndWritebackNoIO(i, j-i, true)
		i = j
	}
}

// Writepage is one ext3_ordered_writepage call.
func (e *Ext3) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	e.WritepageRun(wc, index, 1)
	return 1
}

// WriteInode is ext3_write_inode: WB_SYNC_ALL (fsync, sync) forces a commit
// (ext3_force_commit; fsync then waits for it in FsyncCommit); otherwise the inode
// is already in the running transaction.
func (e *Ext3) WriteInode(wc *kernel.WritebackCtx) error {
	if wc.Wbc.SyncMode == kernel.WBSyncAll {
		e.j.kick()
	}
	return nil
}

func (e *Ext3) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*ext3Inode).m.sector(&e.P.Layout, index)
}

// Journal reports kjournald's commits and journal pages written.
func (e *Ext3) Journal() (commits, pages int64) { return e.j.Commits, e.j.MetaPages }

func (i *ext3Inode) blockMap() *fileMap { return &i.m }
