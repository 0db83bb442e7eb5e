package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

func TestBtrfsMovesChecksumCPUOffTheFlusher(t *testing.T) {
	b := NewBtrfs()
	w, k := testKernel(t, "simple", b, 100<<20, nil)
	mbps := runDD(t, w, k, 1, 35*sim.Second, true)
	csum, endio := b.WorkerCPU()
	written := k.G.NrWritten + k.G.NrWriteback
	flusher := k.Flusher().Thread().Task.CPUTime()
	t.Logf("btrfs 1dd: %.1f MB/s, flusher CPU %v, csum workers %v, endio workers %v, bumps %d", mbps, flusher, csum, endio, b.Bumps)
	// every page written was checksummed by the worker pool, none by the flusher
	assert.InDelta(t, float64(sim.Time(written)*b.P.CsumPageCost), float64(csum), float64(sim.Millisecond))
	assert.Positive(t, endio)
	assert.Less(t, flusher, sim.Time(written)*(b.P.PageCost+b.P.CsumPageCost), "no checksum time on the flusher")
	commits, meta := b.t.Commits, b.t.MetaPages
	assert.Positive(t, commits)
	assert.Positive(t, meta, "COW metadata written at transaction commit")
}

func TestBtrfsBumpsNrToWriteTo8192(t *testing.T) {
	b := NewBtrfs()
	w, k := testKernel(t, "simple", b, 1<<30, nil)
	in := k.NewInode()
	dirty(k, in, 40000)
	wc, wrote := callWritepages(t, w, k, b, in, bgWbc(1024))
	assert.Equal(t, int64(8192), wrote, "nr_to_write raised to 8192 (32 MB per call)")
	assert.Equal(t, int64(0), wc.Wbc.NrToWrite, "the bump is not given back")
	assert.Equal(t, int64(1), b.Bumps)
	bi := in.FS.(*btrfsInode)
	assert.Equal(t, int64(32768), bi.m.allocEnd, "the whole 128 MB delalloc range is allocated")
	require.NoError(t, k.CheckInvariants())
}

// TestBtrfsWritebackRunsAheadOfTheBlockLayer: the flusher only sets pages under
// writeback; the checksum workers and the submit thread feed the block layer, so
// with a 1 GB limit far more is under writeback than the block layer holds (128
// requests of 512 KiB = 16384 pages), while the bios still reach the disk in the
// order they were queued (the disk stays sequential for one dd).
func TestBtrfsWritebackRunsAheadOfTheBlockLayer(t *testing.T) {
	for _, tc := range []struct {
		name       string
		dirtyBytes int64
		minQueued  int64
	}{
		{"1G", 1 << 30, 16384},
		{"100M", 100 << 20, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBtrfs()
			w, k := testKernel(t, "wu2011-hdd", b, tc.dirtyBytes, nil)
			maxWB := int64(0)
			w.AfterEvent = func() { maxWB = max(maxWB, k.G.NrWriteback) }
			mbps := runDD(t, w, k, 1, 40*sim.Second, false)
			require.NoError(t, k.CheckInvariants())
			m, ok := k.BDI.Q.Media()
			require.True(t, ok)
			t.Logf("btrfs 1dd %s: %.1f MB/s, most under writeback %d pages, most queued outside the block layer %d, seeks %d",
				tc.name, mbps, maxWB, b.async.MaxQueuedPages, m.Seeks)
			assert.GreaterOrEqual(t, b.async.MaxQueuedPages, tc.minQueued)
			assert.LessOrEqual(t, b.async.MaxQueuedPages, maxWB)
			assert.Less(t, m.Seeks, int64(40), "bios submitted in queue order: one dd stays sequential")
		})
	}
}
