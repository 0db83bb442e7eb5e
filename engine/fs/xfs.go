package fs

import (
	"errors"
	"math"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// swXFSWriteInodeFlush is XFS's ->write_inode of 2.6.30-3.1 (xfs_fs_write_inode,
// fs/xfs/xfs_super.c): WB_SYNC_NONE writeback, kupdate's included, fails with
// EAGAIN while the inode is pinned in the log or its flush lock is held, and
// otherwise flushes the inode, with its cluster's other dirty inodes, into the
// inode cluster buffer as a delayed write (xfs_iflush), whose flush lock stays
// held until xfsbufd writes the buffer. Off: an XFS without ->write_inode
// (4.x and 6.1 log every inode change in a transaction), which never fails.
var swXFSWriteInodeFlush = kernel.DeclareSwitch(kernel.Switch{Name: "xfs_write_inode_flush", Order: 200,
	Doc:    "XFS ->write_inode (2.6.30-3.1): EAGAIN while the inode is pinned in the log or flush-locked; else xfs_iflush into the cluster buffer, flush-locked until xfsbufd writes it (off: no ->write_inode, 4.x/6.1)",
	Models: "xfs_fs_write_inode, xfs_iflush_cluster, fs/xfs/xfs_super.c, xfs_inode.c v3.1; xfs_sync_worker, xfsbufd (xfs_buf_age_centisecs)",
	Source: "XFS of 2.6.30-3.1; wu-2011-more_io_wait-thread.txt"})

var pathXFSWriteInodeBusy = swXFSWriteInodeFlush.DeclarePath("xfs_write_inode.pinned_or_flush_locked",
	"XFS ->write_inode (WB_SYNC_NONE, not kupdate) calls that found the inode pinned in the log or flush-locked (EAGAIN with xfs_iflush, 2.6.30-3.1)")

// XfsParams are XFS's tunables (v3.2, mounted as the harness does:
// -o allocsize=1g,nobarrier,inode64).
type XfsParams struct {
	// AllocsizePages is the allocsize= mount option in pages (1 GB): speculative
	// preallocation beyond EOF, so a streaming file gets 1 GB extents.
	AllocsizePages int64
	// IlockHold is how long IO completion's xfs_setfilesize holds the inode's
	// ILOCK (exclusive) to move the on-disk size of an appending file, per ioend.
	IlockHold sim.Time
	// BmapiHold is the ILOCK hold of one in-core extent lookup (xfs_bmapi): the
	// writer's __xfs_get_blocks takes it exclusively once per page, writeback's
	// xfs_map_blocks shared once per ->writepage mapping.
	BmapiHold sim.Time
	// EndIoCost is the xfsdatad worker's CPU per ioend (work item, xfs_end_io,
	// xfs_destroy_ioend) besides end_page_writeback per page.
	EndIoCost sim.Time
	// MapBlocksCost is xfs_map_blocks per ->writepage call: ILOCK, the extent
	// lookup (xfs_bmapi) and ioend setup; clustered pages reuse the mapping.
	MapBlocksCost sim.Time
	// LookupPageCost is one page of xfs_cluster_write's pagevec_lookup (radix-tree
	// gang lookup, a page reference) and its pagevec_release. Costs.ClusterPage covers
	// it for pages the cluster converts; a call that converts fewer pages than it
	// looked up (2.6.36-rc1's one-page-cluster calls: PAGEVEC_SIZE looked up, one
	// converted) pays it for the rest. ~100 ns: a cache-hot slot lookup plus an
	// atomic get/put on a 2010 x86 core.
	LookupPageCost sim.Time
	// SkipPageCost is write_cache_pages' visit of a page its dirty-tag pagevec
	// holds but ->writepage already cleaned by clustering (lock_page, !PageDirty,
	// unlock_page); every old-rule call leaves one such page behind it.
	SkipPageCost sim.Time
	// DelallocCost is the buffered write path's XFS work per newly dirtied page
	// (2.6.36-3.x xfs_vm_write_begin → block_write_begin → create_empty_buffers +
	// __xfs_get_blocks(create) → xfs_iomap(BMAPI_WRITE): ILOCK_EXCL, an xfs_bmapi
	// lookup, and xfs_iomap_write_delay's quota/in-core superblock (per-CPU counter)
	// delalloc reservation, all per page because get_blocks maps one buffer at a
	// time). It is why a single buffered writer on XFS of that era was CPU-bound
	// well below a fast array's bandwidth: Chinner 2010's fixed kernel ran a 100 GB
	// dd at ~750 MB/s on an 8p VM whose storage was not the limit, i.e. ~5 µs of
	// write path per page, of which the generic part (syscall, copy, page cache)
	// is ~1.2 µs (Costs). The per-page mapping is what the 4.8 iomap conversion
	// replaced with one mapping per write() extent.
	DelallocCost sim.Time
	// IomapFolioCost is the 4.8+ iomap buffered write path's work per folio
	// beyond the generic copy and page-cache costs (Costs): iomap_write_iter's
	// iomap_write_begin (folio lookup and lock, the iomap validity check) and
	// iomap_write_end (folio uptodate and dirty, i_size), once per folio: per page
	// with 6.1's order-0 folios, per write() with 6.12's large ones
	// (xfs_large_folios). Calibrated once from harness 2's held 6.1 references
	// (validate/references): a lone dd bs=1M before any writeback dirtied 24-35 k
	// pages/s on xfs (s1-xfs.r1-r3) against 15-29 k on ext4 (s1-ext4, s1-ext4-50,
	// s6-ext4-mem8G), about 1.2x ext4's rate, where without it the model's 6.1
	// xfs path was 2.6x cheaper than its ext4 path (ext4's WriteBeginCost).
	IomapFolioCost sim.Time
	// SyncdInterval is xfs_syncd_centisecs (default 3000, fs/xfs/xfs_globals.c):
	// the period of xfs_sync_worker, whose xfs_log_force writes the delayed-logging
	// checkpoint, unpinning every inode logged since the last one, and whose
	// xfs_ail_push_all then writes those inodes' buffers. The workload's own
	// transactions are too small to fill the CIL and force it earlier.
	SyncdInterval sim.Time
	// BufTimer is xfs_buf_timer_centisecs (default 100): xfsbufd's wake-up period.
	BufTimer sim.Time
	// BufAge is xfs_buf_age_centisecs (default 1500): xfsbufd writes a delayed-write
	// buffer once it has been queued this long; until then the inodes flushed into
	// it keep their flush lock.
	BufAge sim.Time
	// InodesPerCluster is how many inodes share one inode cluster buffer:
	// XFS_INODE_CLUSTER_SIZE (8192 bytes) over mkfs.xfs's default 256-byte inodes.
	// xfs_iflush_cluster flushes the cluster's other dirty, unpinned inodes into the
	// buffer with the one being written.
	InodesPerCluster uint64
	// AGCount is mkfs.xfs's allocation group count: 4 for a single disk between
	// 128 MB and 4 TB (xfsprogs calc_default_ag_geometry). The log sits at the
	// start of AG AGCount/2 (xfs_log.go).
	AGCount int64
	// Layout is the block allocator: each file's allocsize windows at the frontier.
	Layout Layout
}

// DefaultXfsParams returns the harness's XFS.
func DefaultXfsParams() XfsParams {
	const gb = 1 << 18 // pages
	return XfsParams{
		AllocsizePages:   gb,
		IlockHold:        1 * sim.Microsecond,
		BmapiHold:        1 * sim.Microsecond,
		EndIoCost:        2 * sim.Microsecond,
		MapBlocksCost:    4 * sim.Microsecond,
		DelallocCost:     4 * sim.Microsecond,
		IomapFolioCost:   1400 * sim.Nanosecond,
		LookupPageCost:   100 * sim.Nanosecond,
		SkipPageCost:     200 * sim.Nanosecond,
		SyncdInterval:    30 * sim.Second,
		BufTimer:         1 * sim.Second,
		BufAge:           15 * sim.Second,
		InodesPerCluster: 32,
		AGCount:          4,
		Layout:           Layout{StartSector: 2048 * 8, MinWindowPages: gb, MaxWindowPages: gb},
	}
}

// Xfs is XFS (v3.2):
//   - delalloc with allocsize=1g speculative preallocation: blocks are allocated at
//     writeback (xfs_iomap_write_allocate) in 1 GB windows per file;
//   - ->writepages is generic_writepages; ->writepage (xfs_vm_writepage) writes its
//     page and always calls xfs_cluster_write, which clusters forward to the end of
//     the mapped extent: each xfs_convert_page writes the next page and stops the
//     cluster at --nr_to_write <= 0 for WB_SYNC_NONE, so a call entered with
//     nr_to_write ≤ 0 still writes one more page (2.6.36-3.2 fs/xfs/linux-2.6/xfs_aops.c);
//   - WB_SYNC_NONE writeback maps blocks under xfs_ilock_nowait(ILOCK_SHARED) (before
//     2.6.37 only with wbc->nonblocking, else it waits for the lock); it fails
//     while the writer or IO completion's xfs_setfilesize holds the ILOCK (the lock
//     windows of xfs_ioend.go). A failed ->writepage redirties the page
//     (redirty_page_for_writepage: pages_skipped++ ⇒ redirty_tail); a failed
//     ->write_inode returns EAGAIN and re-marks the inode I_DIRTY_SYNC;
//   - IO completion: appending ioends are finished by the xfsdatad worker, whose
//     xfs_setfilesize trylock fails while the writer or writeback holds the ILOCK
//     and then requeues the ioend and sleeps a jiffy (xfs_ioend.go);
//   - with write_cache_pages' 2.6.36-rc1 termination rule (switch wcp_terminate_le0
//     off), once ->writepage drove nr_to_write to ≤ 0 write_cache_pages calls it one
//     page at a time for the rest of the file. Writepages computes that steady state
//     itself in batches (one step per batch of one-page calls instead of one event
//     per page; with tracing on, each call's wbc_writepage line is emitted).
type Xfs struct {
	P   XfsParams
	k   *kernel.Kernel
	bdi *kernel.BDI // the disk it is mounted on
	log *xfsMeta    // the log, xfssyncd/xfsaild and xfsbufd (xfs_log.go)

	// the xfsdatad worker and its queue of ioends waiting for xfs_end_io
	worker     *kernel.Thread
	workq      ioendRing
	workerIdle bool
	// iomapWrite is xfs_iomap_write: one write()'s mapping, not one per page
	iomapWrite bool
	delayNext  bool  // the last xfs_end_io got EAGAIN: delay(1) before the next
	batch      int64 // worker step sequence number

	// statistics
	WritepageCalls int64 // ->writepage calls (one-page calls of batches included)
	MaxCluster     int64 // most pages written by one ->writepage call
	PagesSkipped   int64 // pages redirtied on ILOCK contention
	EAGAIN         int64 // ->write_inode calls that returned EAGAIN
	Ioends         int64 // ioends finished by the xfsdatad worker
	EndIoRequeues  int64 // xfs_end_io EAGAIN requeues (each followed by delay(1))
	IlockWaits     int64 // blocking xfs_ilock calls that found the lock held and slept
	Pinned         int64 // ->write_inode calls that found the inode pinned in the log (EAGAIN)
	FlushLocked    int64 // ->write_inode calls that found the flush lock held (EAGAIN)
	Flushes        int64 // inodes flushed into their cluster buffer (xfs_iflush, xfs_iflush_cluster)
	Enospc         int64 // delalloc reservations with preallocation that failed (trace_xfs_delalloc_enospc)
	NoSpaceWrites  int64 // writes reserved past fdblocks (0: WriteRoom refuses them)
	full           kernel.SpaceFull

	// fdblocks is sb_fdblocks as xfs_bmapi's delalloc reservation sees it, in pages:
	// the free blocks less the reserve pool and XFS_ALLOC_SET_ASIDE (xfsSpace)
	fdblocks int64
	flush    *kernel.WbWritebackWork // xfs_flush_inodes' m_flush_work, while it runs
}

type xfsInode struct {
	m          fileMap
	updateCore bool  // i_update_core: the in-core inode changed since it was logged
	diSize     int64 // i_d.di_size: the on-disk size, bytes
	// pinnedTill is when the log checkpoint holding the inode's last logged change
	// is written (xfs_ipincount > 0 before); flushTill is when xfsbufd writes the
	// delayed-write cluster buffer the inode was flushed into (flush lock held
	// before, xfs_iflush_done releases it)
	pinnedTill, flushTill sim.Time

	ioends  ioendRing // submitted ioends, in submission order
	flushed bool      // xfs_flush_inodes ran for the next write: retry without preallocation
	// ILOCK holders' windows (xfs_ioend.go)
	writer, mapper, completion ilockWindow
	batch, batchHeld           int64 // the worker's setfilesize holds in its current step
}

// xfsPagevecSize is PAGEVEC_SIZE, the length of xfs_cluster_write's lookups.
const xfsPagevecSize = 14

// ErrEAGAIN is ->write_inode's EAGAIN.
var ErrEAGAIN = errors.New("EAGAIN")

// NewXfs returns XFS with the harness's mount options.
func NewXfs() *Xfs { return &Xfs{P: DefaultXfsParams()} }

func (x *Xfs) Name() string { return "xfs" }

func (x *Xfs) Mount(k *kernel.Kernel, b *kernel.BDI) error {
	x.k, x.bdi = k, b
	x.iomapWrite = k.P.Variants.On(swXFSIomapWrite)
	x.P.Layout.MinWindowPages = x.P.AllocsizePages
	x.P.Layout.MaxWindowPages = x.P.AllocsizePages
	x.P.Layout.Reserved = true
	x.worker = k.NewThreadOn(b, "xfsdatad/0")
	x.worker.Task.Resume = x.xfsdatad
	x.workerIdle = true
	x.worker.Task.SleepInterruptible(-1)
	x.log = newXfsMeta(x, k, b)
	x.xfsSpace(b)
	return nil
}

// xfsSpace sets the allocator's bounds and the free-block counter at mount. Data
// windows stay inside the partition and off the log. fdblocks starts as mkfs.xfs
// leaves it (the partition less the first AG's headers and inode chunks up to
// Layout.StartSector, and the log) less what xfs_mountfs takes: the reserve pool,
// xfs_default_resblks = min(5 % of the blocks, 8192), and XFS_ALLOC_SET_ASIDE,
// 4 + 4 per AG, which xfs_mod_incore_sb keeps back from delalloc reservations
// (v3.1 fs/xfs/xfs_mount.c). A device without a capacity has no limit.
func (x *Xfs) xfsSpace(b *kernel.BDI) {
	l := &x.P.Layout
	l.EndSector = deviceEnd(b)
	logEnd := x.log.logStart + x.log.logPages*devices.PageSectors
	l.Holes = []Hole{{x.log.logStart, logEnd}}
	if l.EndSector == 0 {
		x.fdblocks = math.MaxInt64 / 2
		return
	}
	pages := (l.EndSector - l.StartSector) / devices.PageSectors
	resblks := min(pages/20, 8192)
	x.fdblocks = pages - x.log.logPages - resblks - (4 + 4*x.P.AGCount)
}

// WriteWait is kernel.WriteStaller: xfs_iomap_write_delay's ENOSPC path (v3.1
// fs/xfs/xfs_iomap.c). A write past the file's delalloc reservation reserves the
// write plus allocsize of speculative preallocation (xfs_iomap_eof_want_preallocate:
// the write extends the file and nothing is reserved past EOF; the window is
// allocsize-aligned in the file). When xfs_bmapi cannot take that from fdblocks
// the writer calls xfs_flush_inodes, which queues the mount's one flush work
// (xfs_flush_worker: xfs_sync_data without, then with SYNC_WAIT: every dirty page
// of the filesystem written and waited on; concurrent callers share it) and waits
// for it, then retries without preallocation. Converting delalloc does not give
// reserved blocks back (the windows are converted whole), so the retry is what
// lets the write go on. The flush work is modelled as sync_inodes_sb's
// WB_SYNC_ALL work on the bdi's flusher; the model flushes once per write batch
// (3.1: once per page, each get_blocks call maps one page).
func (x *Xfs) WriteWait(th *kernel.Thread, in *kernel.Inode) *sim.WaitQueue {
	xi, ok := in.FS.(*xfsInode)
	if !ok || xi.flushed {
		return nil
	}
	next := in.Size / kernel.PageSize
	if next < xi.m.resEnd || x.preallocNeed(xi, next+1) <= x.fdblocks {
		return nil
	}
	x.Enospc++
	if x.flush == nil || x.flush.Done() {
		x.flush = x.k.SyncInodesSbOn(x.bdi)
	}
	xi.flushed = true
	return x.flush.Waiters()
}

// preallocNeed is the pages xfs_bmapi(XFS_BMAPI_DELAY) reserves for a write ending
// at page end with preallocation: up to the next allocsize boundary past the
// write's last page (XFS_WRITEIO_ALIGN + m_writeio_blocks), less what is reserved.
func (x *Xfs) preallocNeed(xi *xfsInode, end int64) int64 {
	a := x.P.AllocsizePages
	return (end-1)/a*a + a - xi.m.resEnd
}

// WriteRoom is kernel.SpaceReserver: after WriteWait's flush, xfs_iomap_write_delay
// retries without preallocation and a write that still finds no room in fdblocks
// fails with ENOSPC (v3.1 fs/xfs/xfs_iomap.c); the pages inside the file's
// reservation need none.
func (x *Xfs) WriteRoom(th *kernel.Thread, in *kernel.Inode, index, n int64) int64 {
	xi := in.FS.(*xfsInode)
	room := n
	if end := index + n; end > xi.m.resEnd && (xi.flushed || x.preallocNeed(xi, end) > x.fdblocks) {
		room = max(min(n, xi.m.resEnd+x.fdblocks-index), 0)
	}
	x.full.Note(x.k.W.Now(), room, n)
	return room
}

// FullAt is kernel.SpaceReserver.
func (x *Xfs) FullAt() (sim.Time, bool) { return x.full.At, x.full.Full }

// reserve is xfs_iomap_write_delay's reservation for pages up to end: with
// preallocation while fdblocks has room, else (after the flush) just the write,
// which WriteRoom made fit (a write reserved past fdblocks anyway is counted:
// NoSpaceWrites).
func (x *Xfs) reserve(xi *xfsInode, end int64) {
	if end <= xi.m.resEnd {
		return
	}
	if need := x.preallocNeed(xi, end); !xi.flushed && need <= x.fdblocks {
		x.fdblocks -= need
		xi.m.resEnd += need
		return
	}
	xi.flushed = false
	need := end - xi.m.resEnd
	if need > x.fdblocks {
		x.NoSpaceWrites++
	}
	x.fdblocks -= need
	xi.m.resEnd = end
}

func (x *Xfs) Create(in *kernel.Inode) { in.FS = &xfsInode{} }

// swXFSIomapWrite is 4.8's iomap buffered write path: xfs_file_buffered_write →
// iomap_file_buffered_write, whose iomap_iter calls ->iomap_begin
// (xfs_buffered_write_iomap_begin: ILOCK_EXCL, xfs_iext_lookup_extent, a
// delalloc reservation with speculative preallocation when none covers the write)
// once per mapped extent of a write() call, then copies folio by folio with no
// XFS work per page. Off: 2.6.36-3.x's xfs_vm_write_begin → __xfs_get_blocks,
// one extent lookup and reservation per page (XfsParams.DelallocCost a page).
var swXFSIomapWrite = kernel.DeclareSwitch(kernel.Switch{Name: "xfs_iomap_write", Order: 202,
	Doc:    "4.8+: XFS maps a buffered write() once (iomap_file_buffered_write → xfs_buffered_write_iomap_begin), not once per page (off: 3.x's per-page __xfs_get_blocks)",
	Models: "xfs_file_buffered_write, iomap_file_buffered_write, iomap_iter, xfs_buffered_write_iomap_begin, v6.1",
	Source: "Linux 6.1.172 fs/xfs/xfs_file.c, fs/xfs/xfs_iomap.c, fs/iomap/buffered-io.c; the iomap buffered write path arrived in 4.8"})

var pathXFSWriteMap = swXFSIomapWrite.DeclarePath("xfs_buffered_write.map",
	"XFS buffered writes mapped: once per write() (iomap, 4.8+) or once per page (3.x __xfs_get_blocks)")

// WriteBegin is xfs_vm_write_begin for n newly dirtied pages: the per-page delalloc
// reservation (XfsParams.DelallocCost), or with xfs_iomap_write one mapping per
// write() call and iomap's per-folio work (IomapFolioCost). The writer's CPU
// burst for the pages starts now; __xfs_get_blocks holds the ILOCK exclusively for one extent lookup per page.
func (x *Xfs) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n, calls int64) sim.Time {
	c := &x.k.P.Costs
	xi := in.FS.(*xfsInode)
	now := x.k.W.Now()
	maps := n            // lookups under ILOCK_EXCL, each DelallocCost
	iomap := sim.Time(0) // iomap_write_begin/iomap_write_end per folio
	x.k.Fired(pathXFSWriteMap)
	if x.iomapWrite {
		maps = min(max(calls, 1), n)
		fp := x.xfsFolioPages(in)
		iomap = sim.Time((n+fp-1)/fp) * x.P.IomapFolioCost
	}
	busyFor := sim.Time(maps)*x.P.DelallocCost + sim.Time(n)*(c.CopyPage+c.NewDirtyPage) + iomap
	xi.writer.set(now, busyFor, maps, x.P.BmapiHold)
	x.reserve(xi, index+n)
	x.log.logTimestamp(in)
	// __xfs_get_blocks' xfs_ilock(ILOCK_EXCL) blocks while writeback's
	// xfs_map_blocks (shared) or completion's xfs_setfilesize holds the lock: the
	// writer sleeps on the rwsem and is woken by the holder's unlock. The expected
	// cost over n lookups (a mean, not drawn per page).
	busy := min(xi.mapper.heldPPM(now)+xi.completion.heldPPM(now), 1_000_000)
	wait := sim.Time(maps * busy * int64(c.SleepWake) / 1_000_000)
	return sim.Time(maps)*x.P.DelallocCost + iomap + wait
}

