package fs

import (
	"fmt"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// BtrfsParams are btrfs's tunables (v3.2 defaults, no compression, datacow).
type BtrfsParams struct {
	// MaxDelallocPages is find_lock_delalloc_range's limit (128 MB).
	MaxDelallocPages int64
	// BumpPages is __extent_writepage's nr_to_write bump limit (8192 pages; the whole
	// delalloc range when it is below twice that).
	BumpPages int64
	// CowExtentCost is cow_file_range allocating one extent in the flusher
	// (btrfs_reserve_extent, extent map and ordered extent setup).
	CowExtentCost sim.Time
	// PageCost is extent_write_cache_pages/__extent_writepage's per-page work in the
	// flusher (lock, bio building, set_page_writeback).
	PageCost sim.Time
	// CsumPageCost is crc32c of one 4 KB page, done by the worker pool
	// (btrfs_submit_bio_hook → btrfs_wq_submit_bio → __btrfs_submit_bio_start).
	CsumPageCost sim.Time
	// OrderedExtentCost is btrfs_finish_ordered_io for one extent, run by the
	// endio-write workers (file extent item, csum items, inode update).
	OrderedExtentCost sim.Time
	// Workers is thread_pool_size = min(num_online_cpus + 2, 8), per pool.
	Workers int
	// CommitInterval is the btrfs-transaction kthread's commit interval (30 s).
	CommitInterval sim.Time
	// MetaPagesPerExtent is the btree pages COW'd per data extent (fs tree leaf,
	// extent tree, checksum tree); CsumPagesPer is data pages per checksum-tree leaf
	// page (4 bytes of crc32c per page: ~1000 per 4 KB leaf).
	MetaPagesPerExtent int64
	CsumPagesPer       int64
	// MetaSector / MetaMB: the first DUP stripe of the metadata chunk and the
	// stripe's size; the second stripe follows the first, and the data chunks
	// follow both: mkfs.btrfs allocates its chunks' device extents first-fit from
	// the start of the disk, the metadata chunk before any data chunk the kernel
	// adds later. COW btree writes go sequentially through the chunk.
	MetaSector int64
	MetaMB     int64
	// Layout is the data allocator: COW, each extent exactly at the data block
	// group's frontier.
	Layout Layout
}

// DefaultBtrfsParams returns v3.2 btrfs defaults.
func DefaultBtrfsParams() BtrfsParams {
	return BtrfsParams{
		MaxDelallocPages:   128 << 8,
		BumpPages:          8192,
		CowExtentCost:      20 * sim.Microsecond,
		PageCost:           1200 * sim.Nanosecond,
		CsumPageCost:       1500 * sim.Nanosecond,
		OrderedExtentCost:  30 * sim.Microsecond,
		Workers:            8,
		CommitInterval:     30 * sim.Second,
		MetaPagesPerExtent: 3,
		CsumPagesPer:       1000,
		MetaSector:         1 << 16, // 32 MiB: after mkfs's small bootstrap chunks (estimate)
		MetaMB:             1024,    // 1 GiB stripes (estimate)
		Layout:             Layout{StartSector: 1<<16 + 2*1024<<11},
	}
}

// Btrfs is btrfs (v3.2):
//   - delalloc and COW: ->writepages (extent_writepages) finds the delalloc range
//     (≤ MaxDelallocPages) at each dirty page and allocates it in the flusher
//     (cow_file_range), always at the data block group's frontier;
//   - the nr_to_write bump: when the range is larger than what is left,
//     nr_to_write is raised to min(range, BumpPages) (the whole range below twice
//     that) and not given back;
//   - the flusher only sets pages under writeback and builds the bios; every data
//     write bio is checksummed by the worker pool and submitted in order by its
//     ordered completions (btrfsAsync, btrfs_wq_submit_bio), so the flusher never
//     waits for a request: what sits under writeback is the block layer's requests plus
//     the bios queued for checksumming and submission, bounded only by what the
//     flusher is asked to write (background writeback stops once the dirty pages,
//     not dirty + writeback, are below the background threshold);
//   - ordered-extent completion runs in the endio-write pool: its CPU is charged
//     to those threads;
//   - extra metadata writes: each extent dirties btree pages, written to both
//     DUP stripes with the superblock copies at the btrfs-transaction commit every
//     CommitInterval (btrfs_transaction.go).
type Btrfs struct {
	P BtrfsParams
	k *kernel.Kernel
	t *btrfsTrans // the transaction commit (btree blocks, superblocks)

	async       *btrfsAsync
	endio       *workerPool
	csumPending int64 // pages not yet covered by a checksum leaf

	Bumps int64
	full  kernel.SpaceFull
}

type btrfsInode struct{ m fileMap }

// NewBtrfs returns btrfs with default parameters.
func NewBtrfs() *Btrfs { return &Btrfs{P: DefaultBtrfsParams()} }

func (b *Btrfs) Name() string { return "btrfs" }

func (b *Btrfs) Mount(k *kernel.Kernel, bdi *kernel.BDI) error {
	b.P.Layout.EndSector = deviceEnd(bdi)
	b.k = k
	n := max(min(b.P.Workers, k.P.CPUs+2), 1)
	b.async = newBtrfsAsync(k, bdi, n, b.P.CsumPageCost)
	b.endio = newWorkerPool(k, bdi, "btrfs-endio-wri", n)
	b.metaChunk()
	b.t = newBtrfsTrans(k, bdi, &b.P)
	return b.mountSpace()
}

// metaChunk sizes the metadata chunk of a filesystem of 50 GB or less as
// __btrfs_alloc_chunk does (v3.1 fs/btrfs/volumes.c): 256 MB stripes instead of
// 1 GB, and at most 10 % of the filesystem; the data follows it. Larger devices
// (and those without a capacity) keep the parameters.
func (b *Btrfs) metaChunk() {
	end := b.P.Layout.EndSector
	if end == 0 || end*devices.SectorSize > 50<<30 {
		return
	}
	b.P.MetaMB = min(b.P.MetaMB, 256, end*devices.SectorSize/10>>20)
	b.P.Layout.StartSector = b.P.MetaSector + 2*b.P.MetaMB<<11
}

// mountSpace counts the data space: the device past the metadata chunk, less the
// superblock mirrors inside it (holes). A device that leaves no data space is
// refused (mkfs.btrfs would lay its chunks out differently; not modelled).
func (b *Btrfs) mountSpace() error {
	l := &b.P.Layout
	if l.EndSector == 0 {
		return nil
	}
	if l.EndSector <= l.StartSector {
		return fmt.Errorf("btrfs: device of %s is too small: the model's metadata chunk ends at %s",
			devices.FormatBytes(l.EndSector*devices.SectorSize), devices.FormatBytes(l.StartSector*devices.SectorSize))
	}
	for _, s := range b.t.supers {
		if s >= l.StartSector {
			l.Holes = append(l.Holes, Hole{s, s + devices.PageSectors})
		}
	}
	l.Blocks, l.Delalloc = l.dataPages(), true
	return nil
}

// WriteRoom is kernel.SpaceReserver: btrfs_file_aio_write →
// btrfs_delalloc_reserve_space → btrfs_check_data_free_space (v3.1) reserves the
// write's bytes in the data space_info; when used + reserved + the write exceed
// the data chunks it allocates a new chunk (do_chunk_alloc) while the device has
// unallocated space, else commits the transaction (freeing pinned extents: none
// here) and fails the write() with ENOSPC. The chunks are the whole data area.
// The metadata reservation never fails here: the model's btree writes cycle
// through their fixed chunk.
func (b *Btrfs) WriteRoom(th *kernel.Thread, in *kernel.Inode, index, n int64) int64 {
	room := b.P.Layout.delallocRoom(&in.FS.(*btrfsInode).m, index, n)
	b.full.Note(b.k.W.Now(), room, n)
	return room
}

// FullAt is kernel.SpaceReserver.
func (b *Btrfs) FullAt() (sim.Time, bool) { return b.full.At, b.full.Full }

func (b *Btrfs) Create(in *kernel.Inode) {
	in.FS = &btrfsInode{}
	b.t.pendingMeta += 2 // inode item, dir item
}

// WriteBegin reserves the delalloc blocks of the pages (WriteRoom granted them).
func (b *Btrfs) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n, calls int64) sim.Time {
	b.P.Layout.reserve(&in.FS.(*btrfsInode).m, index+n)
	return 0
}

