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
