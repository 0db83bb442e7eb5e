package fs

import (
	"sort"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Layout is a filesystem's block allocator as the model sees it. Every dd file of a
// case lives in one directory, so ext3/ext4's Orlov/goal logic and XFS inode64 put
// their data in the same block/allocation group: the files share one allocation
// frontier. Each file allocates from its own reservation window (ext3's block
// reservation window, ext4 mballoc's per-inode preallocation, XFS's speculative
// EOF preallocation of allocsize) and takes a new window at the frontier when it has
// used its window up. A window that starts where the file's previous one ended (no
// other file allocated in between) continues the same extent.
//
// Where the extents of 10 or 100 concurrent files interleave is therefore set by the
// window size and by when allocation happens (write() for ext3, writeback for the
// delalloc filesystems); seeks between those windows are what separate 1dd from
// 100dd on a rotating disk.
type Layout struct {
	// StartSector is the first data sector (after the superblock, group
	// descriptors and the first inode tables).
	StartSector int64
	// MinWindowPages is a file's first reservation window, in pages; 0 means no
	// reservation: each allocation takes exactly what it needs at the frontier.
	MinWindowPages int64
	// MaxWindowPages is the largest window; the window doubles from MinWindowPages
	// each time a file takes a new one.
	MaxWindowPages int64
	// GapEvery, when set, leaves one block of metadata (ext3's indirect block)
	// before every GapEvery data blocks of a file, inline in its data; the gaps'
	// sectors are reported to the filesystem through Gaps.
	GapEvery int64

	frontier int64 // next free sector
	// Gaps collects the sectors of inline metadata blocks allocated so far (the
	// filesystem takes and clears them).
	Gaps []int64
}

// extent maps file pages [file, file+n) to sectors from disk.
type extent struct{ file, disk, n int64 }

// fileMap is one file's block map (allocated in file order, append-only).
type fileMap struct {
	ext      []extent
	allocEnd int64 // pages [0, allocEnd) are allocated
	winCur   int64 // next free sector of the current window
	winEnd   int64 // end of the current window (sector)
	win      int64 // current window size, pages
	gapDone  bool  // the inline metadata block for the run at allocEnd is placed
}

func (l *Layout) init() {
	if l.frontier < l.StartSector {
		l.frontier = l.StartSector
	}
}

// alloc allocates blocks for pages [f.allocEnd, end) and returns how many new
// extents (discontiguous pieces) that took.
func (l *Layout) alloc(f *fileMap, end int64) (newExtents int64) {
	l.init()
	for f.allocEnd < end {
		if f.winCur >= f.winEnd {
			switch {
			case l.MinWindowPages == 0: // no reservation: exactly what is asked (COW)
				f.win = end - f.allocEnd
			case f.win == 0:
				f.win = l.MinWindowPages
			default:
				f.win = min(2*f.win, l.MaxWindowPages)
			}
			f.winCur = l.frontier
			f.winEnd = l.frontier + f.win*devices.PageSectors
			l.frontier = f.winEnd
		}
		if l.GapEvery > 0 && f.allocEnd%l.GapEvery == 0 && !f.gapDone {
			// the indirect block before this run of GapEvery blocks
			l.Gaps = append(l.Gaps, f.winCur)
			f.winCur += devices.PageSectors
			f.gapDone = true
			continue
		}
		n := min(end-f.allocEnd, (f.winEnd-f.winCur)/devices.PageSectors)
		if l.GapEvery > 0 {
			n = min(n, l.GapEvery-f.allocEnd%l.GapEvery)
			f.gapDone = false
		}
		if k := len(f.ext); k > 0 && f.ext[k-1].disk+f.ext[k-1].n*devices.PageSectors == f.winCur {
			f.ext[k-1].n += n
		} else {
			f.ext = append(f.ext, extent{file: f.allocEnd, disk: f.winCur, n: n})
			newExtents++
		}
		f.allocEnd += n
		f.winCur += n * devices.PageSectors
	}
	return newExtents
}

// find returns the extent holding page index (which must be allocated).
func (f *fileMap) find(index int64) *extent {
	i := sort.Search(len(f.ext), func(i int) bool { return f.ext[i].file+f.ext[i].n > index })
	return &f.ext[i]
}

// sector maps page index to its sector; an unallocated page maps to where the next
// allocation would put it (the delalloc goal), which only submission probes see.
func (f *fileMap) sector(l *Layout, index int64) int64 {
	if index < f.allocEnd {
		e := f.find(index)
		return e.disk + (index-e.file)*devices.PageSectors
	}
	if f.winCur < f.winEnd {
		return f.winCur + (index-f.allocEnd)*devices.PageSectors
	}
	return max(l.frontier, l.StartSector) + (index-f.allocEnd)*devices.PageSectors
}

// contig is the number of pages from index (allocated) that are contiguous on disk.
func (f *fileMap) contig(index int64) int64 {
	e := f.find(index)
	return e.file + e.n - index
}

// Extents is the number of extents of the file (for tests and reports).
func (f *fileMap) Extents() int { return len(f.ext) }

// submitRun starts writeback of the allocated pages [index, index+n) of wc's inode,
// one bio run per on-disk extent piece. It reports true when the thread blocked.
func submitRun(wc *kernel.WritebackCtx, f *fileMap, index, n int64) bool {
	for n > 0 {
		c := min(n, f.contig(index))
		wc.WritePages(index, c)
		index += c
		n -= c
		if wc.Th.Sub.Blocked() {
			// the rest still goes out: the kernel's submit_bio loop continues after
			// get_request_wait; pending bios are admitted in order when requests free up
			for n > 0 {
				c := min(n, f.contig(index))
				wc.WritePages(index, c)
				index += c
				n -= c
			}
			return true
		}
	}
	return false
}

// journal is a jbd/jbd2 journal in the model: a kernel thread (kjournald,
// jbd2/sda-8) that commits the running transaction every CommitInterval or when
// asked (fsync), writing the journalled metadata blocks and then the commit block
// into a circular log region with sync, meta writes (WRITE_SYNC: not throttled as
// background writeback). Before the metadata, a data=ordered filesystem may write
// the transaction's data (the beforeCommit hook; ext3).
type journal struct {
	k  *kernel.Kernel
	th *kernel.Thread

	interval   sim.Time
	start, len int64 // journal region: first sector, length in pages
	cursor     int64 // next log page (relative)
	commitFUA  bool

	pendingMeta int64 // metadata blocks logged in the running transaction
	state       int
	outstanding int64 // journal pages in flight
	wq          sim.WaitQueue
	timer       sim.Timer
	kicked      bool
	// beforeCommit runs at the start of a commit (ordered data writeout); it
	// reports true when the thread blocked (called again on resume).
	beforeCommit func() bool
	// afterCommit runs when the commit block is on disk.
	afterCommit func()
	// checkpoint runs after the commit: writing journalled metadata to its home
	// location; it reports true when the thread blocked (called again on resume).
	checkpoint func() bool
	// locked is true between the start of the commit and the end of its metadata
	// writes (T_LOCKED: new handles wait).
	locked  bool
	waiters sim.WaitQueue // tasks waiting for the commit (fsync) or for T_LOCKED to end
	// handlesOpen, when set, makes the lock window jbd's T_LOCKED: it ends at the
	// start of the commit as soon as no handle is open (handlesOpen false; kjournald
	// re-checks every millisecond) instead of after the metadata writes.
	handlesOpen func() bool

	Commits     int64
	MetaPages   int64
	CommitStart sim.Time

	fsyncs map[*kernel.Thread]int64 // fsync callers: the commit count they wait for
}

// fsyncWait is the commit wait of ext3/ext4 ->fsync (ext3_sync_file →
// log_start_commit + log_wait_commit): th waits until a commit that started after
// its call is on disk. A commit already in progress may not hold th's last
// changes, so th then waits for the one after it. It reports true when th blocked.
func (j *journal) fsyncWait(th *kernel.Thread) bool {
	if j.fsyncs == nil {
		j.fsyncs = map[*kernel.Thread]int64{}
	}
	target, ok := j.fsyncs[th]
	if !ok {
		target = j.Commits + 1
		if j.state != jIdle && j.state != jCheckpoint {
			// a commit is under way (its commit block not yet on disk, so not yet
			// counted) and may not hold th's last changes: wait for the next one
			target++
		}
		j.fsyncs[th] = target
		j.kick()
	}
	if j.Commits >= target {
		delete(j.fsyncs, th)
		return false
	}
	if j.state == jIdle || j.state == jCheckpoint {
		j.kick() // the commit in progress ended; ours has not started yet
	}
	th.Task.Wait(&j.waiters)
	return true
}

// journalSector is the journal's first sector: at, or when at is 0 where mke2fs
// puts it, the middle of the filesystem (half the device's capacity; 250 GB into
// the device when it reports no capacity).
func journalSector(k *kernel.Kernel, at int64) int64 {
	if at > 0 {
		return at
	}
	c := k.Q.Spec().CapacityBytes
	if c <= 0 {
		c = 500_000_000_000
	}
	return c / devices.SectorSize / 2 &^ 7
}

const (
	jIdle = iota
	jData
	jMeta
	jMetaWait
	jCommitBlock
	jCommitWait
	jCheckpoint
)

func newJournal(k *kernel.Kernel, comm string, interval sim.Time, start, lenPages int64, fua bool) *journal {
	j := &journal{k: k, interval: interval, start: start, len: lenPages, commitFUA: fua}
	j.th = k.NewThread(comm)
	j.th.Task.Resume = j.resume
	j.th.Task.SleepInterruptible(interval)
	return j
}

// EndIO is the journal's bio completion (journal_end_buffer_io_sync).
func (j *journal) EndIO(cookie uint64, index, pages int64, op devices.Op) {
	j.outstanding -= pages
	if j.outstanding <= 0 {
		j.wq.WakeAll()
	}
}

// kick asks for a commit now (log_start_commit: fsync, journal space).
func (j *journal) kick() {
	j.kicked = true
	j.th.Task.Wake()
}

func (j *journal) submit(pages int64, flags devices.Flags) bool {
	if j.cursor+pages > j.len {
		j.cursor = 0
	}
	b := devices.Bio{Sector: j.start + j.cursor*devices.PageSectors, Pages: pages, Op: devices.Write,
		Flags: flags, Owner: j, Index: j.cursor}
	j.cursor += pages
	j.outstanding += pages
	j.MetaPages += pages
	return j.k.Q.Submit(j.th.Sub, b)
}

func (j *journal) resume() {
	for {
		switch j.state {
		case jIdle:
			if j.pendingMeta == 0 && !j.kicked {
				j.th.Task.SleepInterruptible(j.interval)
				return
			}
			j.kicked = false
			j.locked = true
			j.CommitStart = j.k.W.Now()
			j.state = jData
		case jData:
			if j.handlesOpen != nil && j.locked {
				if j.handlesOpen() {
					j.th.Task.Sleep(sim.Millisecond) // t_updates > 0: wait for the handles
					return
				}
				// T_FLUSH: the running transaction is switched; handles may start
				j.locked = false
				j.waiters.WakeAll()
			}
			if j.beforeCommit != nil && j.beforeCommit() {
				return
			}
			j.state = jMeta
		case jMeta:
			n := max(j.pendingMeta, 1)
			j.pendingMeta = 0
			j.state = jMetaWait
			if j.submit(n, devices.FlagSync|devices.FlagMeta) {
				return
			}
		case jMetaWait:
			if j.outstanding > 0 {
				j.th.Task.Wait(&j.wq)
				return
			}
			// metadata is in the log: new handles may start (T_FLUSH)
			j.locked = false
			j.waiters.WakeAll()
			j.state = jCommitBlock
		case jCommitBlock:
			f := devices.FlagSync | devices.FlagMeta
			if j.commitFUA {
				f |= devices.FlagFUA
			}
			j.state = jCommitWait
			if j.submit(1, f) {
				return
			}
		case jCommitWait:
			if j.outstanding > 0 {
				j.th.Task.Wait(&j.wq)
				return
			}
			j.Commits++
			if j.afterCommit != nil {
				j.afterCommit()
			}
			j.waiters.WakeAll()
			j.state = jCheckpoint
		case jCheckpoint:
			if j.checkpoint != nil && j.checkpoint() {
				return
			}
			j.state = jIdle
			// the next transaction started with this commit and expires
			// interval after that (t_expires)
			j.th.Task.SleepInterruptible(max(j.CommitStart+j.interval-j.k.W.Now(), 0))
			return
		}
	}
}

// daCursor is a filesystem-owned write_cache_pages cursor (ext4's
// write_cache_pages_da loop, XFS's batched 2.6.36-rc1 steady state, ext3's and
// btrfs's loops), kept across blocking points.
type daCursor struct {
	in         *kernel.Inode
	index, end int64 // next page, inclusive end
	wbIndex    int64 // mapping->writeback_index at entry
	doneIndex  int64
	cycled     bool
	done       bool
	finished   bool // the walk ended (writeback_index updated); the call returns at the next entry
	masked     bool // nr_to_write hidden from the caller while parked (see park)
	savedNr    int64
}

// daStep writes from the dirty run [s, e) (not under writeback) and returns the
// pages it consumed (≥ 1) and whether the loop is done.
type daStep func(s, e int64) (consumed int64, done bool)

// cursorMap holds the cursors of the ->writepages calls in progress, by
// WritebackCtx, and the records of finished calls for reuse.
type cursorMap struct {
	m    map[*kernel.WritebackCtx]*daCursor
	free []*daCursor
}

func newCursorMap() cursorMap { return cursorMap{m: map[*kernel.WritebackCtx]*daCursor{}} }

// cursorFor returns the cursor of wc's call in progress, or a new one. A cursor is
// valid while wc.FSState[3] is set: writeback_single_inode builds a fresh
// WritebackCtx (FSState zeroed) per call, so a cursor left by a call the kernel did
// not resume is never reused (its record is reset in place). New cursors reuse the
// records of finished calls: no allocation per ->writepages call.
func cursorFor(cm *cursorMap, wc *kernel.WritebackCtx) (c *daCursor, fresh bool) {
	c = cm.m[wc]
	if c != nil && c.in == wc.In && wc.FSState[3] == 1 {
		return c, false
	}
	if c == nil {
		if n := len(cm.free); n > 0 {
			c = cm.free[n-1]
			cm.free[n-1] = nil
			cm.free = cm.free[:n-1]
		} else {
			c = new(daCursor)
		}
		cm.m[wc] = c
	}
	*c = daCursor{in: wc.In}
	if wc.Wbc.RangeCyclic {
		c.wbIndex = wc.In.WritebackIndex
		c.index, c.end = c.wbIndex, 1<<62
		c.cycled = c.index == 0
	} else {
		// RangeEnd may be LLONG_MAX (fsync's whole-file range): keep end+1 finite
		c.index, c.end = wc.Wbc.RangeStart, min(wc.Wbc.RangeEnd, 1<<62)
		c.cycled = true
	}
	c.doneIndex = c.index
	wc.FSState[3] = 1
	return c, true
}

// dropCursor ends wc's call; its record goes back for reuse.
func dropCursor(cm *cursorMap, wc *kernel.WritebackCtx) {
	if c := cm.m[wc]; c != nil {
		delete(cm.m, wc)
		c.in = nil
		cm.free = append(cm.free, c)
	}
	wc.FSState[3] = 0
}

// park returns "blocked". writeback_single_inode's model re-checks
// do_writepages' nr_to_write > 0 every time it resumes the call, while in the
// kernel a blocked ->writepages simply continues; a walk that is not finished but
// has nr_to_write ≤ 0 (XFS under 2.6.36-rc1's rule) would be cut short. So while
// parked, nr_to_write reads 1 and the real value is restored on resume.
func (c *daCursor) park(wc *kernel.WritebackCtx) bool {
	if !c.finished && wc.Wbc.NrToWrite <= 0 {
		c.savedNr, c.masked = wc.Wbc.NrToWrite, true
		wc.Wbc.NrToWrite = 1
	}
	return true
}

func (c *daCursor) finish(wc *kernel.WritebackCtx) {
	c.finished = true
	if wc.Wbc.RangeCyclic || (wc.Wbc.RangeStart == 0 && wc.Wbc.NrToWrite > 0) {
		wc.In.WritebackIndex = max(c.doneIndex, 0)
	}
}

// daWalk walks the dirty pages from the cursor like write_cache_pages (skipping
// pages under writeback for WB_SYNC_NONE), calling step per dirty run. It reports
// true when the thread blocked (call again on resume; c.finished tells whether the
// walk already ended) and false when the walk ended. In WB_SYNC_ALL a dirty page
// still under writeback is waited for by polling every millisecond
// (wait_on_page_writeback; the inode's writeback wait queue is the kernel's own).
func daWalk(wc *kernel.WritebackCtx, c *daCursor, step daStep) bool {
	if c.masked {
		wc.Wbc.NrToWrite, c.masked = c.savedNr, false
	}
	if c.finished {
		return false
	}
	in, th := wc.In, wc.Th
	for {
		for !c.done && c.index <= c.end {
			r, ok := in.Dirty.Next(c.index)
			if !ok || r.Start > c.end {
				break
			}
			s, e := r.Start, min(r.End, c.end+1)
			if wb, ok := in.Writeback.Next(s); ok && wb.Start < e {
				if wb.Start <= s {
					if wc.Wbc.SyncMode == kernel.WBSyncNone {
						c.index = min(e, wb.End)
						c.doneIndex = c.index - 1
						continue
					}
					th.Sub.FlushPlug()
					th.Task.Sleep(sim.Millisecond)
					return c.park(wc)
				}
				e = wb.Start
			}
			n, done := step(s, e)
			c.index = s + max(n, 1)
			c.doneIndex = c.index - 1
			if done {
				c.done = true
				c.finish(wc)
			}
			if th.Sub.Blocked() || th.YieldCPU() {
				return c.park(wc)
			}
		}
		if !c.cycled && !c.done {
			c.cycled = true
			c.index, c.end = 0, c.wbIndex-1
			continue
		}
		break
	}
	if !c.finished {
		c.finish(wc)
	}
	return false
}

// fileMapOf returns the block map of a file of one of this package's filesystems.
func fileMapOf(in *kernel.Inode) *fileMap {
	switch f := in.FS.(type) {
	case *ext3Inode:
		return &f.m
	case *ext4Inode:
		return &f.m
	case *xfsInode:
		return &f.m
	case *btrfsInode:
		return &f.m
	}
	return nil
}

// LayoutStats summarises where the files of k live: extents per file and the mean
// extent length in MB (nil maps, e.g. generic, report zeros).
func LayoutStats(k *kernel.Kernel) (extentsPerFile, meanExtentMB float64) {
	var ext, pages int64
	files := 0
	for _, in := range k.Inodes() {
		m := fileMapOf(in)
		if m == nil {
			continue
		}
		files++
		ext += int64(len(m.ext))
		pages += m.allocEnd
	}
	if files == 0 || ext == 0 {
		return 0, 0
	}
	return float64(ext) / float64(files), float64(pages) / 256 / float64(ext)
}
