package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

// TestTaskDirtyLimit: task_dirty_limit (2.6.30/2.6.36) lowers the bdi limit by the
// task's share of recent dirtying times 1/8: a sole dirtier ends near 7/8, one of two
// equal dirtiers near 15/16, a task that dirtied nothing keeps the whole limit, and
// the share decays by half for every half-period of others' dirtying.
func TestTaskDirtyLimit(t *testing.T) {
	k, _ := newTestKernel(t, func(p *Params) { p.Variants = Variants{}.With(swIOFullThrottle); p.DirtyBytes = 0; p.DirtyRatio = 10 })
	in := k.NewInode()
	a, b, idle := k.NewThread("a"), k.NewThread("b"), k.NewThread("idle")
	const limit = 80000
	period2 := int64(1) << (k.vmDirtiesShift() - 1)
	k.DirtyPages(a, in, 0, 4*period2, 4*period2*PageSize)
	assert.InDelta(t, limit*7/8, k.taskDirtyLimit(a, limit), limit/100, "sole dirtier: 7/8")
	assert.Equal(t, int64(limit), k.taskDirtyLimit(idle, limit), "no dirtying: the whole limit")
	for i := int64(0); i < 8; i++ { // a and b alternate for four periods
		k.DirtyPages(a, in, (4+i)*period2, period2/2, 0)
		k.DirtyPages(b, in, (4+i)*period2+period2/2, period2/2, 0)
	}
	assert.InDelta(t, limit*15/16, k.taskDirtyLimit(a, limit), limit/50, "two equal dirtiers: 15/16")
	assert.InDelta(t, limit*15/16, k.taskDirtyLimit(b, limit), limit/50)
	k.DirtyPages(b, in, 100*period2, 2*period2, 0) // a idle for two half-periods
	assert.Greater(t, k.taskDirtyLimit(a, limit), int64(limit*31/32), "a's share decayed")
	assert.GreaterOrEqual(t, k.taskDirtyLimit(b, limit), int64(limit/2), "never below half")
}

// TestBalanceDirtyPagesPauseBackoff: the 2.6.36 IO-full loop. With the bdi over its
// limit by pages under writeback only (reclaimable below the limit) the dirtier
// writes nothing itself and sleeps 1, 2, 4 ... jiffies up to HZ/10; over the limit
// by dirty pages it writes write_chunk pages itself and returns.
func TestBalanceDirtyPagesPauseBackoff(t *testing.T) {
	k, _ := newTestKernel(t, func(p *Params) {
		p.Variants = Variants{}.With(swIOFullThrottle, swIOFullPauseBackoff)
		p.DirtyBytes, p.DirtyRatio, p.DirtyWritebackCs = 0, 10, 0
	})
	_, thresh := k.dirtyLimits()
	th := k.NewThread("dd")
	k.G.NrWriteback, k.BDI.Stats.Writeback = thresh, thresh // stuck in IO completion
	var pauses []int64
	resume := false
	for range 9 {
		d := k.BalanceDirtyPages(th, resume)
		require.Positive(t, d, "over the limit by writeback pages: pause")
		pauses = append(pauses, int64(d/k.W.JiffiesToTime(1)))
		resume = true
	}
	hz10 := k.W.HZ() / 10
	assert.Equal(t, []int64{1, 2, 4, 8, 16, 32, 64, min(128, hz10), hz10}, pauses, "pause doubles to HZ/10")
	assert.Zero(t, th.Stats.PagesSubmitted, "bdi reclaimable not over the limit: no writeback by the dirtier")
	assert.True(t, k.BDI.DirtyExceeded)

	k.G.NrWriteback, k.BDI.Stats.Writeback = 0, 0
	assert.Zero(t, k.BalanceDirtyPages(th, true), "under (bg+thresh)/2: done")
	assert.False(t, k.BDI.DirtyExceeded, "dirty_exceeded cleared")
}

// TestIOFullWriteChunk: over the limit by dirty pages, both IO-full loops make the
// dirtier write back sync_writeback_pages() = 1.5 × ratelimit_pages itself; 2.6.30
// does so whenever the bdi has reclaimable pages.
func TestIOFullWriteChunk(t *testing.T) {
	for _, v := range []Variants{Variants{}.With(swIOFullThrottle), Variants{}.With(swIOFullThrottle, swIOFullPauseBackoff)} {
		k, _ := newTestKernel(t, func(p *Params) { p.Variants = v; p.DirtyBytes, p.DirtyRatio, p.DirtyWritebackCs = 0, 10, 0 })
		_, thresh := k.dirtyLimits()
		th := k.NewThread("dd")
		in := k.NewInode()
		k.DirtyPages(th, in, 0, thresh+1, (thresh+1)*PageSize)
		done, resume := false, false
		th.Task.Resume = func() {
			if !done {
				d := k.BalanceDirtyPages(th, resume)
				resume = true
				if d > 0 {
					th.Task.Sleep(d)
					return
				}
				done = true
			}
			if !th.YieldCPU() {
				th.Task.Exit()
			}
		}
		th.Task.Start()
		require.NoError(t, k.W.Run(10*sim.Second))
		require.True(t, done)
		chunk := k.ratelimitPages + k.ratelimitPages/2
		assert.GreaterOrEqual(t, th.Stats.PagesSubmitted, chunk, "the dirtier wrote its chunk (%+v)", v)
	}
}
