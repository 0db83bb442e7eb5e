package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
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
	w, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) { p.Variants.Set(kernel.SwWCPTerminateLE0, false) })
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
	x := NewXfs()
	w, k := testKernel(t, "simple", x, 1<<30, nil)
	in := k.NewInode()
	dirty(k, in, 1000)
	_, wrote := callWritepages(t, w, k, x, in, bgWbc(16))
	require.Equal(t, int64(17), wrote, "the lock is free: one clustered call")
	// IO completion's xfs_setfilesize holds the ILOCK all the time from now on
	xi := in.FS.(*xfsInode)
	xi.completion = ilockWindow{from: w.Now(), till: w.Now() + sim.Second, ppm: 1_000_000}
	wc, wrote := callWritepages(t, w, k, x, in, bgWbc(16))
	assert.Zero(t, wrote)
	assert.Equal(t, int64(16), wc.Wbc.PagesSkipped, "every page redirtied (pages_skipped)")
	assert.Equal(t, int64(16), x.PagesSkipped)
	assert.Equal(t, int64(1000-17), in.Dirty.Count())
	// ->write_inode fails with EAGAIN and re-marks the inode dirty
	xi.updateCore = true
	in.State &^= kernel.IDirtySync
	require.ErrorIs(t, x.WriteInode(wc), ErrEAGAIN)
	assert.NotZero(t, in.State&kernel.IDirtySync)
	require.NoError(t, k.CheckInvariants())
}

func TestIlockWindow(t *testing.T) {
	var w ilockWindow
	w.set(100, 1000, 4, 50) // four 50 ns holds in 1000 ns: 20 %
	for _, c := range []struct {
		t    sim.Time
		want int64
	}{{99, 0}, {100, 200_000}, {1099, 200_000}, {1100, 0}} {
		assert.Equal(t, c.want, w.heldPPM(c.t), "t=%d", c.t)
	}
	w.set(0, 10, 5, 10) // more hold than time: always held
	assert.Equal(t, int64(1_000_000), w.heldPPM(5))
}

// TestXfsdatadRequeuesOnIlockContention: appending ioends are finished by the
// xfsdatad worker; while the writer holds the ILOCK, xfs_setfilesize's trylock
// fails, the ioend is requeued and the worker sleeps a jiffy; every page still
// completes, and the on-disk size follows the written data.
func TestXfsdatadRequeuesOnIlockContention(t *testing.T) {
	for _, c := range []struct {
		name  string
		hold  sim.Time
		retry bool
	}{{"free lock", 0, false}, {"writer holds it most of the time", 4 * sim.Microsecond, true}} {
		t.Run(c.name, func(t *testing.T) {
			x := NewXfs()
			x.P.BmapiHold = c.hold
			// 2.6.36-rc1's write_cache_pages: a stream of two-page ioends
			w, k := testKernel(t, "chinner2010-vm", x, 400<<20, func(p *kernel.Params) { p.Variants.Set(kernel.SwWCPTerminateLE0, false) })
			mbps := runDD(t, w, k, 1, 5*sim.Second, true)
			t.Logf("%.0f MB/s, ioends %d, requeues %d, pages_skipped %d", mbps, x.Ioends, x.EndIoRequeues, x.PagesSkipped)
			assert.Positive(t, x.Ioends)
			assert.Equal(t, c.retry, x.EndIoRequeues > 0)
			in := k.Inodes()[0]
			xi := in.FS.(*xfsInode)
			assert.Equal(t, in.Writeback.Count(), sumIoends(x, in), "pages under writeback belong to ioends")
			assert.LessOrEqual(t, xi.diSize, in.Size)
			assert.GreaterOrEqual(t, xi.diSize, (k.G.NrWritten-in.Writeback.Count())*kernel.PageSize/2)
		})
	}
}

