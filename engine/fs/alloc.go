package fs

import (
	"sort"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
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
//
// Checked against the 3.1 sources (issue 17), per filesystem:
//   - ext3 (balloc.c, alloc_new_reservation): a file's reservation window starts at
//     EXT3_DEFAULT_RESERVE_BLOCKS (8) and doubles, up to EXT3_MAX_RESERVE_BLOCKS
//     (1027), whenever more than half of the old window was used; the new window
//     is the first reservable gap at or after the goal (the block after the file's
//     last one), i.e. after every window taken since: the frontier. Allocation is at
//     write() time, so windows interleave in the writers' write() order.
//   - ext4 (mballoc.c): a file larger than s_mb_stream_request (16 blocks) is a
//     stream allocation. ext4_mb_normalize_request rounds a request of a file past
//     8 MB to its 8 MB-aligned logical window (the "max <= 8 * 1024" branch is always
//     taken with 4 KB blocks); the part not used now becomes the inode's
//     preallocation. The goal is the block after the file's last extent, tried
//     first (TRY_GOAL, set when the request continues it); if another file
//     allocated there, the allocator goes to s_mb_last_group/s_mb_last_start, where
//     the last stream allocation of any file ended: the frontier. delalloc hands
//     writeback extents of at most 8 MB (mpage_add_bh_to_extent). Windows of 2048
//     pages from the frontier; files under 8 MB start with smaller normalized
//     windows (not modelled).
//   - xfs (allocsize=1g, the harness's mount): xfs_iomap_write_delay reserves the
//     write plus 1 GB of speculative preallocation past EOF as delalloc;
//     xfs_iomap_write_allocate converts the whole delalloc extent (to its last
//     block, prealloc included) in one xfs_bmapi, near the file's last block if
//     free, else the nearest free space in the AG; files of one directory (inode64)
//     share their AG. Windows of 1 GB from the frontier.
//   - btrfs: COW; every writeback extent is allocated from the data block group's
//     free space cursor in writeback order, whichever file it belongs to: no window,
//     the disk sees one stream.
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
	// EndSector is the end of the device (sectors, page aligned); 0 = unbounded.
	// A window never runs past it: one that would is shrunk to the space left.
	EndSector int64
	// Holes are sector ranges the data may not use (XFS's log), sorted: a window
	// that reaches one ends at its start, the next starts after it.
	Holes []Hole
	// Reserved makes a file's window its delalloc reservation (fileMap.resEnd,
	// set by the filesystem at write time) instead of MinWindowPages doubling.
	Reserved bool
	// Blocks is how many blocks (pages) the filesystem may allocate: its free
	// blocks at mount, set by Mount from the device's capacity; 0 = unbounded.
	// Writes that would need more fail with ENOSPC (WriteRoom).
	Blocks int64
	// Delalloc makes allocation consume the pages' delalloc reservations
	// (Reserve at write(); ext4, btrfs).
	Delalloc bool

	frontier int64 // next free sector
	used     int64 // blocks allocated (data and inline metadata)
	reserved int64 // delalloc reservations not yet allocated (Delalloc)
	// files are the block maps that took a window, in order: when the frontier
	// reaches the device's end, a file takes the unused rest of another's window
	// (steal)
	files []*fileMap
	// Gaps collects the sectors of inline metadata blocks allocated so far (the
	// filesystem takes and clears them).
	Gaps []int64
}

// deviceEnd is b's device's end in sectors, page aligned (0: no capacity given).
func deviceEnd(b *kernel.BDI) int64 {
	return b.Q.Spec().CapacityBytes / devices.SectorSize &^ (devices.PageSectors - 1)
}

// Hole is a sector range [Start, End) the allocator skips.
type Hole struct{ Start, End int64 }

// extent maps file pages [file, file+n) to sectors from disk.
type extent struct{ file, disk, n int64 }