// ilockNowait is xfs_ilock_nowait(ip, XFS_ILOCK_SHARED) for writeback.
func (x *Xfs) ilockNowait(in *kernel.Inode) bool { return x.ilockAt(in, x.k.W.Now()) }

// ilockAt is ilockNowait tried at virtual time now (≥ the World's time: a call
// inside a batch of ->writepage calls computed in one step). The shared lock
// conflicts with IO completion's exclusive xfs_setfilesize holds.
func (x *Xfs) ilockAt(in *kernel.Inode, now sim.Time) bool {
	xi := in.FS.(*xfsInode)
	return x.trylock(xi.completion.heldPPM(now), xi.writer.heldPPM(now))
}

func (x *Xfs) Writepages(wc *kernel.WritebackCtx) bool {
	if x.k.P.Variants.On(kernel.SwWCPTerminateLE0) || wc.Wbc.SyncMode != kernel.WBSyncNone {
		return wc.WriteCachePages()
	}
	// 2.6.36-rc1's generic write_cache_pages, its steady state batched (oldRuleStep)
	return wc.WalkDirty(true, func(s, e int64) (int64, bool) { return x.oldRuleStep(wc, s, e) })
}

// oldRuleStep is write_cache_pages with the 2.6.36-rc1 nr_to_write rule over the
// dirty run [s, e): a clustering ->writepage call while nr_to_write > 0, else a
// batch of the calls that follow once nr_to_write ≤ 0, which never stop the loop.
//
// Each of those calls is 2.6.36's xfs_vm_writepage on a page of the run: it maps
// the page (xfs_map_blocks: ILOCK_SHARED with trylock, xfs_bmapi), starts its own
// ioend, and still calls xfs_cluster_write, whose first xfs_convert_page converts
// the next page and does --nr_to_write ≤ 0 ⇒ done. So each call writes two pages
// as one small ioend and drives nr_to_write down by one: the thread's trace
// towrt=0, -1, -2… (write_cache_pages itself no longer decrements). The calls are
// computed in one step, each with its own ILOCK trylock at its own virtual time.
func (x *Xfs) oldRuleStep(wc *kernel.WritebackCtx, s, e int64) (int64, bool) {
	wbc := &wc.Wbc
	if wbc.NrToWrite > 0 {
		if x.k.Tracing() {
			wc.TraceWritepage(1)
		}
		n := x.Writepage(wc, s, e)
		if wbc.NrToWrite > 0 { // the old rule: decrement and test only while > 0
			wbc.NrToWrite--
			return n, wbc.NrToWrite == 0
		}
		x.k.Fired(kernel.PathWCPNrToWriteLE0) // clustering drove it <= 0: the old rule goes on
		return n, false
	}
	xi := wc.In.FS.(*xfsInode)
	x.alloc(wc.In, xi, e)
	c := &x.k.P.Costs
	end := s + min(e-s, 1024, xi.m.contig(s))
	tracing := x.k.Tracing()
	var cpu sim.Time
	i := s
	skipped := false
	calls0 := x.WritepageCalls
	trylocks := wc.TryLocks() // else xfs_map_blocks waits for the ILOCK (a µs hold)
	for i < end {
		if tracing {
			wc.TraceWritepageAt(cpu)
		}
		if !x.ilockAt(wc.In, x.k.W.Now()+cpu) {
			if trylocks {
				skipped = true // xfs_map_blocks: -EAGAIN ⇒ redirty, stop the batch here
				break
			}
			// xfs_map_blocks' blocking xfs_ilock(ILOCK_SHARED): sleep on the
			// rwsem until the holder's unlock wakes it
			cpu += c.SleepWake
			x.IlockWaits++
		}
		k := min(end-i, 2)
		if k == 2 {
			wbc.NrToWrite-- // xfs_convert_page: --nr_to_write <= 0 ⇒ done
			// converting the next page, and write_cache_pages' later visit of it
			cpu += c.ClusterPage + x.P.SkipPageCost
		}
		// xfs_cluster_write's pagevec_lookup from the next page (PAGEVEC_SIZE pages
		// of the streaming file are in the page cache) of which k-1 are converted
		if looked := min(xfsPagevecSize, e-i-1); looked > k-1 {
			cpu += sim.Time(looked-(k-1)) * x.P.LookupPageCost
		}
		cpu += c.Writepage + x.P.MapBlocksCost + c.SubmitBio
		x.submitIoend(wc.In, i, k)
		x.WritepageCalls++
		x.MaxCluster = max(x.MaxCluster, k)
		i += k
	}
	wc.Th.Charge(cpu)
	// each of these calls found nr_to_write <= 0 and did not stop the loop
	x.k.FiredN(kernel.PathWCPNrToWriteLE0, x.WritepageCalls-calls0)
	if i > s {
		xi.mapper.set(x.k.W.Now(), cpu, x.WritepageCalls-calls0, x.P.BmapiHold)
		wc.WritePages(s, i-s)
	}
	if skipped {
		x.redirty(wc)
		return i + 1 - s, false
	}
	return i - s, false
}

