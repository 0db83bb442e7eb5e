package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

// Unit tests of the v6.x writeback rules (kernel-notes §1 "v6.x" paragraphs), each
// with the switch off (v3.2) and on (6.1).

func with(set func(*Variants)) func(*Params) {
	return func(p *Params) { set(&p.Variants) }
}

// TestBackgroundPicksUpInodeDirtiedAfterWorkStart: §1.3 — v3.2 background work
// keeps the start-of-work cut-off (an inode dirtied later is not queued); v6
// takes dirtied_before = jiffies on every loop and queues it.
func TestBackgroundPicksUpInodeDirtiedAfterWorkStart(t *testing.T) {
	tests := []struct {
		name       string
		v6         bool
		background bool
		want       int
	}{
		{"v3.2 background: start-of-work cut-off", false, true, 0},
		{"v6 background: dirtied_before = jiffies", true, true, 1},
		{"v6 sync-like work: start-of-work cut-off", true, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swDirtiedBeforeEachLoop, tc.v6) }))
			th := k.NewThread("dd")
			require.NoError(t, k.W.Run(sim.Second))
			w := &WbWritebackWork{NrPages: longMax, ForBackground: tc.background, RangeCyclic: true}
			k.flusher.startWork(w, fpDone) // work starts at 1 s
			require.NoError(t, k.W.Run(2*sim.Second))
			in := k.NewInode()
			k.DirtyPages(th, in, 0, 10, 10*PageSize) // dirtied at 2 s
			k.loopDirtiedBefore(w)
			k.queueIO(k.BDI, nil, w)
			assert.Equal(t, tc.want, k.BDI.bIO.n)
		})
	}
}

// TestISyncQueued: §1.3 — move_expired_inodes sets I_SYNC_QUEUED and
// __mark_inode_dirty leaves a queued inode alone; an inode under I_SYNC that is
// not queued (fsync's writeback) is moved to b_dirty in v6 and left in v3.2.
func TestISyncQueued(t *testing.T) {
	t.Run("move_expired_inodes sets it, redirty_tail clears it", func(t *testing.T) {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swISyncQueued, true) }))
		in := k.NewInode()
		k.DirtyPages(k.NewThread("dd"), in, 0, 1, PageSize)
		k.queueIO(k.BDI, nil, &WbWritebackWork{})
		assert.NotZero(t, in.State&ISyncQueued)
		assert.Equal(t, "I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES", StateString(in.State), "not printed")
		k.redirtyTail(in)
		assert.Zero(t, in.State&ISyncQueued)
	})
	tests := []struct {
		name     string
		v6       bool
		state    int
		list     string
		wantList string
	}{
		{"v3.2: I_SYNC, off the lists: stays off", false, ISync, "", ""},
		{"v6: I_SYNC, not queued: to b_dirty", true, ISync, "", "b_dirty"},
		{"v6: queued on b_io: stays", true, ISyncQueued, "b_io", "b_io"},
		{"v6: queued under I_SYNC on b_more_io: stays", true, ISync | ISyncQueued, "b_more_io", "b_more_io"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swISyncQueued, tc.v6) }))
			in := k.NewInode()
			in.State = tc.state
			switch tc.list {
			case "b_io":
				listMove(in, &k.BDI.bIO)
			case "b_more_io":
				listMove(in, &k.BDI.bMoreIO)
			}
			k.markInodeDirty(in, IDirtyPages)
			assert.Equal(t, tc.wantList, in.OnList())
		})
	}
}

