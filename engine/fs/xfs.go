package fs

import (
	"errors"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// XfsParams are XFS's tunables (v3.2, mounted as the harness does:
// -o allocsize=1g,nobarrier,inode64).
type XfsParams struct {
	// AllocsizePages is the allocsize= mount option in pages (1 GB): speculative
	// preallocation beyond EOF, so a streaming file gets 1 GB extents.
	AllocsizePages int64
	// IlockHold is how long IO completion's xfs_setfilesize holds the inode's
	// ILOCK (exclusive) to move i_size of an appending file.
	IlockHold sim.Time
	// CompletionPages is the writeback completed per xfs_setfilesize call: XFS
	// completes ioends in batches of about one request (512 KB = 128 pages).
	CompletionPages int64
	// MapBlocksCost is xfs_map_blocks per ->writepage call: ILOCK, the extent
	// lookup (xfs_bmapi) and ioend setup; clustered pages reuse the mapping.
	MapBlocksCost sim.Time
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
	// Layout is the block allocator: each file's allocsize windows at the frontier.
	Layout Layout
}

// DefaultXfsParams returns the harness's XFS.
func DefaultXfsParams() XfsParams {
	const gb = 1 << 18 // pages
	return XfsParams{
		AllocsizePages:  gb,
		IlockHold:       10 * sim.Microsecond,
		CompletionPages: 128,
		MapBlocksCost:   4 * sim.Microsecond,
		DelallocCost:    4 * sim.Microsecond,
		Layout:          Layout{StartSector: 2048 * 8, MinWindowPages: gb, MaxWindowPages: gb},
	}
}

// Xfs is XFS (v3.2):
//   - delalloc with allocsize=1g speculative preallocation: blocks are allocated at
//     writeback (xfs_iomap_write_allocate) in 1 GB windows per file;
//   - ->writepages is generic_writepages; ->writepage (xfs_vm_writepage) writes its
//     page and clusters forward to the end of the mapped extent (xfs_cluster_write
//     → xfs_convert_page), decrementing nr_to_write per clustered page and stopping
//     at ≤ 0 for WB_SYNC_NONE; it does not cluster once nr_to_write ≤ 0
//     (2.6.36-era xfs_vm_writepage);
//   - WB_SYNC_NONE writeback takes the ILOCK with xfs_ilock_nowait. Contention
//     model: while the inode has writeback in flight, IO completion's
//     xfs_setfilesize takes the ILOCK for IlockHold once per CompletionPages
//     completed, so the lock is held a fraction p = IlockHold × (bdi write
//     bandwidth / CompletionPages) of the time (~0.1 % at 60 MB/s, ~4 % at 2 GB/s). Each
//     non-blocking attempt that finds the lock free draws from the World's seeded
//     Rand with probability p; a hit holds the lock for IlockHold from now, so the
//     pages tried in that window all fail. A failed ->writepage redirties the page
//     (redirty_page_for_writepage: pages_skipped++ ⇒ redirty_tail); a failed
//     ->write_inode returns EAGAIN and re-marks the inode I_DIRTY_SYNC;
//   - with write_cache_pages' 2.6.36-rc1 termination rule (Variants.WCPTerminateLE0
//     off), once ->writepage drove nr_to_write to ≤ 0 write_cache_pages calls it one
//     page at a time for the rest of the file. Writepages computes that steady state
//     itself in batches (one step per batch of one-page calls instead of one event
//     per page; with tracing on, each call's wbc_writepage line is emitted).
type Xfs struct {
	P XfsParams
	k *kernel.Kernel

	cursors cursorMap
	// ioendAvg16 is the EWMA of submitted ioend sizes in 1/16 pages (0: none yet)
	ioendAvg16 int64

	// statistics
	WritepageCalls int64 // ->writepage calls (one-page calls of batches included)
	MaxCluster     int64 // most pages written by one ->writepage call
	PagesSkipped   int64 // pages redirtied on ILOCK contention
	EAGAIN         int64 // ->write_inode calls that returned EAGAIN
}

type xfsInode struct {
	m          fileMap
	lockedTill sim.Time // ILOCK held by IO completion until then
	updateCore bool     // i_update_core: the in-core inode changed since it was logged
}

// ErrEAGAIN is ->write_inode's EAGAIN.
var ErrEAGAIN = errors.New("EAGAIN")

// NewXfs returns XFS with the harness's mount options.
func NewXfs() *Xfs { return &Xfs{P: DefaultXfsParams()} }

func (x *Xfs) Name() string { return "xfs" }

func (x *Xfs) Mount(k *kernel.Kernel) error {
	x.k = k
	x.cursors = newCursorMap()
	x.P.Layout.MinWindowPages = x.P.AllocsizePages
	x.P.Layout.MaxWindowPages = x.P.AllocsizePages
	return nil
}

func (x *Xfs) Create(in *kernel.Inode) { in.FS = &xfsInode{} }

// WriteBegin is xfs_vm_write_begin for n newly dirtied pages: the per-page delalloc
// reservation (XfsParams.DelallocCost).
func (x *Xfs) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n int64) sim.Time {
	return sim.Time(n) * x.P.DelallocCost
}

// ilockNowait is xfs_ilock_nowait(ip, XFS_ILOCK_SHARED) under the contention model.
func (x *Xfs) ilockNowait(in *kernel.Inode) bool { return x.ilockAt(in, x.k.W.Now()) }