func (x *Xfs) redirty(wc *kernel.WritebackCtx) {
	wc.RedirtyPageForWritepage(1)
	wc.Th.Charge(x.k.P.Costs.Writepage)
	x.PagesSkipped++
	x.WritepageCalls++
}

func (x *Xfs) alloc(in *kernel.Inode, xi *xfsInode, end int64) {
	x.reserve(xi, end) // pages dirtied without WriteBegin (tests, scenarios) reserve here
	if end > xi.m.allocEnd && x.P.Layout.alloc(&xi.m, end) > 0 {
		// a new extent: xfs_iomap_write_allocate's transaction logs the inode
		// core (which clears i_update_core), the AGF and the free-space btrees;
		// pinned until the checkpoint is written
		x.log.logAlloc(in, xi.m.ext[len(xi.m.ext)-1].disk)
		xi.updateCore = false
		xi.pinnedTill = x.logForceAfter(x.k.W.Now())
	}
}

// Writepage is xfs_vm_writepage: map (allocating the delalloc extent), write the
// page, and cluster forward to the end of the extent.
func (x *Xfs) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	wbc := &wc.Wbc
	xi := wc.In.FS.(*xfsInode)
	c := &x.k.P.Costs
	var wait sim.Time
	if !x.ilockNowait(wc.In) {
		if wc.TryLocks() {
			x.redirty(wc) // xfs_map_blocks: -EAGAIN ⇒ redirty
			return 1
		}
		wait = c.SleepWake // blocking xfs_ilock: sleep until the holder unlocks
		x.IlockWaits++
	}
	x.alloc(wc.In, xi, runEnd)
	avail := min(runEnd, index+xi.m.contig(index)) - index - 1
	// xfs_cluster_write → xfs_convert_page per page: --nr_to_write <= 0 ends the
	// cluster for WB_SYNC_NONE after that page is written
	k := x.clusterLen(wc, index, avail) // 3.x, or 6.12's folios and ioends (xfs_folio.go)
	wbc.NrToWrite -= k
	cost := wait + c.Writepage + x.P.MapBlocksCost + sim.Time(k)*c.ClusterPage + c.SubmitBio
	wc.Th.Charge(cost)
	xi.mapper.set(x.k.W.Now(), cost, 1, x.P.BmapiHold)
	x.submitIoend(wc.In, index, 1+k)
	wc.WritePages(index, 1+k)
	x.WritepageCalls++
	x.MaxCluster = max(x.MaxCluster, 1+k)
	return 1 + k
}