// TestRequeueInodeDecisionTree: §1.5 requeue_inode (v6), pages_skipped first.
func TestRequeueInodeDecisionTree(t *testing.T) {
	tests := []struct {
		name      string
		dirty     int64 // dirty pages left
		meta      bool  // I_DIRTY_SYNC left
		nrToWrite int64
		skipped   int64
		wantList  string
	}{
		{"pages_skipped, dirty: redirty_tail", 5, false, 100, 1, "b_dirty"},
		{"pages_skipped, clean: off the lists", 0, false, 100, 1, ""},
		{"pages left, slice used up: requeue_io", 5, false, 0, 0, "b_more_io"},
		{"pages left, budget left: redirty_tail", 5, false, 100, 0, "b_dirty"},
		{"inode redirtied: redirty_tail", 0, true, 100, 0, "b_dirty"},
		{"clean: off the lists", 0, false, 100, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swRequeueInode, true); v.Set(swISyncQueued, true) }))
			th := k.NewThread("flush")
			in := k.NewInode()
			if tc.dirty > 0 {
				in.Dirty.Add(0, tc.dirty)
			}
			if tc.meta {
				in.State |= IDirtySync
			}
			in.State |= ISyncQueued
			listMove(in, &k.BDI.bIO)
			m := &singleInodeWB{}
			m.begin(k, th, in, WritebackControl{NrToWrite: tc.nrToWrite, PagesSkipped: tc.skipped}, true)
			k.requeueInode(m)
			assert.Equal(t, tc.wantList, in.OnList())
			if tc.wantList != "b_more_io" {
				assert.Zero(t, in.State&ISyncQueued, "cleared off b_io/b_more_io")
			}
		})
	}
}

// TestSbInodesISyncCheck: §1.5 — v6 writeback_sb_inodes requeue_io()s a busy inode
// itself (writeback_sb_inodes_requeue, no writeback_single_inode call); v3.2 calls
// writeback_single_inode, which requeues it.
func TestSbInodesISyncCheck(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swSbInodesISyncCheck, v6) }))
		in := k.NewInode()
		k.DirtyPages(k.NewThread("dd"), in, 0, 10, 10*PageSize)
		in.State |= ISync
		listMove(in, &k.BDI.bIO)
		f := k.flusher
		f.work = &WbWritebackWork{NrPages: longMax, ForBackground: true}
		require.False(t, f.writebackSbInodes())
		assert.Equal(t, "b_more_io", in.OnList(), "v6=%v", v6)
		if v6 {
			assert.Equal(t, [2]int64{0, 1}, [2]int64{f.Stats.InodeCalls, f.Stats.SbRequeues})
		} else {
			assert.Equal(t, [2]int64{1, 0}, [2]int64{f.Stats.InodeCalls, f.Stats.SbRequeues})
		}
		assert.Zero(t, f.wrote)
	}
}

// skipFS reports pages_skipped from ->writepages (pages redirtied by ->writepage).
type skipFS struct {
	testFS
	skip int64
}

func (f *skipFS) Writepages(wc *WritebackCtx) bool {
	r := wc.WriteCachePages()
	wc.Wbc.PagesSkipped += f.skip
	return r
}

// TestTotalWroteMinusPagesSkipped: §1.7 — v6 counts write_chunk - nr_to_write -
// pages_skipped (floored at 0); v3.2 counts write_chunk - nr_to_write.
func TestTotalWroteMinusPagesSkipped(t *testing.T) {
	tests := []struct {
		name    string
		v6      bool
		skip    int64
		want    int64
		nrPages int64
	}{
		{"v3.2", false, 30, 100, longMax - 100},
		{"v6", true, 30, 70, longMax - 100},
		{"v6 floored at 0", true, 500, 0, longMax - 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, nil)
			fs := &skipFS{skip: tc.skip}
			k.FS, k.BDI.FS = fs, fs
			k.P.Variants.Set(swWroteMinusSkipped, tc.v6)
			k.P.Variants.Set(swRequeueInode, tc.v6)
			in := k.NewInode()
			k.DirtyPages(k.NewThread("dd"), in, 0, 100, 100*PageSize)
			in.State &^= IDirtySync | IDirtyDatasync
			k.queueIO(k.BDI, nil, &WbWritebackWork{})
			f := k.flusher
			f.work = &WbWritebackWork{NrPages: longMax, ForBackground: true}
			f.th.noYield = true
			require.False(t, f.writebackSbInodes())
			// the inode is clean after the pass: +1
			assert.Equal(t, tc.want+1, f.wrote)
			assert.Equal(t, tc.nrPages, f.work.NrPages, "work->nr_pages counts every page written")
		})
	}
}