// fileMap is one file's block map (allocated in file order, append-only).
type fileMap struct {
	ext      []extent
	allocEnd int64 // pages [0, allocEnd) are allocated
	winCur   int64 // next free sector of the current window
	winEnd   int64 // end of the current window (sector)
	win      int64 // current window size, pages
	resEnd   int64 // pages [0, resEnd) hold a delalloc reservation (Layout.Reserved)
	gapDone  bool  // the inline metadata block for the run at allocEnd is placed
	listed   bool  // in Layout.files
	// hw is the end of the pages written so far: pages below it hold blocks or a
	// delalloc reservation (the model's files are dense up to their last write)
	hw int64
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
			case l.Reserved: // the file's delalloc reservation, prealloc included
				f.win = max(f.resEnd, end) - f.allocEnd
			case l.MinWindowPages == 0: // no reservation: exactly what is asked (COW)
				f.win = end - f.allocEnd
			case f.win == 0:
				f.win = l.MinWindowPages
			default:
				f.win = min(2*f.win, l.MaxWindowPages)
			}
			if !f.listed {
				f.listed = true
				l.files = append(l.files, f)
			}
			f.winCur, f.winEnd = l.window(f.win * devices.PageSectors)
			if l.EndSector > 0 && f.winCur >= l.EndSector {
				// no space left at the frontier: the free blocks are the unused
				// rest of other files' windows (Blocks keeps writes within them)
				f.winCur, f.winEnd = l.steal(f, f.win*devices.PageSectors)
			} else {
				l.frontier = f.winEnd
			}
			if l.Reserved {
				f.win = (f.winEnd - f.winCur) / devices.PageSectors
			}
		}
		if l.GapEvery > 0 && f.allocEnd%l.GapEvery == 0 && !f.gapDone {
			// the indirect block before this run of GapEvery blocks
			l.Gaps = append(l.Gaps, f.winCur)
			f.winCur += devices.PageSectors
			f.gapDone = true
			l.used++
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
		l.used += n
		if l.Delalloc {
			l.reserved -= n
		}
	}
	return newExtents
}

// steal gives f the unused rest of another file's window, at most want sectors of
// its tail: the blocks ext3 then allocates without a reservation window
// (ext3_try_to_allocate_with_rsv falling back to my_rsv = NULL, v3.1 balloc.c) and
// ext4 gets back by discarding other inodes' preallocations
// (ext4_mb_discard_preallocations, v3.1 mballoc.c). With none left it returns the
// frontier, past the device's end: the bio-inside-device invariant reports the
// first write there (Blocks is meant to stop writes before that).
func (l *Layout) steal(f *fileMap, want int64) (start, end int64) {
	for _, v := range l.files {
		if v == f || v.winCur >= v.winEnd {
			continue
		}
		start = max(v.winCur, v.winEnd-want)
		end = v.winEnd
		v.winEnd = start
		return start, end
	}
	return l.frontier, l.frontier + want
}

// free is the blocks left to reserve or allocate (Blocks set).
func (l *Layout) free() int64 { return l.Blocks - l.used - l.reserved }

// need is the blocks allocating f's pages up to end takes: the pages past
// allocEnd and their inline metadata blocks (GapEvery).
func (l *Layout) need(f *fileMap, end int64) int64 {
	if end <= f.allocEnd {
		return 0
	}
	n := end - f.allocEnd
	if g := l.GapEvery; g > 0 {
		// gap blocks before pages i ≡ 0 (mod g) in [allocEnd, end), less one
		// already placed for allocEnd
		n += (end-1)/g - (f.allocEnd-1+g)/g + 1
		if f.allocEnd%g == 0 && f.gapDone {
			n--
		}
	}
	return n
}

// allocRoom is how many of the pages [index, index+n) of f an allocating write()
// (ext3: blocks at write time) can get blocks for within free blocks.
func (l *Layout) allocRoom(f *fileMap, index, n, free int64) int64 {
	if l.need(f, index+n) <= free {
		return n
	}
	// the largest k with need(index+k) ≤ free (need grows with k)
	return int64(sort.Search(int(n+1), func(k int) bool { return l.need(f, index+int64(k)) > free })) - 1
}

// delallocRoom is how many of the pages [index, index+n) of f a delalloc write()
// can reserve: pages below f.hw are reserved or allocated already, the rest need
// one block each.
func (l *Layout) delallocRoom(f *fileMap, index, n int64) int64 {
	if l.Blocks == 0 {
		return n
	}
	return max(min(n, max(f.hw, f.allocEnd)-index+l.free()), 0)
}

