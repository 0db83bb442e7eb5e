package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// TestENOSPCPerFilesystem fills a 3 GiB disk with 4 dd on each filesystem: every
// dd's write() fails with ENOSPC and it exits, having written about the free
// blocks; the flusher then writes every dirty page; an editor that starts on the
// full disk fails every save; every extent lies inside the
// device and off its holes (journal, log, superblock mirrors); no bio left it, and
// the kernel's invariants hold after every event.
func TestENOSPCPerFilesystem(t *testing.T) {
	for _, c := range []struct {
		fs     string
		layout func(kernel.Filesystem) *Layout // nil: no block map (generic)
	}{
		{"generic", nil},
		{"ext3", func(f kernel.Filesystem) *Layout { return &f.(*Ext3).P.Layout }},
		{"ext4", func(f kernel.Filesystem) *Layout { return &f.(*Ext4).P.Layout }},
		{"xfs", func(f kernel.Filesystem) *Layout { return &f.(*Xfs).P.Layout }},
		{"btrfs", func(f kernel.Filesystem) *Layout { return &f.(*Btrfs).P.Layout }},
	} {
		t.Run(c.fs, func(t *testing.T) {
			const capacity = 3 << 30
			w := sim.NewWorld(1000, 1)
			spec, err := devices.Preset("simple")
			require.NoError(t, err)
			spec.CapacityBytes = capacity
			q, err := devices.New(w, spec, devices.LegacyBlock(spec, 512))
			require.NoError(t, err)
			f, err := New(c.fs)
			require.NoError(t, err)
			p := kernel.Params{CPUs: 8, MemoryMB: 4096, Sysctls: kernel.Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
				DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: kernel.DefaultCosts(),
				Variants: kernel.Variants{}.With(kernel.SwWCPTerminateLE0, ksw("scaled_chunk"), swExt4WritebackBump, swXFSWriteInodeFlush)}
			k, err := kernel.New(w, p)
			require.NoError(t, err)
			_, err = k.AddDisk("8:0", q, f, kernel.DefaultBdiKnobs())
			require.NoError(t, err)
			var dds []*workload.DD
			for range 4 {
				d := workload.NewDD(k, 1<<20, 0, false)
				d.Start(0)
				dds = append(dds, d)
			}
			var ierr error
			w.AfterEvent = func() {
				if ierr == nil {
					ierr = k.CheckInvariants()
				}
			}
			// an editor starting on the full disk: every save's write() fails
			ed := workload.NewEditorOn(k, k.BDI, 64<<10, sim.Second)
			ed.Start(100 * sim.Second)
			require.NoError(t, w.Run(120*sim.Second))
			require.NoError(t, ierr, "invariants after every event")
			assert.GreaterOrEqual(t, ed.Enospc, int64(15), "a failed save a second")
			assert.Zero(t, ed.Saves().N, "no save completed")
			require.NoError(t, q.CapacityErr())

			at, full := f.(kernel.SpaceReserver).FullAt()
			require.True(t, full, "the filesystem filled")
			written := int64(0)
			for i, d := range dds {
				assert.True(t, d.Done && d.Enospc, "dd %d exited with ENOSPC", i)
				assert.Equal(t, "enospc", d.ExitCause())
				assert.GreaterOrEqual(t, d.Ended, at, "dd %d exited after the first ENOSPC", i)
				written += d.Written()
			}
			assert.Less(t, at, 100*sim.Second, "60 MiB/s fills 3 GiB in ~55 s")
			assert.Equal(t, k.G.NrDirtied, k.G.NrWritten, "the flusher wrote every dirty page after the writers exited")
			assert.LessOrEqual(t, written, int64(capacity))
			l := (*Layout)(nil)
			if c.layout != nil {
				l = c.layout(f)
			}
			if l == nil {
				assert.Greater(t, written, int64(capacity)*99/100, "generic: the whole device")
				return
			}
			if x, ok := f.(*Xfs); ok {
				assert.Zero(t, x.NoSpaceWrites, "WriteRoom kept every reservation within fdblocks")
				assert.GreaterOrEqual(t, x.FdBlocks(), int64(0))
			}
			if l.Blocks > 0 {
				assert.Zero(t, l.reserved, "every reservation was allocated")
				assert.LessOrEqual(t, l.used, l.Blocks)
				assert.GreaterOrEqual(t, written/kernel.PageSize, l.Blocks*99/100, "dd wrote about the free blocks")
			}
			for _, in := range k.Inodes() {
				m := in.FS.(interface{ blockMap() *fileMap }).blockMap()
				for _, e := range m.ext {
					end := e.disk + e.n*devices.PageSectors
					assert.GreaterOrEqual(t, e.disk, l.StartSector)
					assert.LessOrEqual(t, end, l.EndSector, "inode %d extent inside the device", in.Ino)
					for _, h := range l.Holes {
						assert.True(t, end <= h.Start || e.disk >= h.End, "inode %d extent [%d, %d) off the hole [%d, %d)", in.Ino, e.disk, end, h.Start, h.End)
					}
				}
			}
		})
	}
}