// Writepages is extent_writepages → extent_write_cache_pages → __extent_writepage.
func (b *Btrfs) Writepages(wc *kernel.WritebackCtx) bool {
	if !wc.WalkStarted() {
		wc.Th.Sub.StartPlug()
	}
	// extent_write_cache_pages (2.6.3x, the versions read) looks pages up by
	// PAGECACHE_TAG_DIRTY only: no TOWRITE tagging
	blocked := wc.WalkDirty(false, func(s, e int64) (int64, bool) { return b.writeRange(wc, s, e) })
	if wc.WalkDone() {
		wc.Th.Sub.FinishPlug()
	}
	return blocked
}

func (b *Btrfs) writeRange(wc *kernel.WritebackCtx, s, e int64) (int64, bool) {
	wbc := &wc.Wbc
	bi := wc.In.FS.(*btrfsInode)
	c := &b.k.P.Costs
	if s >= bi.m.allocEnd {
		// a delalloc page: find_lock_delalloc_range + run_delalloc_range
		delalloc := min(e-s, b.P.MaxDelallocPages)
		if wbc.SyncMode == kernel.WBSyncNone && wbc.NrToWrite < delalloc {
			thresh := b.P.BumpPages
			if delalloc < 2*thresh {
				thresh = delalloc
			}
			wbc.NrToWrite = min(delalloc, thresh)
			b.Bumps++
		}
		// one ordered extent per range, even when it continues the previous one on disk
		ext := max(b.P.Layout.alloc(&bi.m, s+delalloc), 1)
		wc.Th.Charge(sim.Time(ext) * b.P.CowExtentCost)
		b.t.pendingMeta += ext * b.P.MetaPagesPerExtent
		b.csumPending += delalloc
		b.t.pendingMeta += b.csumPending / b.P.CsumPagesPer
		b.csumPending %= b.P.CsumPagesPer
		b.endio.add(sim.Time(ext) * b.P.OrderedExtentCost)
	}
	n := min(e-s, bi.m.allocEnd-s, bi.m.contig(s))
	if wbc.SyncMode == kernel.WBSyncNone {
		n = min(n, max(wbc.NrToWrite, 1))
	}
	wc.Th.Charge(sim.Time(n)*b.P.PageCost + c.SubmitBio)
	b.async.queue(wc.StartWriteback(s, n))
	wbc.NrToWrite -= n
	return n, wbc.NrToWrite <= 0 && wbc.SyncMode == kernel.WBSyncNone
}