// sumIoends counts the pages of in's ioends not yet finished: at the device or
// queued for the xfsdatad worker.
func sumIoends(x *Xfs, in *kernel.Inode) int64 {
	var n int64
	xi := in.FS.(*xfsInode)
	for _, io := range xi.ioends.q[xi.ioends.head:] {
		n += io.remaining
	}
	for _, io := range x.workq.q[x.workq.head:] {
		if io.ino == in.Ino {
			n += io.n
		}
	}
	return n
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
// This kernel has the IO-less throttle (not 2.6.36's): the thread's figure is
// checked by the chinner-2010 experiment (tests/fidelity).
func TestXfsChinnerFixSpeedsUpSequentialWrites(t *testing.T) {
	rate := func(fix bool) (float64, sim.Time) {
		x := NewXfs()
		w, k := testKernel(t, "chinner2010-vm", x, 1<<30, func(p *kernel.Params) {
			p.Variants = kernel.Variants{} // 2.6.36: MAX_WRITEBACK_PAGES chunks
			p.Variants.Set(kernel.SwWCPTerminateLE0, fix)
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
	t.Logf("fix/buggy %.2f", fast/slow)
}

// TestXfsBlocksOnIlockBefore2637: before 2.6.37 (wbc_nonblocking) the flusher's
// xfs_map_blocks waits for a busy ILOCK instead of redirtying the page (the
// thread's 2.6.36 trace shows skip=0); 2.6.30's pdflush set wbc->nonblocking.
func TestXfsBlocksOnIlockBefore2637(t *testing.T) {
	for _, c := range []struct {
		name        string
		old, nonblk bool
		skipped     bool
	}{
		{"3.x: trylock", false, false, true},
		{"2.6.36 flusher: waits", true, false, false},
		{"2.6.30 pdflush (nonblocking): trylock", true, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := NewXfs()
			_, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) { p.Variants.Set(ksw("wbc_nonblocking"), c.old) })
			in := k.NewInode()
			dirty(k, in, 1000)
			in.FS.(*xfsInode).completion = ilockWindow{from: 0, till: sim.Second, ppm: 1_000_000}
			wc := kernel.WritebackCtx{K: k, Th: k.Flusher().Thread(), In: in, Wbc: bgWbc(16)}
			if c.nonblk {
				wc.SetNonblocking(true)
			}
			assert.Equal(t, c.skipped, wc.TryLocks())
			x.Writepage(&wc, 0, 1000)
			assert.Equal(t, c.skipped, x.PagesSkipped > 0, "pages_skipped")
			assert.Equal(t, c.skipped, in.Writeback.Empty(), "nothing written when the trylock failed")
		})
	}
}

// TestXfsIoendInvariant: the check ties the pages under writeback to the
// unfinished ioends, and catches an ioend the model lost or invented.
func TestXfsIoendInvariant(t *testing.T) {
	x := NewXfs()
	w, k := testKernel(t, "chinner2010-vm", x, 400<<20, func(p *kernel.Params) { p.Variants.Set(kernel.SwWCPTerminateLE0, false) })
	runDD(t, w, k, 1, sim.Second, true) // checked after every event
	in := k.Inodes()[0]
	require.Positive(t, in.Writeback.Count(), "ioends in flight at the end")
	x.workq.push(xfsIoend{ino: in.Ino, start: 1 << 40, n: 7})
	require.ErrorContains(t, k.CheckInvariants(), "invariant xfs-ioend")
	x.workq.q = x.workq.q[:len(x.workq.q)-1] // drop it again
	require.NoError(t, k.CheckInvariants())
}

// recorder is a kernel.Tracer keeping the times of one thread's wbc_writepage
// lines with towrt ≤ 0 (2.6.36-rc1's one-page-cluster calls).
type recorder struct {
	comm  string
	times []sim.Time
}

func (r *recorder) Emit(now sim.Time, task *sim.Task, ev tracepoint.Event) {
	if wp, ok := ev.(tracepoint.Writepage); ok && task != nil && task.Comm == r.comm && wp.NrToWrite < 0 {
		r.times = append(r.times, now)
	}
}

// TestXfsOldRuleCallTime: each of 2.6.36-rc1's two-page ->writepage calls costs the
// sum of what one xfs_vm_writepage call does (write_cache_pages' two page visits,
// xfs_map_blocks, xfs_cluster_write's lookup of a pagevec of which one page is
// converted, one bio), plus a sleep/wake-up when the blocking ILOCK was held; the
// trace lines carry each call's own time inside the batch.
func TestXfsOldRuleCallTime(t *testing.T) {
	x := NewXfs()
	w, k := testKernel(t, "chinner2010-vm", x, 400<<20, func(p *kernel.Params) {
		p.Variants = kernel.Variants{}.With(ksw("wbc_nonblocking")) // 2.6.36-rc1's write_cache_pages, blocking ILOCK
	})
	r := &recorder{comm: "flush-8:0"}
	k.SetTracer(r)
	runDD(t, w, k, 1, 2*sim.Second, false)
	c := &k.P.Costs
	call := c.Writepage + x.P.SkipPageCost + x.P.MapBlocksCost + c.ClusterPage +
		(xfsPagevecSize-1)*x.P.LookupPageCost + c.SubmitBio
	require.Greater(t, len(r.times), 1000, "the flusher ran one-page-cluster calls")
	plain, waited := 0, 0
	for i := 1; i < len(r.times); i++ {
		switch d := r.times[i] - r.times[i-1]; d {
		case call:
			plain++
		case call + c.SleepWake:
			waited++
		}
	}
	t.Logf("%d calls: %d at %v, %d at %v (ILOCK waits %d)", len(r.times), plain, call, waited, call+c.SleepWake, x.IlockWaits)
	assert.Greater(t, plain, len(r.times)/2, "consecutive calls are one call's cost apart")
	assert.Positive(t, x.IlockWaits, "the writer's ILOCK holds make writeback wait")
}

// TestCalibrationXfsOldRuleCallTime: the modelled cost of one two-page call lies in
// the spacing of the thread's wbc_writepage lines with towrt 0, -1, -2 (22 and 7 µs
// on Chinner's 8p VM).
func TestCalibrationXfsOldRuleCallTime(t *testing.T) {
	x := NewXfs()
	c := kernel.DefaultCosts()
	call := c.Writepage + x.P.SkipPageCost + x.P.MapBlocksCost + c.ClusterPage +
		(xfsPagevecSize-1)*x.P.LookupPageCost + c.SubmitBio
	assert.GreaterOrEqual(t, call, 7*sim.Microsecond)
	assert.LessOrEqual(t, call+c.SleepWake, 22*sim.Microsecond)
}

// TestXfsWriteInodePinAndFlushLock: 3.1's xfs_fs_write_inode. Background writeback
// flushes a changed inode, with the changed inodes of its cluster, into the cluster
// buffer, whose flush lock holds until xfsbufd writes the buffer (15 s old, at its
// 1 s tick): ->write_inode fails with EAGAIN until then, and re-marks the inode
// I_DIRTY_SYNC. kupdate takes the same path (3.1 has no for_kupdate branch);
// WB_SYNC_ALL logs the inode, which pins it until xfs_sync_worker's next log force
// (every 30 s). Without the switch XFS has no ->write_inode.
func TestXfsWriteInodePinAndFlushLock(t *testing.T) {
	type step struct {
		at      sim.Time // virtual time of the call
		ino     int      // which inode (index into the test's inodes)
		mode    int      // 0 background, 1 kupdate, 2 WB_SYNC_ALL
		change  bool     // an IO completion changed the in-core inode before the call
		err     error    // nil or ErrEAGAIN
		sibling bool     // a completion also changed the other inode of its cluster
	}
	const s = sim.Second
	cases := []struct {
		name        string
		on          bool
		steps       []step
		pinned      int64
		flushLocked int64
		flushes     int64
	}{
		{"no ->write_inode without the switch", false,
			[]step{{s, 0, 0, true, nil, false}, {2 * s, 0, 0, true, nil, false}}, 0, 0, 0},
		{"unchanged inode: nothing to do", true, []step{{s, 0, 0, false, nil, false}}, 0, 0, 0},
		{"flush, then flush-locked until xfsbufd writes the buffer", true, []step{
			{s + s/2, 0, 0, true, nil, true},       // flushes inodes 0 and 1 (same cluster) till 17 s
			{3 * s, 0, 0, true, ErrEAGAIN, false},  // flush-locked
			{5 * s, 2, 0, true, nil, false},        // another cluster: free
			{16 * s, 1, 0, true, ErrEAGAIN, false}, // the cluster's other inode too
			{17 * s, 0, 0, true, nil, false},       // buffer written at 17 s: flushes again
		}, 0, 2, 5}, // flushes: 0+1, 2, 0+1
		{"kupdate flushes like background writeback (v3.1)", true, []step{
			{10 * s, 0, 1, true, nil, false},       // flushed, flush-locked till 26 s
			{20 * s, 0, 1, true, ErrEAGAIN, false}, // flush-locked
			{26 * s, 0, 1, true, nil, false},       // buffer written: flushed again
		}, 0, 1, 2},
		{"WB_SYNC_ALL logs: pinned until the next log force", true, []step{
			{10 * s, 0, 2, true, nil, false},       // logged, pinned till 30 s
			{29 * s, 0, 1, true, ErrEAGAIN, false}, // pinned
			{30 * s, 0, 0, true, nil, false},       // checkpoint written: flushed
		}, 1, 0, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := NewXfs()
			w, k := testKernel(t, "simple", x, 1<<30, func(p *kernel.Params) { p.Variants.Set(swXFSWriteInodeFlush, c.on) })
			var ins []*kernel.Inode
			for len(ins) < 3 {
				in := k.NewInode()
				if len(ins) < 2 || in.Ino/x.P.InodesPerCluster != ins[0].Ino/x.P.InodesPerCluster {
					ins = append(ins, in)
				}
			}
			require.Equal(t, ins[0].Ino/x.P.InodesPerCluster, ins[1].Ino/x.P.InodesPerCluster)
			for i, st := range c.steps {
				require.NoError(t, w.Run(st.at))
				in := ins[st.ino]
				in.FS.(*xfsInode).updateCore = st.change
				if st.sibling {
					ins[1-st.ino].FS.(*xfsInode).updateCore = true
				}
				in.State &^= kernel.IDirtySync
				wbc := bgWbc(1024)
				wbc.ForBackground, wbc.ForKupdate = st.mode == 0, st.mode == 1
				if st.mode == 2 {
					wbc.SyncMode, wbc.ForBackground = kernel.WBSyncAll, false
				}
				err := x.WriteInode(&kernel.WritebackCtx{K: k, In: in, Wbc: wbc})
				assert.Equal(t, st.err, err, "step %d", i)
				assert.Equal(t, st.err != nil, in.State&kernel.IDirtySync != 0, "step %d: EAGAIN re-marks I_DIRTY_SYNC", i)
			}
			assert.Equal(t, c.pinned, x.Pinned, "pinned")
			assert.Equal(t, c.flushLocked, x.FlushLocked, "flush-locked")
			assert.Equal(t, c.flushes, x.Flushes, "flushes")
		})
	}
}