// TestDelayedWakeupNotMoved: §1.9 — v3.2 bdi_wakeup_thread_delayed is mod_timer
// (re-armed by each call); v6 wb_wakeup_delayed is queue_delayed_work, which leaves
// a pending work where it is.
func TestDelayedWakeupNotMoved(t *testing.T) {
	for _, tc := range []struct {
		v6   bool
		want sim.Time
	}{{false, 6 * sim.Second}, {true, 5 * sim.Second}} {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swWorkqueueFlusher, tc.v6) }))
		k.fd.wakeupDelayed(k.flusher)
		require.NoError(t, k.W.Run(sim.Second))
		k.fd.wakeupDelayed(k.flusher)
		assert.Equal(t, tc.want, k.flusher.wakeup.When(), "v6=%v", tc.v6)
	}
}

// TestWbCheckStartAll: §1.9 — wakeup_flusher_threads sets WB_start_all; the
// flusher's wb_check_start_all writes the dirty pages (below the background
// threshold, before kupdate is due) with the request's reason; a second request
// while one is pending is dropped.
func TestWbCheckStartAll(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swWorkqueueFlusher, v6) }))
		in := k.NewInode()
		k.DirtyPages(k.NewThread("dd"), in, 0, 1000, 1000*PageSize)
		k.StartAll(ReasonTryToFreePages)
		k.StartAll(ReasonTryToFreePages)
		require.NoError(t, k.W.Run(2*sim.Second))
		assert.Equal(t, int64(1000), in.Written(), "v6=%v", v6)
		st := k.flusher.Stats
		if v6 {
			assert.Equal(t, int64(1), st.StartAllWB)
			assert.Equal(t, int64(1), st.Works[ReasonTryToFreePages])
		} else {
			assert.Equal(t, int64(2), st.Works[ReasonTryToFreePages], "v3.2: two queued works")
		}
		require.NoError(t, k.CheckInvariants())
	}
}

// TestBandwidthFromWritepagesAndCompletion: §1.8/§2.6 — v6 updates the write
// bandwidth from do_writepages and BANDWIDTH_INTERVAL after IO completion, not in
// wb_writeback; wb_bandwidth_estimate_start re-snapshots after an idle second.
func TestBandwidthFromWritepagesAndCompletion(t *testing.T) {
	t.Run("estimate start after idle", func(t *testing.T) {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swBandwidthFromWritepages, true) }))
		require.NoError(t, k.W.Run(3*sim.Second))
		k.BDI.Stats.Written = 77
		k.wbBandwidthEstimateStart(k.BDI)
		assert.Equal(t, int64(3000), k.BDI.bwTimeStamp)
		assert.Equal(t, int64(77), k.BDI.writtenStamp)
		require.NoError(t, k.W.Run(3500*sim.Millisecond))
		k.wbBandwidthEstimateStart(k.BDI)
		assert.Equal(t, int64(3000), k.BDI.bwTimeStamp, "not idle for HZ")
	})
	t.Run("update after the last completion", func(t *testing.T) {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swBandwidthFromWritepages, true) }))
		in := k.NewInode()
		k.DirtyPages(k.NewThread("dd"), in, 0, 1000, 1000*PageSize)
		k.StartAll(ReasonSync)
		require.NoError(t, k.W.Run(2*sim.Second))
		require.Equal(t, int64(1000), in.Written())
		assert.False(t, k.flusher.bwDwork.Pending())
		assert.NotEqual(t, int64(initBWPages), k.BDI.WriteBandwidth, "updated")
		assert.Equal(t, int64(1000), k.BDI.writtenStamp, "bw_dwork saw every completion")
	})
}

