// Package fs holds the filesystem models behind kernel.Filesystem.
package fs

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Generic is a plain filesystem without journal or delalloc: blocks are allocated at
// write() time, ->writepages is generic_writepages → write_cache_pages, and
// ->writepage (block_write_full_page) writes one page per call. Each file gets its
// own contiguous region of the device, FileRegion apart. Generic keeps no free-space
// map: on a device with a capacity, placement wraps at its end (file starts and
// pages alike), so every bio stays inside the device, and files whose regions do
// not fit overlap others. It counts the pages its files hold: a write() past the
// device's pages fails with ENOSPC (WriteRoom).
type Generic struct {
	k *kernel.Kernel
	// FileRegion is the space reserved per file, in sectors.
	FileRegion int64
	next       int64
	capSectors int64 // the device's capacity in whole pages' sectors; 0 = unbounded
	used       int64 // pages allocated (files are dense up to their last write)
	full       kernel.SpaceFull
}

type genericInode struct{ base, hw int64 }

// NewGeneric returns the generic filesystem.
func NewGeneric() *Generic { return &Generic{FileRegion: 64 << 21} } // 64 GiB per file

func (g *Generic) Name() string { return "generic" }

func (g *Generic) Mount(k *kernel.Kernel, b *kernel.BDI) error {
	g.k = k
	g.capSectors = b.Q.Spec().CapacityBytes / 512 &^ 7
	return nil
}

func (g *Generic) Create(in *kernel.Inode) {
	in.FS = &genericInode{base: g.next}
	g.next += g.FileRegion
	if g.capSectors > 0 {
		g.next %= g.capSectors
	}
}

// WriteBegin allocates the pages' blocks (get_block at write time).
func (g *Generic) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n, calls int64) sim.Time {
	if gi := in.FS.(*genericInode); index+n > gi.hw {
		g.used += index + n - gi.hw
		gi.hw = index + n
	}
	return 0
}

// WriteRoom is kernel.SpaceReserver: blocks are allocated at write(), and a
// write() with no free block left fails with ENOSPC (the device's pages less
// those the files hold; placement itself keeps no map).
func (g *Generic) WriteRoom(th *kernel.Thread, in *kernel.Inode, index, n int64) int64 {
	if g.capSectors == 0 {
		return n
	}
	room := max(min(n, in.FS.(*genericInode).hw+g.capSectors/8-g.used-index), 0)
	g.full.Note(g.k.W.Now(), room, n)
	return room
}

// FullAt is kernel.SpaceReserver.
func (g *Generic) FullAt() (sim.Time, bool) { return g.full.At, g.full.Full }

func (g *Generic) Writepages(wc *kernel.WritebackCtx) bool { return wc.WriteCachePages() }

func (g *Generic) Writepage(wc *kernel.WritebackCtx, index, runEnd int64) int64 {
	g.WritepageRun(wc, index, 1)
	return 1
}

// WritepageRun is n block_write_full_page calls: one bio per page, merged by the queue.
func (g *Generic) WritepageRun(wc *kernel.WritebackCtx, index, n int64) {
	c := &g.k.P.Costs
	wc.Th.Charge(sim.Time(n)*c.Writepage + c.SubmitBio)
	if g.capSectors > 0 {
		// a run does not cross the device's end, where placement wraps
		if room := (g.capSectors - g.Sector(wc.In, index)) / 8; room < n {
			wc.WritePages(index, room)
			index, n = index+room, n-room
		}
	}
	wc.WritePages(index, n)
}

func (g *Generic) WriteInode(wc *kernel.WritebackCtx) error { return nil }

func (g *Generic) Sector(in *kernel.Inode, index int64) int64 {
	s := in.FS.(*genericInode).base + index*8
	if g.capSectors > 0 {
		s %= g.capSectors
	}
	return s
}
