// Package fs holds the filesystem models behind kernel.Filesystem.
package fs

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Generic is a plain filesystem without journal or delalloc: blocks are allocated at
// write() time, ->writepages is generic_writepages → write_cache_pages, and
// ->writepage (block_write_full_page) writes one page per call. Each file gets its
// own contiguous region of the device, FileRegion apart.
type Generic struct {
	k *kernel.Kernel
	// FileRegion is the space reserved per file, in sectors (files never overlap).
	FileRegion int64
	next       int64
}

type genericInode struct{ base int64 }

// NewGeneric returns the generic filesystem.
func NewGeneric() *Generic { return &Generic{FileRegion: 64 << 21} } // 64 GiB per file

func (g *Generic) Name() string { return "generic" }

func (g *Generic) Mount(k *kernel.Kernel, b *kernel.BDI) error { g.k = k; return nil }

func (g *Generic) Create(in *kernel.Inode) {
	in.FS = &genericInode{base: g.next}
	g.next += g.FileRegion
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
	wc.WritePages(index, n)
}

func (g *Generic) WriteInode(wc *kernel.WritebackCtx) error { return nil }

func (g *Generic) Sector(in *kernel.Inode, index int64) int64 {
	return in.FS.(*genericInode).base + index*8
}