func TestPreset61(t *testing.T) {
	p, err := LookupPreset("6.1")
	require.NoError(t, err)
	v := p.Variants
	assert.True(t, v.On(swDirtiedBeforeEachLoop) && v.On(swISyncQueued) && v.On(swRequeueInode) && v.On(swSbInodesISyncCheck) &&
		v.On(swWorkqueueFlusher) && v.On(swBandwidthFromWritepages) && v.On(swWroteMinusSkipped))
	assert.False(t, v.On(swMoreIOWait) || v.On(swIOFullThrottle) || v.On(swPdflush) || v.On(swWaitIffCongested))
	assert.True(t, v.On(swReclaimThrottle) && v.On(swDirtyableNoAnon))
	assert.NotContains(t, presetDefs[len(presetDefs)-1].fs, fsXFSFlush, "6.1's XFS has no ->write_inode")
	old, err := LookupPreset(DefaultPreset)
	require.NoError(t, err)
	for _, n := range VariantNames() {
		if n == "wait_iff_congested" || n == "xfs_write_inode_flush" {
			continue // replaced by reclaim_throttle in v5.16; 6.1's XFS has no ->write_inode
		}
		if b, _ := old.Variants.Get(n); b {
			got, _ := v.Get(n)
			assert.True(t, got, "6.1 keeps %s", n)
		}
	}
}

// bdpAtSetpoint puts the kernel at the global setpoint of a 100 MB limit (pos_ratio
// ≈ 1.0, task_ratelimit ≈ dirty_ratelimit = 100 MB/s) at 2 s, with the bandwidth
// just updated so balance_dirty_pages does not update it again.
func bdpAtSetpoint(t *testing.T) (*Kernel, *Thread) {
	t.Helper()
	k, _ := newTestKernel(t, func(p *Params) { p.Variants = v61() })
	require.NoError(t, k.W.Run(2*sim.Second))
	_, _, _, setpoint := k.DirtyLimits()
	k.G.NrFileDirty, k.BDI.Stats.Reclaimable = setpoint, setpoint
	k.BDI.bwTimeStamp = k.W.Jiffies()
	k.BDI.writebackRunning = true
	return k, k.NewThread("dd")
}

// TestThinkTimeCompensation: §2.4 — pause = period - (now - dirty_paused_when);
// below wb_min_pause the task does not sleep and dirty_paused_when advances by the
// period; below -HZ it is reset; over max_pause the pause is trimmed and the excess
// is carried.
func TestThinkTimeCompensation(t *testing.T) {
	const now = 2000
	tests := []struct {
		name       string
		dirtied    int64
		pausedWhen int64 // dirty_paused_when (0: unset)
		wantPause  int64 // jiffies slept (0: no sleep)
		wantWhen   int64 // dirty_paused_when afterwards
	}{
		// task_ratelimit 25600 pages/s: 2560 pages are a 100 ms period
		{"no think time: the whole period", 2560, 0, 100, now + 100},
		{"30 ms outside: 70 ms pause", 2560, now - 30, 70, now + 70},
		{"97 ms outside: below min_pause, virtual time", 2560, now - 97, 0, now - 97 + 100},
		{"1.5 s outside: reset", 2560, now - 1500, 0, now},
		{"200 ms period over max_pause 112: trimmed, excess carried", 5120, 0, 112, now + 88 + 112},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, th := bdpAtSetpoint(t)
			require.Equal(t, int64(now), k.W.Jiffies())
			th.NrDirtied, th.DirtyPausedWhen = tc.dirtied, tc.pausedWhen
			d := k.BalanceDirtyPages(th, false)
			assert.Equal(t, k.W.JiffiesToTime(tc.wantPause), d)
			if d > 0 {
				assert.Zero(t, k.BalanceDirtyPages(th, true))
				assert.Equal(t, int64(250), th.NrDirtiedPause, "from wb_min_pause: 10 ms of dirty_ratelimit")
			}
			assert.Equal(t, tc.wantWhen, th.DirtyPausedWhen)
			assert.Zero(t, th.NrDirtied)
		})
	}
}

