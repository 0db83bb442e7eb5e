package devices

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

// TestWBTLimitTable is kernel-notes §3.3: max/normal/background for scale_step
// 0..4 and -1 with queue depth >= 16, v4.10 and v6, and QD=1 before and with the
// 2016 patch.
func TestWBTLimitTable(t *testing.T) {
	type lim struct{ max, normal, bg int }
	tests := []struct {
		name      string
		qd, step  int
		def       int
		qd1, v6   bool
		want      lim
		scaledMax bool
	}{
		{"step 0", 32, 0, 16, true, false, lim{16, 8, 4}, false},
		{"step 1", 32, 1, 16, true, false, lim{8, 4, 2}, false},
		{"step 2", 32, 2, 16, true, false, lim{4, 2, 1}, false},
		{"step 3 v4.10", 32, 3, 16, true, false, lim{2, 1, 1}, false},
		{"step 3 v6", 32, 3, 16, true, true, lim{2, 2, 1}, false},
		{"step 4", 32, 4, 16, true, false, lim{1, 1, 1}, false},
		{"step 4 v6", 32, 4, 16, true, true, lim{1, 1, 1}, false},
		{"step -1 qd 32", 32, -1, 16, true, false, lim{24, 12, 6}, true},
		{"step -1 qd 64", 64, -1, 16, true, false, lim{31, 16, 8}, false},
		{"step 0 qd 16", 16, 0, 16, true, false, lim{16, 8, 4}, false},
		{"step 2 qd 128", 128, 2, 16, true, false, lim{4, 2, 1}, false},
		{"qd 8 below default", 8, 0, 16, true, false, lim{8, 4, 2}, false},
		{"2016 draft depth 64, qd 31", 31, 0, 64, false, false, lim{31, 16, 8}, false},
		{"2016 draft depth 64, qd 128", 128, 1, 64, false, false, lim{32, 16, 8}, false},
		// QD=1 before the 2016 patch: the general formula gives 1/1/1 at every step
		{"qd1 unpatched step 0", 1, 0, 16, false, false, lim{1, 1, 1}, false},
		{"qd1 unpatched step 2", 1, 2, 16, false, false, lim{1, 1, 1}, false},
		{"qd1 unpatched draft", 1, 0, 64, false, false, lim{1, 1, 1}, false},
		// with the patch: 2/2/1, and 1/1/1 once scaled down
		{"qd1 patched step 0", 1, 0, 16, true, false, lim{2, 2, 1}, true},
		{"qd1 patched step -1", 1, -1, 16, true, false, lim{2, 2, 1}, true},
		{"qd1 patched step 1", 1, 1, 16, true, false, lim{1, 1, 1}, false},
		{"qd1 patched step 3", 1, 3, 16, true, false, lim{1, 1, 1}, false},
		{"qd1 patched v6", 1, 0, 16, true, true, lim{2, 2, 1}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, n, b, sm := WBTLimits(tc.qd, tc.step, tc.def, tc.qd1, tc.v6)
			assert.Equal(t, tc.want, lim{m, n, b})
			assert.Equal(t, tc.scaledMax, sm)
		})
	}

	// the same through a queue's state
	w := sim.NewWorld(1000, 1)
	for _, tc := range []struct {
		spec string
		want lim
	}{
		{"kara2016-qd1", lim{1, 1, 1}},
		{"kara2016-qd1,wbt_qd1=on", lim{2, 2, 1}},
		{"wu2011-hdd,wbt=on", lim{16, 8, 4}},
		{"nvme", lim{16, 8, 4}},
		{"x25e,wbt=on,wbt_draft=on,wbt_depth=64", lim{32, 16, 8}},
		{"simple,wbt=on,wbt_lat_us=0", lim{0, 0, 0}},
	} {
		st := mustQueue(t, w, tc.spec).WBT()
		assert.Equal(t, tc.want, lim{st.Max, st.Normal, st.Background}, tc.spec)
	}
	st := mustQueue(t, w, "kara2016-qd1").WBT()
	assert.Equal(t, int64(75*sim.Millisecond), st.MinLatNs, "rotational default")
	assert.Equal(t, int64(2*sim.Millisecond), mustQueue(t, w, "nvme").WBT().MinLatNs, "non-rotational default")
	assert.Equal(t, int64(5*sim.Millisecond), mustQueue(t, w, "nvme,wbt_lat_us=5000").WBT().MinLatNs)
}