// WriteInode is xfs_fs_write_inode (v3.1, fs/xfs/xfs_super.c). Nothing to do unless
// the in-core inode changed (i_update_core). WB_SYNC_ALL logs the inode
// (xfs_ioend_wait, then xfs_log_inode: a transaction, so the inode is pinned until
// the next checkpoint). All other writeback, kupdate's included (3.1 has no
// for_kupdate branch; logging the inode for kupdate came after 3.1, with
// xfs_log_dirty_inode), takes the ILOCK with a trylock and, with
// switch xfs_write_inode_flush, fails with EAGAIN while the inode is pinned
// (xfs_ipincount) or flush-locked (xfs_iflock_nowait), else flushes it with
// xfs_iflush(SYNC_TRYLOCK). On EAGAIN it re-marks the inode I_DIRTY_SYNC
// (xfs_mark_inode_dirty_sync). Without the switch XFS has no ->write_inode.
func (x *Xfs) WriteInode(wc *kernel.WritebackCtx) error {
	xi := wc.In.FS.(*xfsInode)
	if !x.k.P.Variants.On(swXFSWriteInodeFlush) {
		return nil
	}
	if !xi.updateCore {
		return nil
	}
	now := x.k.W.Now()
	if wc.Wbc.SyncMode == kernel.WBSyncAll {
		x.log.logInode(wc.In)
		xi.updateCore = false
		xi.pinnedTill = x.logForceAfter(now)
		return nil
	}
	fail := func(n *int64) error {
		if n != nil {
			*n++
		}
		x.EAGAIN++
		x.k.MarkInodeDirty(wc.In, kernel.IDirtySync)
		return ErrEAGAIN
	}
	if !x.ilockNowait(wc.In) {
		return fail(nil)
	}
	if now < xi.pinnedTill {
		x.k.Fired(pathXFSWriteInodeBusy)
		return fail(&x.Pinned)
	}
	if now < xi.flushTill {
		x.k.Fired(pathXFSWriteInodeBusy)
		return fail(&x.FlushLocked)
	}
	x.iflushCluster(wc.In, now)
	return nil
}