// TestWbMinMaxPause: §2.4 — wb_max_pause = wb_dirty/(1 + bw/128) + 1 ≤ 200 ms;
// wb_min_pause targets 10 ms (+10 ms per doubling of dirtiers), returns 1 + t/2
// with nr_dirtied_pause = dirty_ratelimit * t / 1024, and trims pages so the next
// pause stays within max_pause.
func TestWbMinMaxPause(t *testing.T) {
	k, _ := newTestKernel(t, func(p *Params) { p.Variants = v61() })
	// bw = dirty_ratelimit = 25600 pages/s (INIT_BW)
	assert.Equal(t, int64(22400/201+1), k.bdiMaxPause(k.BDI, 22400))
	assert.Equal(t, int64(200), k.bdiMaxPause(k.BDI, 1<<20), "MAX_PAUSE")
	tests := []struct {
		name                   string
		maxPause, task, dirty  int64
		ratelimit              int64 // bdi dirty_ratelimit (ilog2 vs bw: N dd)
		wantMinPause, wantNrDP int64
	}{
		{"1 dd: 10 ms target", 112, 25600, 25600, 25600, 6, 250},
		{"16 dd: +40 ms", 112, 1600, 1600, 1600, 1 + 49/2, 1600 * 49 / 1024},
		{"slow task_ratelimit: pages trimmed, under 32: max_pause", 112, 100, 25600, 25600, 112, 100 * 112 / 1024},
		{"tiny rate: max_pause target, < 32 pages", 20, 1000, 1000, 1000, 20, 1000 * 20 / 1024},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k.BDI.DirtyRatelimit = tc.ratelimit
			mp, nr := k.wbMinPause(k.BDI, tc.maxPause, tc.task, tc.dirty)
			assert.Equal(t, tc.wantMinPause, mp)
			assert.Equal(t, tc.wantNrDP, nr)
		})
	}
}

func TestPosRatioPolynomClamp(t *testing.T) {
	assert.Equal(t, int64(2048), posRatioPolynomV6(22400, 0, 25600), "clamped at 2.0")
	assert.Greater(t, posRatioPolynom(22400, 0, 25600), int64(2048), "v3.2 unclamped")
	assert.Equal(t, int64(1024), posRatioPolynomV6(22400, 22400, 25600))
	assert.Equal(t, int64(0), posRatioPolynomV6(22400, 40000, 25600), "clamped at 0")
}

func TestDirtyExceededRule(t *testing.T) {
	tests := []struct {
		name              string
		wbDirty, wbThresh int64
		dirty, thresh     int64
		wantV32, wantV6   bool
	}{
		{"wb over, global under", 110, 100, 90, 100, true, false},
		{"wb under, global over", 90, 100, 110, 100, true, false},
		{"both over", 110, 100, 110, 100, true, true},
		{"both under", 90, 100, 90, 100, false, false},
	}
	for _, tc := range tests {
		for _, v6 := range []bool{false, true} {
			k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swDirtyExceededV6, v6) }))
			want := tc.wantV32
			if v6 {
				want = tc.wantV6
			}
			assert.Equal(t, want, k.dirtyExceeded(k.BDI, tc.wbDirty, tc.wbThresh, tc.dirty, tc.thresh), "%s v6=%v", tc.name, v6)
		}
	}
}