// ilockAt is ilockNowait tried at virtual time now (≥ the World's time: a call
// inside a batch of ->writepage calls computed in one step).
//
// xfs_setfilesize runs once per completed ioend, and an ioend never spans more
// than the pages one ->writepage call mapped; so the completions per second are
// the bdi's write bandwidth over the smaller of CompletionPages and the recent
// ioend size (an EWMA over the calls' ioends). Clustered writeback (ioends of a
// slice) is unaffected; 2.6.36-rc1's two-page ioends complete 64× as often and
// keep the ILOCK busy correspondingly more.
func (x *Xfs) ilockAt(in *kernel.Inode, now sim.Time) bool {
	xi := in.FS.(*xfsInode)
	if now < xi.lockedTill {
		return false
	}
	if in.Writeback.Empty() || x.P.IlockHold <= 0 {
		return true
	}
	// p = hold × completions per second, in parts per million
	bw := max(x.k.BDI.AvgWriteBandwidth, 1)
	per := max(x.P.CompletionPages, 1)
	if x.ioendAvg16 > 0 {
		per = max(min(per, x.ioendAvg16/16), 1)
	}
	ppm := int64(x.P.IlockHold) * bw / per / int64(sim.Second/1_000_000)
	if x.k.W.Rand.Int64N(1_000_000) < ppm {
		xi.lockedTill = now + x.P.IlockHold
		return false
	}
	return true
}

// noteIoend folds the size of a submitted ioend into the ioend EWMA (weight 1/8).
func (x *Xfs) noteIoend(pages int64) {
	if x.ioendAvg16 == 0 {
		x.ioendAvg16 = pages * 16
		return
	}
	x.ioendAvg16 += (pages*16 - x.ioendAvg16) / 8
}

func (x *Xfs) Writepages(wc *kernel.WritebackCtx) bool {
	if x.k.P.Variants.WCPTerminateLE0 || wc.Wbc.SyncMode != kernel.WBSyncNone {
		return wc.WriteCachePages()
	}
	c, _ := cursorFor(&x.cursors, wc)
	if daWalk(wc, c, func(s, e int64) (int64, bool) { return x.oldRuleStep(wc, s, e) }) {
		return true
	}
	dropCursor(&x.cursors, wc)
	return false
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
	for i < end {
		if tracing {
			wc.TraceWritepage(1)
		}
		if !x.ilockAt(wc.In, x.k.W.Now()+cpu) {
			skipped = true // xfs_map_blocks: -EAGAIN ⇒ redirty, stop the batch here
			break
		}
		k := min(end-i, 2)
		if k == 2 {
			wbc.NrToWrite-- // xfs_convert_page: --nr_to_write <= 0 ⇒ done
			cpu += c.ClusterPage
		}
		cpu += c.Writepage + x.P.MapBlocksCost + c.SubmitBio
		x.noteIoend(k)
		x.WritepageCalls++
		x.MaxCluster = max(x.MaxCluster, k)
		i += k
	}
	wc.Th.Charge(cpu)
	if i > s {
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
	if end > xi.m.allocEnd {
		x.P.Layout.alloc(&xi.m, end)
		xi.updateCore = true
	}
}

// Writepage is xfs_vm_writepage: map (allocating the delalloc extent), write the
// page, and cluster forward to the end of the extent.
func (x *Xfs) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	wbc := &wc.Wbc
	xi := wc.In.FS.(*xfsInode)
	if wbc.SyncMode == kernel.WBSyncNone && !x.ilockNowait(wc.In) {
		x.redirty(wc) // xfs_map_blocks: -EAGAIN ⇒ redirty
		return 1
	}
	x.alloc(wc.In, xi, runEnd)
	avail := min(runEnd, index+xi.m.contig(index)) - index - 1
	k := int64(0)
	switch {
	case wbc.SyncMode == kernel.WBSyncAll:
		k = avail
	case wbc.NrToWrite > 0:
		k = min(avail, wbc.NrToWrite)
	}
	wbc.NrToWrite -= k
	c := &x.k.P.Costs
	wc.Th.Charge(c.Writepage + x.P.MapBlocksCost + sim.Time(k)*c.ClusterPage + c.SubmitBio)
	wc.WritePages(index, 1+k)
	x.noteIoend(1 + k)
	x.WritepageCalls++
	x.MaxCluster = max(x.MaxCluster, 1+k)
	return 1 + k
}

func (x *Xfs) OnePagePerWritepage() bool { return false }

func (x *Xfs) WritepageRun(wc *kernel.WritebackCtx, index, n int64) {
	for i := int64(0); i < n; {
		i += x.Writepage(wc, index+i, index+n)
	}
}

// WriteInode is xfs_fs_write_inode (v3.2): WB_SYNC_ALL and kupdate log the inode
// (blocking); other writeback needs the ILOCK without blocking when the in-core
// inode changed, and on EAGAIN re-marks the inode dirty (xfs_mark_inode_dirty_sync).
func (x *Xfs) WriteInode(wc *kernel.WritebackCtx) error {
	xi := wc.In.FS.(*xfsInode)
	if wc.Wbc.SyncMode == kernel.WBSyncAll || wc.Wbc.ForKupdate {
		xi.updateCore = false
		return nil
	}
	if xi.updateCore && !x.ilockNowait(wc.In) {
		x.EAGAIN++
		x.k.MarkInodeDirty(wc.In, kernel.IDirtySync)
		return ErrEAGAIN
	}
	xi.updateCore = false
	return nil
}

func (x *Xfs) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*xfsInode).m.sector(&x.P.Layout, index)
}
