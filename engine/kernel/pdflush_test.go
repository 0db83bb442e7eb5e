package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
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
	// The share of the data the dirtier writes back itself: under 2.6.30 the
	// blocking dirtier keeps the request queue congested and the nonblocking
	// pdflush threads back off in congestion_wait, so the dirtier does most of it;
	// the per-bdi flusher blocks in the queue too and holds the inode (I_SYNC), so
	// the dirtier rarely gets to write.
	for _, tc := range []struct {
		name               string
		v                  Variants
		minShare, maxShare float64
	}{
		{"2.6.30 pdflush", Variants{}.With(swPdflush, swIOFullThrottle), 0.5, 0.9},
		{"per-bdi, IO-full", Variants{}.With(swIOFullThrottle), 0, 0.1},
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
			if tc.v.On(swPdflush) {
				assert.Positive(t, pd, "pdflush threads write back")
				assert.Zero(t, k.Flusher().Thread().Stats.PagesSubmitted, "no per-bdi flusher")
			} else {
				assert.Nil(t, k.Pdflush())
				assert.Positive(t, k.Flusher().Thread().Stats.PagesSubmitted)
			}
			assert.Equal(t, int64(1024), k.ratelimitPages, "ratelimit_pages capped at 4 MB")
			t.Logf("dirtier wrote %d pages itself, pdflush %d, flusher %d", w.th.Stats.PagesSubmitted, pd, k.Flusher().Thread().Stats.PagesSubmitted)
			st := w.th.Stats
			t.Logf("dirtier paused %d times, %v in all, max %v", st.Pauses, st.Paused, st.MaxPause)
			if !tc.v.On(swPdflush) {
				require.Positive(t, st.Pauses, "the dirtier waits for the flusher in congestion_wait")
			}
			if st.Pauses > 0 {
				assert.Positive(t, st.Paused, "congestion_wait pauses have a length")
				assert.LessOrEqual(t, st.MaxPause, k.W.JiffiesToTime(k.W.HZ()/10), "at most HZ/10 each")
				assert.LessOrEqual(t, st.Paused, sim.Time(st.Pauses)*st.MaxPause)
			}
			share := float64(w.th.Stats.PagesSubmitted) / float64(k.G.NrWritten)
			assert.GreaterOrEqual(t, share, tc.minShare, "dirtier's own share of the writeback")
			assert.LessOrEqual(t, share, tc.maxShare, "dirtier's own share of the writeback")
		})
	}
}

// pdflushKernel is a 2.6.30 kernel (pdflush, IO-full throttling) on the test
// filesystem, run idle for 9.5 s (wb_kupdate ran at 5 s; the next is at 10 s) so
// that jiffies are well past the pool's 1 s rules.
func pdflushKernel(t *testing.T) *Kernel {
	t.Helper()
	k, _ := newTestKernel(t, func(p *Params) { p.Variants = Variants{}.With(swPdflush, swIOFullThrottle) })
	require.NoError(t, k.W.Run(9500*sim.Millisecond))
	require.Equal(t, minPdflushThreads, k.NrPdflushThreads(), "pdflush_init starts MIN_PDFLUSH_THREADS")
	return k
}

// TestPdflushOperation: pdflush_operation hands work to the most recently idle
// thread (the head of pdflush_list), stamps last_empty_jifs when it takes the last
// one, and fails when none is idle.
func TestPdflushOperation(t *testing.T) {
	k := pdflushKernel(t)
	p := k.pd
	stats0 := k.PdflushStats()            // wb_kupdate ran once
	first, second := p.idle[0], p.idle[1] // second went idle last: the list head
	require.True(t, k.pdflushOperation(pdBackground))
	assert.Equal(t, pdBackground, second.fn, "most recently idle thread first")
	assert.Equal(t, pdNone, first.fn)
	assert.Zero(t, p.lastEmptyJifs, "one thread still idle")
	require.True(t, k.pdflushOperation(pdKupdate))
	assert.Equal(t, pdKupdate, first.fn)
	assert.Equal(t, k.W.Jiffies(), p.lastEmptyJifs, "the pool went empty now")
	assert.False(t, k.pdflushOperation(pdBackground), "no idle thread: -1")
	assert.Equal(t, PdflushStats{MaxThreads: 2, Operations: stats0.Operations + 2, Failed: 1}, k.PdflushStats())
	// with no dirty data both return to the pool
	require.NoError(t, k.W.Run(k.W.Now()+sim.Second))
	assert.Len(t, p.idle, 2)
}

