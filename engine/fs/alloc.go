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

	frontier int64 // next free sector
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
			f.winCur, f.winEnd = l.window(f.win * devices.PageSectors)
			l.frontier = f.winEnd
			if l.Reserved {
				f.win = (f.winEnd - f.winCur) / devices.PageSectors
			}
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

// window returns the next window of at most want sectors at the frontier: past any
// hole the frontier is in, ending at the next hole or the device's end. Past the
// end (the device is full) it returns want sectors there: the bio-inside-device
// invariant reports the first write to them.
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
