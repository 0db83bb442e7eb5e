package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

func bgWbc(nr int64) kernel.WritebackControl {
	return kernel.WritebackControl{SyncMode: kernel.WBSyncNone, NrToWrite: nr, RangeCyclic: true,
		ForBackground: true, RangeEnd: 1<<63 - 1}
}

func TestXfsClusteringWritesManyPagesInOneWritepageCall(t *testing.T) {
	x := NewXfs()
	x.P.IlockHold = 0 // no contention
	w, k := testKernel(t, "simple", x, 1<<30, nil)
	in := k.NewInode()
	dirty(k, in, 10000)
	wc, wrote := callWritepages(t, w, k, x, in, bgWbc(1024))
	assert.Equal(t, int64(1), x.WritepageCalls, "one ->writepage call")
	assert.Equal(t, int64(1025), x.MaxCluster, "the page plus 1024 clustered pages")
	assert.Equal(t, int64(1025), wrote)
	assert.LessOrEqual(t, wc.Wbc.NrToWrite, int64(0), "nr_to_write driven to ≤ 0")
	assert.Equal(t, int64(-1), wc.Wbc.NrToWrite, "write_cache_pages' own decrement after the call")
	require.NoError(t, k.CheckInvariants())
}

// TestXfsOldTerminationRuleWritesTwoPagesPerCall: with 2.6.36-rc1's write_cache_pages
// (Chinner's fix off), after the first clustering call drives nr_to_write to 0 the
// loop never stops and each xfs_vm_writepage call writes its page plus the one page
// xfs_convert_page clusters before its --nr_to_write <= 0 check stops it, driving
// nr_to_write down by one per call (towrt 0, -1, -2…) for the rest of the file —
// computed in batches, not one event per page.
func TestXfsOldTerminationRuleWritesTwoPagesPerCall(t *testing.T) {
	x := NewXfs()
	x.P.IlockHold = 0
	w, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) { p.Variants.WCPTerminateLE0 = false })
	in := k.NewInode()
	dirty(k, in, 10000)
	ev := w.Events()
	wc, wrote := callWritepages(t, w, k, x, in, bgWbc(1024))
	assert.Equal(t, int64(10000), wrote, "the slice never ends: the whole file is written")
	assert.Equal(t, int64(1025), x.MaxCluster)
	assert.Equal(t, int64(1+(10000-1025+1)/2), x.WritepageCalls, "two pages per call after the first")
	assert.Equal(t, -int64((10000-1025)/2), wc.Wbc.NrToWrite, "one decrement per two-page call")
	assert.Less(t, w.Events()-ev, uint64(400), "batched, not one event per page")
	require.NoError(t, k.CheckInvariants())
}

func TestXfsLockContentionTakesPagesSkippedPath(t *testing.T) {
	t.Run("writepage redirties the page", func(t *testing.T) {
		x := NewXfs()
		x.P.IlockHold = sim.Second // IO completion always holds the ILOCK
		w, k := testKernel(t, "simple", x, 1<<30, nil)
		in := k.NewInode()
		dirty(k, in, 1000)
		// writeback in flight: nothing contends yet (no IO pending at the first map)
		_, wrote := callWritepages(t, w, k, x, in, bgWbc(16))
		require.Equal(t, int64(17), wrote)
		require.False(t, in.Writeback.Empty())
		wc, wrote := callWritepages(t, w, k, x, in, bgWbc(16))
		assert.Zero(t, wrote)
		assert.Equal(t, int64(16), wc.Wbc.PagesSkipped, "every page redirtied (pages_skipped)")
		assert.Equal(t, int64(16), x.PagesSkipped)
		assert.Equal(t, int64(1000-17), in.Dirty.Count())
		// ->write_inode fails with EAGAIN and re-marks the inode dirty
		in.State &^= kernel.IDirtySync
		require.ErrorIs(t, x.WriteInode(wc), ErrEAGAIN)
		assert.NotZero(t, in.State&kernel.IDirtySync)
		require.NoError(t, k.CheckInvariants())
	})
	t.Run("dd under the seeded contention model", func(t *testing.T) {
		x := NewXfs()
		x.P.IlockHold = 2 * sim.Millisecond // heavy contention
		w, k := testKernel(t, "simple", x, 100<<20, nil)
		mbps := runDD(t, w, k, 2, 30*sim.Second, true)
		t.Logf("xfs 2dd with 2 ms ILOCK holds: %.1f MB/s, pages_skipped %d, EAGAIN %d", mbps, x.PagesSkipped, x.EAGAIN)
		assert.Positive(t, x.PagesSkipped)
		assert.Greater(t, mbps, 20.0)
	})
}

func TestXfsDDKeepsInvariants(t *testing.T) {
	for _, n := range []int{1, 10} {
		x := NewXfs()
		w, k := testKernel(t, "simple", x, 100<<20, nil)
		mbps := runDD(t, w, k, n, 30*sim.Second, true)
		t.Logf("xfs %ddd on simple: %.1f MB/s, max cluster %d, pages_skipped %d, EAGAIN %d", n, mbps, x.MaxCluster, x.PagesSkipped, x.EAGAIN)
		assert.Greater(t, mbps, 30.0)
	}
}

// TestXfsChinnerFixSpeedsUpSequentialWrites: on fast storage a sequential XFS
// writer's flusher spends far more CPU without the write_cache_pages fix (two pages
// per ->writepage call) than with it, and the fix never slows the writer down.
// Known gap (issue 5): the thread's 3× (250 → 750 MB/s) needs the per-ioend
// completion work the model lacks; here both runs are bound by the dd's CPU.
func TestXfsChinnerFixSpeedsUpSequentialWrites(t *testing.T) {
	rate := func(fix bool) (float64, sim.Time) {
		x := NewXfs()
		w, k := testKernel(t, "chinner2010-vm", x, 1<<30, func(p *kernel.Params) {
			p.Variants = kernel.Variants{WCPTerminateLE0: fix} // 2.6.36: MAX_WRITEBACK_PAGES chunks
		})
		mbps := runDD(t, w, k, 1, 20*sim.Second, false)
		cpu := k.Flusher().Thread().Task.CPUTime()
		t.Logf("fix=%v: %.0f MB/s, ->writepage calls %d, flusher CPU %v", fix, mbps, x.WritepageCalls, cpu)
		return mbps, cpu
	}
	slow, slowCPU := rate(false)
	fast, fastCPU := rate(true)
	assert.GreaterOrEqual(t, fast, 0.98*slow)
	assert.Greater(t, float64(slowCPU)/slow, 5*float64(fastCPU)/fast, "flusher CPU per MB")
	if fast < 2.5*slow {
		t.Logf("known gap: fix/buggy %.2f (thread ~3)", fast/slow)
	}
}
