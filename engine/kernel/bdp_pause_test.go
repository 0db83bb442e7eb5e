package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

// TestNrDirtiedPauseUsesLocalRatelimit: after its loop, v3.2 balance_dirty_pages
// sizes nr_dirtied_pause from the dirty_ratelimit it read before the pause (the
// local that computed task_ratelimit), not from bdi->dirty_ratelimit read again
// after the sleep (mm/page-writeback.c v3.2). The bdi's rate is halved during the
// pause; the new pause size must not move with it.
func TestNrDirtiedPauseUsesLocalRatelimit(t *testing.T) {
	atSetpoint := func() (*Kernel, *Thread) {
		k, _ := newTestKernel(t, nil)
		require.NoError(t, k.W.Run(2*sim.Second))
		_, _, _, setpoint := k.DirtyLimits()
		k.G.NrFileDirty, k.BDI.Stats.Reclaimable = setpoint, setpoint
		k.BDI.bwTimeStamp = k.W.Jiffies()
		k.BDI.writebackRunning = true
		return k, k.NewThread("dd")
	}
	// a probe with the same state gives the rate and max_pause the real call sees
	k, th := atSetpoint()
	th.NrDirtied = 32
	require.Positive(t, k.BalanceDirtyPages(th, false))
	hz := k.W.HZ()
	dr, maxPause := k.BDI.DirtyRatelimit, th.bdp.maxPause
	v := dr * (maxPause / 2) / hz // the clamp's target
	pd := v * 2 / 5               // pause = 0.2 max_pause: the "pause <= max_pause/4" branch
	require.Greater(t, pd, int64(8))
	clamp := func(x, lo, hi int64) int64 { return min(max(x, lo), hi) }
	want := clamp(v, pd+pd/8, pd*4)
	stale := clamp(dr/2*(maxPause/2)/hz, pd+pd/8, pd*4)
	require.NotEqual(t, want, stale, "the case tells the two rates apart")

	k, th = atSetpoint()
	th.NrDirtied, th.NrDirtiedPause = pd, 1
	d := k.BalanceDirtyPages(th, false)
	require.Positive(t, d)
	require.Equal(t, dr, k.BDI.DirtyRatelimit)
	require.LessOrEqual(t, th.bdp.pause, maxPause/4)
	k.BDI.DirtyRatelimit = dr / 2 // another task's bandwidth update during the sleep
	require.Zero(t, k.BalanceDirtyPages(th, true))
	assert.Equal(t, want, th.NrDirtiedPause, "nr_dirtied_pause from the local dirty_ratelimit (stale bdi value gives %d)", stale)
}
