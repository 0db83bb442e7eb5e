package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

func TestXfsFolioPages(t *testing.T) {
	x := NewXfs()
	_, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) { p.Variants.Set(swXFSLargeFolios, true) })
	for _, tc := range []struct {
		writeBytes, want int64
	}{
		{0, 1},            // unknown write length: order 0
		{4 << 10, 1},      // bs=4k
		{64 << 10, 16},    // bs=64k: order 4
		{1000 << 10, 128}, // 250 pages: the largest power of two below
		{1 << 20, 256},    // bs=1M: order 8
		{3 << 20, 512},    // capped at MAX_PAGECACHE_ORDER (2 MiB)
		{64 << 20, 512},
	} {
		in := k.NewInode()
		in.WriteBytes = tc.writeBytes
		assert.Equal(t, tc.want, x.xfsFolioPages(in), "write of %d bytes", tc.writeBytes)
	}
	x.k.P.Variants.Set(swXFSLargeFolios, false)
	in := k.NewInode()
	in.WriteBytes = 1 << 20
	assert.Equal(t, int64(1), x.xfsFolioPages(in), "without large folios (6.1) every folio is a page")
}

// TestXfsWritebackPass612 is one WB_SYNC_NONE ->writepages call with a budget of
// 1000 pages over 10000 contiguous dirty pages, under 6.1's and 6.12's rules.
func TestXfsWritebackPass612(t *testing.T) {
	for _, tc := range []struct {
		name              string
		folios, oneBio    bool
		writeBytes        int64
		wantWrote, wantNr int64 // pages written, nr_to_write after
		wantCalls         int64 // ->writepage steps (one per ioend)
		wantMaxIoend      int64
	}{
		{"6.1: one cluster, a page past nr_to_write", false, false, 1 << 20, 1001, -1, 1, 1001},
		{"6.12 bs=4k: exact nr_to_write, 1 MiB ioends", true, true, 4 << 10, 1000, 0, 4, 256},
		{"6.12 bs=1M: to the end of the fourth folio", true, true, 1 << 20, 1024, -24, 1, 1024},
		{"large folios only: one ioend", true, false, 1 << 20, 1024, -24, 1, 1024},
		{"one-bio ioends only: the 3.x cluster split at 256 pages", false, true, 4 << 10, 1001, -1, 4, 256},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewXfs()
			x.P.IlockHold = 0 // no contention
			w, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) {
				p.Variants.Set(swXFSLargeFolios, tc.folios)
				p.Variants.Set(swXFSIoendOneBio, tc.oneBio)
			})
			in := k.NewInode()
			in.WriteBytes = tc.writeBytes
			dirty(k, in, 10000)
			wc, wrote := callWritepages(t, w, k, x, in, bgWbc(1000))
			assert.Equal(t, tc.wantWrote, wrote)
			assert.Equal(t, tc.wantNr, wc.Wbc.NrToWrite)
			assert.Equal(t, tc.wantCalls, x.WritepageCalls)
			assert.Equal(t, tc.wantMaxIoend, x.MaxCluster)
			require.NoError(t, k.CheckInvariants())
		})
	}
}

// TestXfsPreset612 checks that 6.12 has XFS's large folios and one-bio ioends
// and 6.1 has neither.
func TestXfsPreset612(t *testing.T) {
	for _, tc := range []struct {
		preset string
		on     bool
	}{{"6.1", false}, {"6.12", true}} {
		p, err := kernel.LookupPreset(tc.preset)
		require.NoError(t, err)
		assert.Equal(t, tc.on, p.Variants.On(swXFSLargeFolios), tc.preset)
		assert.Equal(t, tc.on, p.Variants.On(swXFSIoendOneBio), tc.preset)
	}
}

// TestXfsIomapWrite: with xfs_iomap_write (4.8+: iomap_file_buffered_write →
// xfs_buffered_write_iomap_begin) a buffered write() is mapped once, whatever
// its pages; without it (3.x __xfs_get_blocks) each page is. The writer's XFS
// cost for n pages in calls write()s is DelallocCost times the mappings, plus
// with iomap IomapFolioCost per folio: per page with order-0 folios (6.1), per
// 1 MiB write with 6.12's large folios.
func TestXfsIomapWrite(t *testing.T) {
	for _, tc := range []struct {
		name         string
		iomap, large bool
		pages, calls int64
		writeBytes   int64
		maps, folios int64
	}{
		{"3.x, one 1 MiB write", false, false, 256, 1, 1 << 20, 256, 0},
		{"6.1, one 1 MiB write", true, false, 256, 1, 1 << 20, 1, 256},
		{"6.1, 256 writes of 4 KiB", true, false, 256, 256, 4096, 256, 256},
		{"6.1, 4 writes of 1 MiB", true, false, 1024, 4, 1 << 20, 4, 1024},
		{"6.12, 4 writes of 1 MiB in 1 MiB folios", true, true, 1024, 4, 1 << 20, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := NewXfs()
			_, k := testKernel(t, "wu2011-hdd", x, 100<<20, func(p *kernel.Params) {
				if tc.iomap {
					p.Variants = p.Variants.With(swXFSIomapWrite)
				}
				if tc.large {
					p.Variants = p.Variants.With(swXFSLargeFolios)
				}
			})
			in := k.NewInode()
			in.WriteBytes = tc.writeBytes
			th := k.NewThread("dd")
			got := x.WriteBegin(th, in, 0, tc.pages, tc.calls)
			require.Equal(t, sim.Time(tc.maps)*x.P.DelallocCost+sim.Time(tc.folios)*x.P.IomapFolioCost, got)
			require.Equal(t, int64(1), k.SwitchActivity()["xfs_buffered_write.map"])
		})
	}
}
