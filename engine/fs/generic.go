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
// not fit overlap others.
type Generic struct {
	k *kernel.Kernel
	// FileRegion is the space reserved per file, in sectors.
	FileRegion int64
	next       int64
	capSectors int64 // the device's capacity in whole pages' sectors; 0 = unbounded
}

type genericInode struct{ base int64 }

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

func (g *Generic) WriteBegin(th *kernel.Thread, in *kernel.Inode, index, n int64) sim.Time { return 0 }

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