// wbtQueue is a manual queue with wbt on (queue depth 32: limits 16/8/4).
func wbtQueue(t *testing.T, extra string) (*sim.World, *Queue, *manualDev) {
	w := sim.NewWorld(1000, 1)
	q, d := manualQueue(t, w, "simple,qd=32,wbt=on,rotational=false"+extra)
	return w, q, d
}

// TestWBTThrottleClasses: a background write waits at wb_background inflight while a
// sync write passes up to wb_max; a plain write stops at wb_normal; a write near a
// read, or anything after a balance_dirty_pages sleep, gets the other limit.
func TestWBTThrottleClasses(t *testing.T) {
	o := &nopOwner{}
	sector := int64(0)
	bio := func(f Flags) Bio {
		sector += 1 << 20 // far apart: no merging
		return Bio{Sector: sector, Pages: 1, Op: Write, Flags: f, Owner: o}
	}
	newSub := func(w *sim.World, q *Queue, pid int) *Submitter {
		task := w.NewTask("t", pid, nil)
		task.Resume = func() {}
		return q.NewSubmitter(task)
	}
	// fill submits writes with flags f until one blocks; it returns how many passed.
	fill := func(q *Queue, s *Submitter, f Flags) int {
		for n := 0; n < 100; n++ {
			if q.Submit(s, bio(f)) {
				return n
			}
		}
		return -1
	}

	for _, draft := range []bool{false, true} {
		t.Run(fmt.Sprintf("draft=%v", draft), func(t *testing.T) {
			w, q, _ := wbtQueue(t, fmt.Sprintf(",wbt_draft=%v", draft))
			bg, sy := newSub(w, q, 1), newSub(w, q, 2)
			assert.Equal(t, 4*q.MaxPages(), q.Room(bg, bio(FlagBackground)))
			assert.Equal(t, 4, fill(q, bg, FlagBackground), "background stops at wb_background")
			assert.Equal(t, 4, q.WBT().Inflight)
			assert.Equal(t, 1, q.WBT().Waiters)
			assert.Equal(t, int64(1), q.WBT().ThrottledBackground, "the waiting write is counted under its class")
			assert.Zero(t, q.WBT().ThrottledNormal+q.WBT().ThrottledMax)
			if draft {
				// no FIFO fairness in the 2016 draft: the sync write passes the waiter
				assert.Equal(t, 12*q.MaxPages(), q.Room(sy, bio(FlagSync)))
				assert.Equal(t, 12, fill(q, sy, FlagSync), "sync passes up to wb_max")
				assert.Equal(t, 16, q.WBT().Inflight)
			} else {
				// merged kernels queue new arrivals behind existing waiters
				assert.Equal(t, int64(0), q.Room(sy, bio(FlagSync)))
				assert.True(t, q.Submit(sy, bio(FlagSync)))
				assert.Equal(t, 2, q.WBT().Waiters)
				assert.Equal(t, int64(1), q.WBT().ThrottledMax, "the sync write waits behind the waiter")
			}
		})
	}

	t.Run("sync passes at wb_max with no waiters", func(t *testing.T) {
		w, q, _ := wbtQueue(t, "")
		bg, sy, pl := newSub(w, q, 1), newSub(w, q, 2), newSub(w, q, 3)
		for i := 0; i < 4; i++ {
			require.False(t, q.Submit(bg, bio(FlagBackground)))
		}
		assert.Equal(t, int64(0), q.Room(bg, bio(FlagBackground)), "a fifth background write would wait")
		assert.Equal(t, 4*q.MaxPages(), q.Room(pl, bio(0)), "plain writes go to wb_normal = 8")
		assert.Equal(t, 12*q.MaxPages(), q.Room(sy, bio(FlagSync)))
		assert.Equal(t, 12*q.MaxPages(), q.Room(sy, bio(FlagMeta)))
		assert.Equal(t, 12*q.MaxPages(), q.Room(sy, bio(FlagKswapd)))
		assert.Equal(t, 128*q.MaxPages(), q.Room(sy, bio(FlagSync|FlagIdle)), "O_DIRECT is not throttled: the whole sync pool")
		assert.Equal(t, 12, fill(q, sy, FlagSync))
		assert.Equal(t, 16, q.WBT().Inflight)
	})

	t.Run("close to a read: background limit", func(t *testing.T) {
		w, q, _ := wbtQueue(t, "")
		s := newSub(w, q, 1)
		require.False(t, q.Submit(s, Bio{Sector: 1 << 40, Pages: 1, Op: Read, Owner: o}))
		assert.Equal(t, 4*q.MaxPages(), q.Room(s, bio(0)), "a read < 100 ms ago: normal writes at wb_background")
		require.NoError(t, w.Run(101*sim.Millisecond))
		assert.Equal(t, 8*q.MaxPages(), q.Room(s, bio(0)))
	})

	t.Run("balance_dirty_pages sleeper: max", func(t *testing.T) {
		w, q, _ := wbtQueue(t, "")
		s := newSub(w, q, 1)
		q.NoteDirtySleep(w.Now())
		assert.Equal(t, 16*q.MaxPages(), q.Room(s, bio(FlagBackground)), "wb_recent_wait: everything at max")
		require.NoError(t, w.Run(sim.Second))
		assert.Equal(t, 4*q.MaxPages(), q.Room(s, bio(FlagBackground)), "a second (HZ) later")
	})
}