func TestBalancedRateCappedAtWriteBW(t *testing.T) {
	for _, capped := range []bool{false, true} {
		k, _ := newTestKernel(t, with(func(v *Variants) { v.Set(swBalancedRateCap, capped) }))
		_, thresh, _, setpoint := k.DirtyLimits()
		bg, _ := k.dirtyLimits()
		// nothing dirtied in the period: dirty_rate 0, balanced = task_ratelimit * write_bw
		k.bdiUpdateDirtyRatelimit(k.BDI, thresh, bg, setpoint, thresh, setpoint, k.BDI.dirtiedStamp, 200)
		if capped {
			assert.Equal(t, k.BDI.AvgWriteBandwidth, k.BDI.BalancedDirtyRatelimit)
		} else {
			assert.Greater(t, k.BDI.BalancedDirtyRatelimit, k.BDI.AvgWriteBandwidth)
		}
	}
}

func TestDomainDirtyLimitsPerPageRatio(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		k, _ := newTestKernel(t, func(p *Params) {
			p.DirtyBytes, p.DirtyRatio, p.DirtyBackgroundRatio = 0, 20, 10
			p.Variants.Set(swDomainDirtyLimits, v6)
		})
		avail := k.dirtyableMem
		bg, thresh := k.dirtyLimits()
		if v6 {
			assert.Equal(t, 20*PageSize/100*avail/PageSize, thresh)
			assert.Equal(t, 10*PageSize/100*avail/PageSize, bg)
		} else {
			assert.Equal(t, 20*avail/100, thresh)
			assert.Equal(t, 10*avail/100, bg)
		}
	}
}

type lineTracer struct{ lines map[string][]string }

func (l *lineTracer) Emit(now sim.Time, comm string, pid, cpu int, event, payload string) {
	l.lines[event] = append(l.lines[event], payload)
}

// TestTraceV66Wording: §6.3 — the 6.1 preset's events print in the v6.6 wording
// and in v3.2's (Variants.TraceV66 picks one in engine.Build).
func TestTraceV66Wording(t *testing.T) {
	for _, v66 := range []bool{false, true} {
		k, _ := newTestKernel(t, func(p *Params) { p.Variants = v61() })
		tr := &lineTracer{lines: map[string][]string{}}
		wording := trace.V32
		if v66 {
			wording = trace.V66
		}
		k.SetTracer(trace.NewPrinter(wording, tr))
		th := k.NewThread("dd")
		in := k.NewInode()
		k.DirtyPages(th, in, 0, 20000, 20000*PageSize) // over the background threshold
		k.StartBackgroundWriteback(k.BDI)
		_, _, _, setpoint := k.DirtyLimits()
		k.G.NrFileDirty, k.BDI.Stats.Reclaimable = setpoint, setpoint
		th.NrDirtied = 256
		k.BalanceDirtyPages(th, false)
		require.NoError(t, k.W.Run(2*sim.Second))
		gds := tr.lines["global_dirty_state"]
		require.NotEmpty(t, gds)
		wsi := tr.lines["writeback_single_inode"]
		require.NotEmpty(t, wsi)
		bdp := tr.lines["balance_dirty_pages"]
		require.NotEmpty(t, bdp)
		if v66 {
			assert.NotContains(t, gds[0], "unstable=")
			assert.Contains(t, wsi[0], " cgroup_ino=1")
			assert.NotEmpty(t, tr.lines["writeback_single_inode_start"])
			assert.Regexp(t, ` period=\d+ think=-?\d+ cgroup_ino=1$`, bdp[0])
			assert.Regexp(t, ` reason=background cgroup_ino=1$`, tr.lines["writeback_start"][0])
			assert.Equal(t, "bdi 8:0: cgroup_ino=1", tr.lines["writeback_wake_background"][0])
		} else {
			assert.Contains(t, gds[0], " unstable=0 ")
			assert.NotContains(t, wsi[0], "cgroup_ino")
			assert.Empty(t, tr.lines["writeback_single_inode_start"])
			assert.Regexp(t, ` pause=\d+ period=\d+ think=-?\d+$`, bdp[0], "v3.3+ period/think with the think-time loop")
			assert.Equal(t, "bdi 8:0", tr.lines["writeback_wake_background"][0])
		}
	}
}