// TestPdflushPoolRules is __pdflush's pool management after a thread's work
// (mm/pdflush.c, 2.6.30): start a thread when no thread has been idle for a second
// (up to MAX_PDFLUSH_THREADS), exit when the thread idle longest has slept more
// than a second (down to MIN_PDFLUSH_THREADS).
func TestPdflushPoolRules(t *testing.T) {
	for _, tc := range []struct {
		name        string
		nr          int     // threads in the pool, the one finishing its work included
		idleSlept   []int64 // idle threads, how long each has slept (ms), sleepiest first
		emptyForMs  int64   // since last_empty_jifs
		wantStarted bool
		wantExited  bool
	}{
		{"empty for 2 s: start one", 2, nil, 2000, true, false},
		{"empty for 1 s exactly: not yet (time_after)", 2, nil, 1000, false, false},
		{"empty for 0.5 s", 2, nil, 500, false, false},
		{"empty, already MAX_PDFLUSH_THREADS", maxPdflushThreads, nil, 2000, false, false},
		{"an idle thread: no start", 3, []int64{200}, 2000, false, false},
		{"sleepiest slept 2 s: exit", 3, []int64{2000, 100}, 5000, false, true},
		{"sleepiest slept 2 s, at MIN_PDFLUSH_THREADS", 2, []int64{2000}, 5000, false, false},
		{"sleepiest slept 0.5 s", 3, []int64{500, 100}, 5000, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := pdflushKernel(t)
			p := k.pd
			for p.nr < tc.nr {
				k.startOnePdflushThread(false)
			}
			now := k.W.Jiffies()
			// the finishing thread is off the list; the others are idle as given
			cur := p.idle[len(p.idle)-1]
			p.idle = p.idle[:len(p.idle)-1]
			require.GreaterOrEqual(t, len(p.idle), len(tc.idleSlept))
			rest := p.idle[len(tc.idleSlept):]
			for _, r := range rest { // busy elsewhere
				r.th.Task.Exit()
			}
			p.idle = p.idle[:len(tc.idleSlept)]
			for i, ms := range tc.idleSlept {
				p.idle[i].whenWentToSleep = now - ms
			}
			p.lastEmptyJifs = now - tc.emptyForMs
			cur.fn = pdBackground
			exited := cur.pdflushDone()
			assert.Equal(t, tc.wantExited, exited, "exited")
			assert.Equal(t, pdNone, cur.fn)
			started := 0
			if tc.wantStarted {
				started = 1
			}
			assert.Equal(t, started, p.stats.Started, "threads started")
			wantNr := tc.nr + started
			if tc.wantExited {
				wantNr--
				assert.Equal(t, now, p.idle[0].whenWentToSleep, "the exit rate is limited: the sleepiest's clock restarts")
			}
			assert.Equal(t, wantNr, k.NrPdflushThreads())
		})
	}
}

// TestPdflushPoolGrowsAndShrinks runs the pool: 2.6.30's pdflush threads stuck in
// background_writeout while the pool stays empty make a finishing thread start
// another; once the work is gone, threads idle for over a second exit down to
// MIN_PDFLUSH_THREADS.
func TestPdflushPoolGrowsAndShrinks(t *testing.T) {
	k := pdflushKernel(t)
	p := k.pd
	require.True(t, k.pdflushOperation(pdBackground))
	require.True(t, k.pdflushOperation(pdBackground))
	// as if both had been busy for 2 s: the first to finish finds the pool empty
	p.lastEmptyJifs = k.W.Jiffies() - 2*k.W.HZ()
	require.NoError(t, k.W.Run(k.W.Now()+100*sim.Millisecond))
	assert.Equal(t, 3, k.NrPdflushThreads(), "a thread was started")
	assert.Equal(t, 1, k.PdflushStats().Started)
	assert.Len(t, k.Pdflush(), 3)
	// every thread idle now; the next one to finish work after a second exits
	require.NoError(t, k.W.Run(k.W.Now()+2*sim.Second))
	require.True(t, k.pdflushOperation(pdBackground))
	require.NoError(t, k.W.Run(k.W.Now()+100*sim.Millisecond))
	assert.Equal(t, minPdflushThreads, k.NrPdflushThreads(), "one exited")
	assert.Equal(t, 1, k.PdflushStats().Exited)
	require.True(t, k.pdflushOperation(pdBackground))
	require.NoError(t, k.W.Run(k.W.Now()+2*sim.Second))
	assert.Equal(t, minPdflushThreads, k.NrPdflushThreads(), "never below MIN_PDFLUSH_THREADS")
}

