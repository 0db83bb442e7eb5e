package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

// writer dirties pages of one file in 1 MB steps, calling balance_dirty_pages as a
// dd would (a pause from it is a sleep, or a wait with that timeout when the kernel
// already queued the task).
type writer struct {
	k      *Kernel
	th     *Thread
	in     *Inode
	pos    int64
	total  int64
	bdp    bool
	resume bool
	done   bool
}

func (w *writer) run() {
	k, th := w.k, w.th
	for {
		if w.bdp {
			p := k.BalanceDirtyPages(th, w.resume)
			w.resume = true
			if p > 0 {
				th.Task.Sleep(p)
				return
			}
			w.bdp = false
			if th.YieldCPU() {
				return
			}
		}
		if w.pos >= w.total {
			w.done = true
			th.Task.Exit()
			return
		}
		k.DirtyPages(th, w.in, w.pos, 256, (w.pos+256)*PageSize)
		w.pos += 256
		th.Charge(100 * sim.Microsecond)
		if k.BalanceDirtyPagesRatelimited(th, 256) {
			w.bdp, w.resume = true, false
		}
		if th.YieldCPU() {
			return
		}
	}
}

func TestPdflushAndIOFullThrottle(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Variants
	}{
		{"2.6.30 pdflush", Variants{Pdflush: true, IOFullThrottle: true}},
		{"per-bdi, IO-full", Variants{IOFullThrottle: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) { p.Variants = tc.v; p.DirtyBytes = 0; p.DirtyRatio = 10 })
			w := &writer{k: k, th: k.NewThread("dd"), in: k.NewInode(), total: 256 * 1024} // 1 GB
			w.th.Task.Resume = w.run
			w.th.Task.Start()
			for !w.done && k.W.Now() < 100*sim.Second {
				require.NoError(t, k.W.Run(k.W.Now()+sim.Second))
				require.NoError(t, k.CheckInvariants())
			}
			require.True(t, w.done)
			require.NoError(t, k.W.Run(k.W.Now()+60*sim.Second))
			assert.Equal(t, k.G.NrDirtied, k.G.NrWritten, "everything written in the end")
			var pd int64
			for _, th := range k.Pdflush() {
				pd += th.Stats.PagesSubmitted
			}
			if tc.v.Pdflush {
				assert.Positive(t, pd, "pdflush threads write back")
				assert.Zero(t, k.Flusher().Thread().Stats.PagesSubmitted, "no per-bdi flusher")
			} else {
				assert.Nil(t, k.Pdflush())
				assert.Positive(t, k.Flusher().Thread().Stats.PagesSubmitted)
			}
			assert.Equal(t, int64(1024), k.ratelimitPages, "ratelimit_pages capped at 4 MB")
			t.Logf("dirtier wrote %d pages itself, pdflush %d, flusher %d", w.th.Stats.PagesSubmitted, pd, k.Flusher().Thread().Stats.PagesSubmitted)
		})
	}
}