func (b *Btrfs) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	nr := wc.Wbc.NrToWrite
	n, _ := b.writeRange(wc, index, index+1)
	wc.Wbc.NrToWrite = nr - n + 1
	return n
}

// WriteInode is btrfs_write_inode: WB_SYNC_ALL commits the transaction; otherwise
// the inode item is updated in the running transaction.
func (b *Btrfs) WriteInode(wc *kernel.WritebackCtx) error {
	b.t.pendingMeta++
	if wc.Wbc.SyncMode == kernel.WBSyncAll {
		b.t.kick()
	}
	return nil
}

func (b *Btrfs) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*btrfsInode).m.sector(&b.P.Layout, index)
}

// WorkerCPU is the CPU time of the checksum and endio-write pools.
func (b *Btrfs) WorkerCPU() (csum, endio sim.Time) { return b.async.csumCPU(), b.endio.cpu() }

// btrfsAsync is btrfs's asynchronous data write submission: btrfs_submit_bio_hook
// (v3.1; btrfs_submit_data_write_bio in 6.1, unless an fsync is writing) hands
// every data write bio to btrfs_wq_submit_bio, which queues it on fs_info->workers
// (thread_pool_size threads). A worker checksums it (run_one_async_start:
// btrfs_csum_one_bio); the ordered completions (run_one_async_done) then pass the
// bios on in the order they were queued, so the flusher never waits for a request:
// the thread submitting them does. In 6.1 the ordered completion submits the bio
// itself (btrfs_submit_bio), which is what the model does; 3.1 put it on the
// device's pending list (schedule_bio) for its one submit worker
// (run_scheduled_bios), the same order with one more hand-off. The bios keep
// wbc_to_write_flags' REQ_BACKGROUND; 6.1's blk-wbt (get_limit) gives them
// wb_background, or max_depth while the bdi's dirtiers slept in
// balance_dirty_pages within the last second (wb_recent_wait), as a throttled dd
// does: a 60 s btrfs 1dd at 100M on 6.1 waits 77 times under max and never under
// background. Either way wbt_wait blocks the worker that submits, never the flusher.
type btrfsAsync struct {
	q        *devices.Queue
	csumCost sim.Time // per page
	workers  []*kernel.Thread
	cur      []int // the item each worker is checksumming, or -1
	idle     sim.WaitQueue
	items    []asyncBio // queued bios in btrfs_queue_worker order
	head     int        // first item not yet submitted
	next     int        // first item not yet taken by a worker
	// submitter is the worker running the ordered completions (one at a time),
	// or nil; it may be asleep waiting for a request.
	submitter *kernel.Thread
	queued    int64 // pages under writeback not yet submitted to the block layer
	// MaxQueuedPages is the most pages that were under writeback and not yet in
	// the block layer at once.
	MaxQueuedPages int64
	Bios           int64 // bios queued
}