// reserve reserves the delalloc blocks of f's pages up to end (Delalloc).
func (l *Layout) reserve(f *fileMap, end int64) {
	if from := max(f.hw, f.allocEnd); end > from {
		l.reserved += end - from
	}
	f.hw = max(f.hw, end)
}

// dataPages is the pages between StartSector and EndSector outside the holes.
func (l *Layout) dataPages() int64 {
	n := (l.EndSector - l.StartSector) / devices.PageSectors
	for _, h := range l.Holes {
		s, e := max(h.Start, l.StartSector), min(h.End, l.EndSector)
		if e > s {
			n -= (e - s + devices.PageSectors - 1) / devices.PageSectors
		}
	}
	return n
}

// window returns the next window of at most want sectors at the frontier: past any
// hole the frontier is in, ending at the next hole or the device's end. Past the
// end (no space left at the frontier) it returns want sectors there; alloc then
// takes another file's unused window instead (steal).
func (l *Layout) window(want int64) (start, end int64) {
	start = l.frontier
	for _, h := range l.Holes {
		if start >= h.Start && start < h.End {
			start = h.End
		}
	}
	end = start + want
	for _, h := range l.Holes {
		if h.Start > start && h.Start < end {
			end = h.Start
		}
	}
	if l.EndSector > 0 && end > l.EndSector && start < l.EndSector {
		end = l.EndSector
	}
	return start, end
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

// Frontier is the next sector windows are taken from (for tests and reports).
func (l *Layout) Frontier() int64 { return max(l.frontier, l.StartSector) }

// mke2fs's geometry for 4 KB blocks (e2fsprogs 1.41/1.42 defaults, ext3 and ext4
// alike): 32768 blocks per group, one inode per 16 KB (inode_ratio), 256-byte
// inodes, 128 group descriptors per block.
const (
	ext2BlocksPerGroup = 32768
	ext2InodeRatio     = 16384
	ext2InodeSize      = 256
	ext2DescPerBlock   = 128
)

// ext2Blocks is what ext3/ext4's free-block count starts at on l's device
// (s_free_blocks_count after mke2fs): the data area (l.dataPages: the device
// past the first group's headers, less the journal, a hole) less every other
// group's block and inode bitmaps and inode table, and the superblock and group
// descriptor backups (with the reserved GDT blocks of resize_inode) in the
// sparse_super groups 1 and powers of 3, 5 and 7 (mke2fs's ext2fs_initialize and
// calc_reserved_gdt_blocks). 0 when the device has no capacity. The space is
// counted, not laid out: the data windows do not skip those blocks.
func ext2Blocks(l *Layout) int64 {
	if l.EndSector == 0 {
		return 0
	}
	blocks := l.EndSector / devices.PageSectors
	groups := (blocks + ext2BlocksPerGroup - 1) / ext2BlocksPerGroup
	itable := int64(ext2BlocksPerGroup / ext2InodeRatio * devices.PageSize * ext2InodeSize / devices.PageSize)
	gdb := (groups + ext2DescPerBlock - 1) / ext2DescPerBlock
	rsvGroups := (min(0xffffffff, blocks*1024) + ext2BlocksPerGroup - 1) / ext2BlocksPerGroup
	rsvGdb := min((rsvGroups+ext2DescPerBlock-1)/ext2DescPerBlock-gdb, int64(devices.PageSize/4))
	backups := int64(0)
	for g := int64(1); g < groups; g++ {
		if sparseGroup(g) {
			backups++
		}
	}
	return max(l.dataPages()-(groups-1)*(2+itable)-backups*(1+gdb+rsvGdb), 0)
}

// sparseGroup reports whether group g > 0 holds a superblock backup
// (ext2fs_bg_has_super with sparse_super: 1 and the powers of 3, 5 and 7).
func sparseGroup(g int64) bool {
	if g == 1 {
		return true
	}
	for _, b := range []int64{3, 5, 7} {
		p := b
		for p < g {
			p *= b
		}
		if p == g {
			return true
		}
	}
	return false
}