// TestWBTWakeBatching: with a volatile write cache waiters wake only when inflight
// drops to 0; without one when wb_normal - inflight >= wb_background/2.
func TestWBTWakeBatching(t *testing.T) {
	for _, tc := range []struct {
		extra    string
		wakeWhen int // inflight (after the completion) at which the waiter is woken
	}{
		{",wcache=1M", 0}, // volatile cache, no recent dirty sleeper: limit 0
		{"", 6},           // normal 8, background 4: 8 - inflight >= 4/2
	} {
		t.Run(tc.extra, func(t *testing.T) {
			w, q, d := wbtQueue(t, tc.extra)
			o := &nopOwner{}
			s1 := q.NewSubmitter(w.NewTask("a", 1, nil))
			s1.Task.Resume = func() {}
			for i := 0; i < 8; i++ {
				require.False(t, q.Submit(s1, Bio{Sector: int64(i) << 20, Pages: 1, Op: Write, Owner: o}))
			}
			require.True(t, q.Submit(s1, Bio{Sector: 99 << 20, Pages: 1, Op: Write, Owner: o}))
			woke := -1
			for i := 0; i < 8 && woke < 0; i++ {
				d.completeFirst()
				if !s1.Blocked() {
					woke = q.WBT().Inflight - 1 // before the waiter took its slot
				}
			}
			assert.Equal(t, tc.wakeWhen, woke)
		})
	}
}

// wbtRig runs a background writer flooding a slow device and an optional reader.
type wbtRig struct {
	w      *sim.World
	q      *Queue
	writer *fioJob
	reader *fioJob
	events map[string][]string
}

func newWBTRig(t *testing.T, spec string) *wbtRig {
	w := sim.NewWorld(1000, 7)
	q := mustQueue(t, w, spec)
	g := &wbtRig{w: w, q: q, events: map[string][]string{}}
	q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, ev, p string) {
		if strings.HasPrefix(ev, "wbt_") {
			g.events[ev] = append(g.events[ev], p)
		}
	}))
	g.writer = newJob(q, w, 1, Write, 256, 64, false, 0, 1<<30)
	g.writer.flags = FlagBackground
	g.reader = newJob(q, w, 2, Read, 1, 1, true, 1<<31, 1<<30)
	return g
}