// TestLayoutStealsWindowsAtTheEnd: once the frontier is at the device's end, a
// file takes the unused tail of another file's window, and the blocks counted
// (used) equal the pages placed.
func TestLayoutStealsWindowsAtTheEnd(t *testing.T) {
	l := Layout{StartSector: 0, EndSector: 64 * devices.PageSectors, MinWindowPages: 16, MaxWindowPages: 16}
	var a, b, c fileMap
	l.alloc(&a, 4)  // a: window [0, 16) pages, uses 4
	l.alloc(&b, 4)  // b: [16, 32)
	l.alloc(&c, 32) // c: [32, 48) and [48, 64): the device is full
	require.Equal(t, l.EndSector, l.frontier)
	l.alloc(&c, 52) // c takes a's unused 12 pages, then b's
	assert.Equal(t, int64(52), c.allocEnd)
	assert.Equal(t, int64(60), l.used, "a 4, b 4, c 52")
	for _, e := range c.ext {
		assert.LessOrEqual(t, e.disk+e.n*devices.PageSectors, l.EndSector)
	}
	assert.Equal(t, a.winCur, a.winEnd, "a's window was taken")
	assert.Equal(t, b.winCur, b.winEnd, "b's window was taken")
	assert.Equal(t, int64(4*devices.PageSectors), c.winEnd-c.winCur, "c keeps 4 pages of b's")
}

// TestLayoutNeedCountsIndirectBlocks: ext3's allocation needs one inline indirect
// block before every GapEvery data pages; allocRoom grants the pages that fit.
func TestLayoutNeedCountsIndirectBlocks(t *testing.T) {
	l := Layout{GapEvery: 1024}
	var f fileMap
	for _, c := range []struct {
		end, need int64
	}{{0, 0}, {1, 2}, {1024, 1025}, {1025, 1027}, {2048, 2050}, {2049, 2052}} {
		assert.Equal(t, c.need, l.need(&f, c.end), "pages [0, %d)", c.end)
	}
	assert.Equal(t, int64(1024), l.allocRoom(&f, 0, 2000, 1026), "1025 blocks for 1024 pages, the 1025th page needs two")
	assert.Equal(t, int64(0), l.allocRoom(&f, 0, 10, 1), "one block: only the indirect block")
}

// TestExt2Blocks: mke2fs's free blocks on a 100 GB (wu2011-hdd) and a 1 GiB
// partition, by hand: groups' bitmaps and inode tables (514 blocks each), the
// sparse_super backups with their GDT and reserved GDT blocks, the journal.
func TestExt2Blocks(t *testing.T) {
	for _, c := range []struct {
		name  string
		bytes int64
		want  int64
	}{
		// 24414062 blocks, 746 groups, gdb 6, reserved GDT 1018; backups in
		// groups 1, 3, 5, 7, 9, 25, 27, 49, 81, 125, 243, 343, 625, 729
		{"100 GB", 100_000_000_000, 24414062 - 2048 - 32768 - 745*514 - 14*(1+6+1018)},
		// 262144 blocks, 8 groups, gdb 1, reserved GDT 63; backups in 1, 3, 5, 7
		{"1 GiB", 1 << 30, 262144 - 2048 - 32768 - 7*514 - 4*(1+1+63)},
	} {
		t.Run(c.name, func(t *testing.T) {
			end := c.bytes / devices.SectorSize &^ (devices.PageSectors - 1)
			j := end / 2 &^ 7
			l := Layout{StartSector: 2048 * 8, EndSector: end, Holes: []Hole{{j, j + 32768*devices.PageSectors}}}
			assert.Equal(t, c.want, ext2Blocks(&l))
		})
	}
	for g, want := range map[int64]bool{1: true, 2: false, 3: true, 9: true, 25: true, 49: true, 50: false, 343: true, 81: true, 100: false} {
		assert.Equal(t, want, sparseGroup(g), "group %d", g)
	}
}