type asyncBio struct {
	bio  devices.Bio
	done bool // checksummed
}

func newBtrfsAsync(k *kernel.Kernel, bdi *kernel.BDI, n int, csumCost sim.Time) *btrfsAsync {
	p := &btrfsAsync{q: bdi.Q, csumCost: csumCost}
	for i := 0; i < n; i++ {
		th := k.NewThreadOn(bdi, fmt.Sprintf("btrfs-worker-%d", i+1))
		th.Task.Resume = func() { p.work(i) }
		th.Task.Wait(&p.idle)
		p.workers = append(p.workers, th)
		p.cur = append(p.cur, -1)
	}
	return p
}

// queue is btrfs_wq_submit_bio for one data write bio.
func (p *btrfsAsync) queue(b devices.Bio) {
	if p.head > 1024 && p.head == p.next {
		// drop the items already submitted (no worker holds any of them)
		p.items = append(p.items[:0], p.items[p.head:]...)
		p.next -= p.head
		p.head = 0
	}
	p.items = append(p.items, asyncBio{bio: b})
	p.Bios++
	p.queued += b.Pages
	p.MaxQueuedPages = max(p.MaxQueuedPages, p.queued)
	p.idle.WakeOne()
}

// work is one btrfs worker thread: run the ordered completions of every
// checksummed bio at the head of the queue (submitting them under a plug; a
// submission that waits for a request puts this worker to sleep), then checksum
// the next queued bio (run_one_async_start).
func (p *btrfsAsync) work(i int) {
	th := p.workers[i]
	if p.submitter == th {
		p.submitter = nil // its submission got its request
	}
	for {
		if k := p.cur[i]; k >= 0 {
			p.items[k].done = true
			p.cur[i] = -1
		}
		if p.submitter == nil && p.head < p.next && p.items[p.head].done {
			if !th.Sub.Plugged() {
				th.Sub.StartPlug()
			}
			for p.head < p.next && p.items[p.head].done {
				b := p.items[p.head].bio
				p.head++
				p.queued -= b.Pages
				if p.q.Submit(th.Sub, b) {
					p.submitter = th
					return
				}
			}
			th.Sub.FinishPlug()
		}
		if p.next == len(p.items) {
			th.Task.Wait(&p.idle)
			return
		}
		p.cur[i] = p.next
		th.Charge(sim.Time(p.items[p.next].bio.Pages) * p.csumCost)
		p.next++
		if th.YieldCPU() {
			return
		}
	}
}

func (p *btrfsAsync) csumCPU() sim.Time {
	t := sim.Time(0)
	for _, th := range p.workers {
		t += th.Task.CPUTime()
	}
	return t
}

// workerPool is a btrfs_workers pool: kernel threads taking CPU work from a queue.
type workerPool struct {
	ths     []*kernel.Thread
	idle    sim.WaitQueue
	pending sim.Time
	slice   sim.Time
}

func newWorkerPool(k *kernel.Kernel, bdi *kernel.BDI, name string, n int) *workerPool {
	p := &workerPool{slice: 200 * sim.Microsecond}
	for i := 0; i < n; i++ {
		th := k.NewThreadOn(bdi, fmt.Sprintf("%s-%d", name, i+1))
		th.Task.Resume = func() { p.run(th) }
		th.Task.Wait(&p.idle)
		p.ths = append(p.ths, th)
	}
	return p
}

func (p *workerPool) add(cost sim.Time) {
	if cost <= 0 {
		return
	}
	p.pending += cost
	p.idle.WakeOne()
}

func (p *workerPool) run(th *kernel.Thread) {
	if p.pending <= 0 {
		th.Task.Wait(&p.idle)
		return
	}
	c := min(p.pending, p.slice)
	p.pending -= c
	if p.pending > 0 {
		p.idle.WakeOne()
	}
	th.Charge(c)
	th.YieldCPU()
}

func (p *workerPool) cpu() sim.Time {
	t := sim.Time(0)
	for _, th := range p.ths {
		t += th.Task.CPUTime()
	}
	return t
}

func (i *btrfsInode) blockMap() *fileMap { return &i.m }