// TestWBTScaling: a read latency breach scales down (wbt_lat, wbt_step "step down",
// limits halved per step); with the writer gone the reads are quick and the window
// scales back up to 0; writes alone go negative (UNKNOWN_WRITES).
func TestWBTScaling(t *testing.T) {
	// 20 MiB/s with 1 ms per request: a read behind 16 x 1 MiB writes waits ~0.8 s
	g := newWBTRig(t, "simple,bw=20MiB,req_us=1000,qd=32,wbt=on,rotational=false")
	g.writer.task.Start()
	g.reader.task.Start()
	require.NoError(t, g.w.Run(3*sim.Second))
	st := g.q.WBT()
	assert.Greater(t, st.Step, 0, "scaled down on latency")
	assert.Greater(t, st.Exceeded, int64(0))
	assert.NotEmpty(t, g.events["wbt_lat"])
	require.NotEmpty(t, g.events["wbt_step"])
	assert.Contains(t, g.events["wbt_step"][0], "8:0: step down: step=1, window=100000us, background=2, normal=4, max=8")
	assert.Regexp(t, `^8:0: status=4, step=\d+, inflight=\d+$`, g.events["wbt_timer"][0])
	assert.LessOrEqual(t, st.Inflight, st.Max)
	// higher steps use shorter windows: (100 ms << 4) / int_sqrt((step + 1) << 8)
	want := map[int]int64{1: 72727, 2: 59259, 3: 50000, 4: 45714}
	if w, ok := want[st.Step]; ok {
		assert.Equal(t, w, st.WindowNs/1000)
	}

	// the writer stops: reads are fast now; windows without writes are UNKNOWN
	// (after 5 of them: scale up) until the step is back to 0
	g.writer.stopAt = g.w.Now()
	require.NoError(t, g.w.Run(g.w.Now()+20*sim.Second))
	assert.Equal(t, 0, g.q.WBT().Step, "scaled back up when quiet")
	last := g.events["wbt_step"][len(g.events["wbt_step"])-1]
	assert.Contains(t, last, "step up: step=0")

	// writes only: UNKNOWN_WRITES scales up past 0 to the scaled_max cap (3/4 qd)
	g2 := newWBTRig(t, "simple,bw=200MiB,qd=32,wbt=on,rotational=false")
	g2.writer.task.Start()
	require.NoError(t, g2.w.Run(2*sim.Second))
	st2 := g2.q.WBT()
	assert.Equal(t, -1, st2.Step)
	assert.Equal(t, 24, st2.Max)
	assert.True(t, st2.ScaledMax)

	// QD=1 with the QD=1 rule (merged wbt, not the draft): wbt_update_limits leaves
	// scaled_max false although calc_wb_limits returns true at step 0, so writes
	// alone scale up once, to step -1 (scale_up sets scaled_max from
	// calc_wb_limits: true, and stops there). v4.10 block/blk-wbt.c.
	for _, v6 := range []string{"off", "on"} {
		g4 := newWBTRig(t, "simple,bw=200MiB,qd=1,wbt=on,wbt_qd1=on,rotational=false,wbt_v6="+v6)
		assert.False(t, g4.q.WBT().ScaledMax, "wbt_update_limits: scaled_max = false (v6=%s)", v6)
		g4.writer.task.Start()
		require.NoError(t, g4.w.Run(2*sim.Second))
		st4 := g4.q.WBT()
		assert.Equal(t, -1, st4.Step, "QD=1 scales up to step -1 (v6=%s)", v6)
		assert.Equal(t, 2, st4.Max)
		assert.True(t, st4.ScaledMax, "step -1 at QD=1 is the cap")
	}

	// v6 messages
	g3 := newWBTRig(t, "simple,bw=20MiB,req_us=1000,qd=32,wbt=on,rotational=false,wbt_v6=on")
	g3.writer.task.Start()
	g3.reader.task.Start()
	require.NoError(t, g3.w.Run(2*sim.Second))
	require.NotEmpty(t, g3.events["wbt_step"])
	assert.Contains(t, g3.events["wbt_step"][0], "scale down")
	if s := g3.events["wbt_stat"]; len(s) > 0 {
		assert.Regexp(t, `^8:0: rmean=\d+, rmin=\d+, rmax=\d+, rsamples=\d+, wmean=\d+, wmin=\d+, wmax=\d+, wsamples=\d+$`, s[0])
	}

	// the 2016 draft never goes below 0 and reports LAT_* from 0
	g4 := newWBTRig(t, "simple,bw=200MiB,qd=32,wbt=on,rotational=false,wbt_draft=on")
	g4.writer.task.Start()
	require.NoError(t, g4.w.Run(2*sim.Second))
	assert.Equal(t, 0, g4.q.WBT().Step)
	assert.Regexp(t, `status=1, step=0`, g4.events["wbt_timer"][0], "LAT_UNKNOWN is 1 in the draft")
}

// TestWBTQD1: on a queue-depth-1 device wbt allows one write at a time, and the 2016
// patch lets two plain (or balance_dirty_pages-paced) writes be allocated so one is
// ready when the other completes; background writes stay at 1 either way.
func TestWBTQD1(t *testing.T) {
	for _, tc := range []struct {
		spec    string
		flags   Flags
		maxSeen int
	}{
		{"kara2016-qd1", 0, 1},
		{"kara2016-qd1,wbt_qd1=on", 0, 2},
		{"kara2016-qd1,wbt_qd1=on", FlagBackground, 1},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.spec, tc.flags), func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q := mustQueue(t, w, tc.spec)
			j := newJob(q, w, 1, Write, 256, 16, false, 0, 1<<40)
			j.flags = tc.flags
			seen := 0
			w.AfterEvent = func() { seen = max(seen, q.WBT().Inflight) }
			r := measure(t, w, q, sim.Second, 5*sim.Second, j)
			assert.Equal(t, tc.maxSeen, seen)
			assert.Equal(t, 0, q.WBT().Step)
			assert.Greater(t, r.WMBps, 50.0)
		})
	}
}