// iflushCluster is xfs_iflush(SYNC_TRYLOCK) of in (v3.1, fs/xfs/xfs_inode.c) with
// xfs_iflush_cluster: in and every other inode of its cluster buffer that is dirty,
// unpinned and not flush-locked are copied into the buffer (i_update_core cleared)
// and keep their flush lock until the buffer is written. The buffer is queued for
// delayed write (xfs_buf_delwri_queue); xfsbufd writes it once it is BufAge old,
// at its next BufTimer wake-up (xfs_log.go), or xfssyncd's xfs_flush_buftarg
// before that (the flush locks are still held until till).
func (x *Xfs) iflushCluster(in *kernel.Inode, now sim.Time) {
	till := ceilTo(now+x.P.BufAge, x.P.BufTimer)
	x.log.delwriQueue(in, till)
	// the kernel numbers its inodes consecutively: the cluster's are a slice of them
	all := x.k.Inodes()
	first := in.Ino / x.P.InodesPerCluster * x.P.InodesPerCluster
	lo := max(first, all[0].Ino) - all[0].Ino
	hi := min(first+x.P.InodesPerCluster-all[0].Ino, uint64(len(all)))
	for _, o := range all[lo:hi] {
		if o.BDI() != x.bdi {
			continue
		}
		oi, ok := o.FS.(*xfsInode)
		if !ok || (o != in && (!oi.updateCore || now < oi.pinnedTill || now < oi.flushTill)) {
			continue
		}
		oi.updateCore = false
		oi.flushTill = till
		x.Flushes++
	}
}

// logForceAfter is when the log checkpoint that holds a change logged at t is
// written: xfs_sync_worker's next xfs_log_force, every SyncdInterval from mount.
func (x *Xfs) logForceAfter(t sim.Time) sim.Time {
	return (t/x.P.SyncdInterval + 1) * x.P.SyncdInterval
}

// ceilTo rounds t up to a multiple of step.
func ceilTo(t, step sim.Time) sim.Time { return (t + step - 1) / step * step }

func (x *Xfs) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*xfsInode).m.sector(&x.P.Layout, index)
}

func (i *xfsInode) blockMap() *fileMap { return &i.m }

// FdBlocks is the free-block counter delalloc reservations draw from, in pages.
func (x *Xfs) FdBlocks() int64 { return x.fdblocks }