// TestSyncSingleInodeRequeue is __sync_single_inode's list placement (2.6.30) for an
// inode writeback_single_inode (v3.2) put on b_more_io with pages left.
func TestSyncSingleInodeRequeue(t *testing.T) {
	for _, tc := range []struct {
		name    string
		kupdate bool
		nr      int64
		meta    bool
		want    string
	}{
		{"background: redirty_tail", false, 0, false, "b_dirty"},
		{"kupdate, slice used up: requeue_io", true, 0, false, "b_more_io"},
		{"kupdate, slice used up, inode dirtied again: redirty_tail", true, -5, true, "b_dirty"},
		{"kupdate, stopped early (congestion): redirty_tail", true, 100, false, "b_dirty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := pdflushKernel(t)
			in := k.NewInode()
			in.Dirty.Add(0, 10)
			in.State = IDirtyPages
			if tc.meta {
				in.State |= IDirtySync
			}
			k.requeueIO(in)
			k.syncSingleInodeRequeue(in, &WritebackControl{ForKupdate: tc.kupdate, NrToWrite: tc.nr})
			assert.Equal(t, tc.want, in.OnList())
		})
	}
}

// TestNonblockingWalkStopsAtCongestion: a 2.6.30 nonblocking walk over a
// filesystem's own ->writepages loop (ext4's ext4_da_writepages calls
// write_cache_pages once per extent, and its entry returns at once when the queue
// is write-congested) finishes the step it is in, then stops with
// encountered_congestion when the queue became congested; a blocking walk goes on.
func TestNonblockingWalkStopsAtCongestion(t *testing.T) {
	for _, tc := range []struct {
		name          string
		nonblocking   bool
		congest       bool // another submitter congests the queue during the first step
		wantSteps     int
		wantCongested bool
	}{
		{"nonblocking, queue congested during the first extent", true, true, 1, true},
		{"nonblocking, queue never congested", true, false, 3, false},
		{"blocking (a dirtier's writeback), queue congested", false, true, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := pdflushKernel(t)
			in := k.NewInode()
			for _, s := range []int64{0, 100, 200} { // three extents
				in.Dirty.Add(s, 10)
			}
			th := k.NewThread("walker")
			other := k.Q.NewSubmitter(k.NewThread("other").Task)
			wc := &WritebackCtx{K: k, Th: th, In: in, Wbc: WritebackControl{SyncMode: WBSyncNone,
				NrToWrite: maxWritebackPages, RangeCyclic: true, RangeEnd: longMax}}
			wc.SetNonblocking(tc.nonblocking)
			steps := 0
			blocked := wc.WalkDirty(false, func(s, e int64) (int64, bool) {
				steps++
				for i := int64(0); tc.congest && !k.Q.Congested(devices.Write); i++ {
					require.False(t, k.Q.Submit(other, devices.Bio{Sector: 1 << 20 * (i + 1), Pages: 1, Op: devices.Write}))
				}
				return e - s, false
			})
			assert.False(t, blocked)
			assert.Equal(t, tc.wantSteps, steps, "extents submitted")
			assert.Equal(t, tc.wantCongested, wc.congested, "encountered_congestion")
			assert.Equal(t, tc.congest, k.Q.Congested(devices.Write))
		})
	}
}
