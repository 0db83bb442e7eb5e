package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShrinkBatch: one SWAP_CLUSTER_MAX batch from the LRU's tail frees the clean
// pages, marks the dirty and writeback ones PG_reclaim and puts them back at the
// head; their writeback ending rotates them to the tail, where the next batch
// frees them.
func TestShrinkBatch(t *testing.T) {
	k, _ := newTestKernel(t, func(p *Params) { p.Reclaim = &Reclaim{AnonMB: 4000, Swap: true} })
	m := k.mm
	require.NotNil(t, m)
	// drop the initial clean cache so the test's inode is the whole LRU
	m.free += m.file
	m.file, m.active, m.lru, m.lo = 0, 0, nil, 0
	in := k.NewInode()
	th := k.NewThread("t")
	k.lruAdd(in, 0, 40)
	in.Writeback.Add(0, 8) // pages 0-7 under writeback
	in.Dirty.Add(8, 8)     // 8-15 dirty, 16-39 clean
	free0 := m.free
	var sc scanControl
	freed, taken := k.shrinkBatch(th, &sc, false)
	assert.Equal(t, int64(swapClusterMax), taken)
	assert.Equal(t, int64(16), freed, "pages 16-31 are clean")
	assert.Equal(t, free0+16, m.free)
	assert.Equal(t, int64(8), sc.wb)
	assert.Equal(t, int64(8), sc.dirty)
	assert.Equal(t, int64(16), in.pgReclaim.Count())
	assert.Equal(t, int64(24), m.file, "8 clean pages left and 16 put back")

	// the writeback pages complete: rotate_reclaimable_page puts them at the tail
	k.G.NrWriteback, in.bdi.Stats.Writeback = 8, 8
	k.EndPageWriteback(in, 0, 8)
	assert.Equal(t, int64(8), in.pgReclaim.Count(), "PG_reclaim cleared on the completed pages")
	sc = scanControl{}
	freed, taken = k.shrinkBatch(th, &sc, false)
	assert.Equal(t, int64(24), taken, "8 rotated, 8 clean, 8 dirty: each page once")
	assert.Equal(t, int64(16), freed, "the 8 rotated pages first, then the 8 clean ones")
	assert.Equal(t, int64(8), sc.dirty, "pages 8-15 are still dirty")
	assert.Equal(t, int64(8), m.file)
}

// TestDirtyableReclaim: the dirtyable memory the limits are taken from, per
// kernel rule, on a 4 GiB machine whose applications hold 3.5 GiB.
func TestDirtyableReclaim(t *testing.T) {
	for _, tc := range []struct {
		name   string
		v      Variants
		swap   bool
		wantMB int64
	}{
		{"2.6.30: anon counted without swap", Variants{}.With(swDirtyableLRUAnon), false, 4096},
		{"3.2 without swap", Variants{}, false, 512},
		{"3.2 with swap", Variants{}, true, 4096},
		// the 512 MB page cache less the high watermark (16.4 MB)
		{"6.1: never anon", Variants{}.With(swDirtyableNoAnon, swWatermarkScale), true, 495},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) {
				p.Variants = tc.v
				p.Reclaim = &Reclaim{AnonMB: 3584, Swap: tc.swap}
			})
			assert.InDelta(t, tc.wantMB, k.dirtyableReclaim()>>(20-PageShift), 1)
		})
	}
}
