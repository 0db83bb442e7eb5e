package kernel

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

func TestPresetsAreDistinctAndFound(t *testing.T) {
	seen := map[Variants]string{}
	for _, p := range Presets() {
		first, dup := seen[p.Variants]
		if !dup {
			first = p.Name
			seen[p.Variants] = p.Name
		}
		if dup && !(first == "2.6.36-rc1" && p.Name == "2.6.30-rc6+per-bdi") {
			t.Errorf("presets %s and %s have the same switches", p.Name, first)
		}
		got, ok := PresetFor(p.Variants)
		require.True(t, ok, p.Name)
		assert.Equal(t, first, got)
		for _, sw := range Switches {
			assert.NotEmpty(t, sw.Doc, "doc for %s", sw.Name)
			assert.NotEmpty(t, sw.Models, "kernel function for %s", sw.Name)
			assert.NotEmpty(t, sw.Source, "source for %s", sw.Name)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+", "3.1.0-rc9-ioless-full-more_io_wait-5"},
		{"more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-5"},
		{"ioless-full", "3.1.0-rc9-ioless-full"},
		{"more_io_wait", "3.1.0-rc9-ioless-full-more_io_wait"},
		{"2.6.36-rc1+fix", "2.6.36-rc1+fix"},
		{"4.6+wbt+qd1", "4.6+wbt+qd1"},
	} {
		p, err := LookupPreset(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, p.Name, tc.in)
	}
	v := wu2011([]int{1, 2, 3, 4}, false, false, false)
	assert.True(t, v.On(swMoreIOWait) && v.On(swWriteInodeRequeueWait) && v.On(swLastActiveProgress) && v.On(swKupdateRetryEarly))
	assert.False(t, v.On(swPagesSkippedRequeueWait) || v.On(swBlockedRequeueWait) || v.On(swGrabSuperRequeueWait))
}

// TestQueueIOSplicesMoreIOWait: queue_io with patch 1 sends b_more_io, then
// b_more_io_wait, then the expired b_dirty inodes to b_io: b_more_io=A,
// b_more_io_wait=W, b_dirty=f → b_io = fWA, A written first.
func TestQueueIOSplicesMoreIOWait(t *testing.T) {
	k, _ := newTestKernel(t, func(p *Params) { p.Variants.Set(swMoreIOWait, true) })
	b := k.BDI
	byIno := map[uint64]string{}
	mk := func(name string, l *inodeList) {
		in := k.NewInode()
		in.State, in.DirtiedWhen = IDirtyPages, 1
		byIno[in.Ino] = name
		listMove(in, l)
	}
	mk("f", &b.bDirty)
	mk("A", &b.bMoreIO)
	mk("W", &b.bMoreIOWait)
	assert.True(t, b.wbHasDirtyIO())
	k.queueIO(k.BDI, nil, &WbWritebackWork{olderThanThis: 50, hasOlder: true})
	assert.Equal(t, "fWA", names(&b.bIO, byIno))
	assert.Equal(t, 0, b.MoreIOWaitLen())
	require.NoError(t, k.CheckInvariants())
}

// TestRequeueChoices: where writeback_single_inode and writeback_sb_inodes put an
// inode, per switch combination.
func TestRequeueChoices(t *testing.T) {
	p14 := wu2011([]int{1, 2, 3, 4}, false, false, false)
	all := wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, false)
	removed := wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, true)
	tests := []struct {
		name    string
		v       Variants
		state   int   // i_state after writeback (I_SYNC cleared by wsiFinish)
		dirty   bool  // dirty pages remain
		nr      int64 // nr_to_write left
		skipped bool
		want    string
	}{
		{"write_inode failed, baseline", v32, IDirtySync, false, 10, false, "b_dirty"},
		{"write_inode failed, patches 1-4", p14, IDirtySync, false, 10, false, "b_more_io_wait"},
		{"write_inode failed, list removed", removed, IDirtySync, false, 10, false, "b_more_io"},
		{"blocked, baseline", v32, 0, true, 10, false, "b_dirty"},
		{"blocked, patches 1-4", p14, 0, true, 10, false, "b_dirty"},
		{"blocked, patch 6", all, 0, true, 10, false, "b_more_io_wait"},
		{"slice used up", all, 0, true, 0, false, "b_more_io"},
		{"pages_skipped, baseline", v32, 0, true, 0, true, "b_dirty"},
		{"pages_skipped, patch 5", all, 0, true, 0, true, "b_more_io_wait"},
		{"pages_skipped, redirty removed", wu2011([]int{1, 2, 3, 4}, false, true, false), 0, true, 0, true, "b_more_io"},
		{"clean", all, 0, false, 10, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) { p.Variants = tc.v })
			in := k.NewInode()
			if tc.dirty {
				in.Dirty.Add(0, 1)
			}
			in.State = tc.state | ISync
			m := &k.flusher.wsi
			m.begin(k, k.flusher.th, in, WritebackControl{NrToWrite: tc.nr}, true)
			k.wsiFinish(k.flusher.th, m)
			if tc.skipped { // the tail of writeback_sb_inodes
				switch {
				case tc.v.On(swNoRedirtyOnPagesSkipped):
				case tc.v.On(swPagesSkippedRequeueWait):
					k.requeueIOWait(in)
				default:
					k.redirtyTail(in)
				}
			}
			assert.Equal(t, tc.want, in.OnList())
		})
	}
}

// failFS is testFS whose ->write_inode fails with EAGAIN (re-marking the inode
// dirty) until a given time, like XFS on a contended ILOCK.
type failFS struct {
	testFS
	failUntil sim.Time
	fails     int
}

func (f *failFS) WriteInode(wc *WritebackCtx) error {
	if f.k.W.Now() < f.failUntil {
		f.fails++
		f.k.MarkInodeDirty(wc.In, IDirtySync)
		return errors.New("EAGAIN")
	}
	return nil
}

// TestKupdateRetryEarly: an inode whose ->write_inode fails for 7 s after the
// kupdate writeback at 30 s, with a second, newer dirty inode on b_dirty. The
// baseline redirty_tail()s it behind the newer inode with dirtied_when = now, so its
// metadata waits for another full expire interval; patches 1-4 park it on
// b_more_io_wait and kupdate retries it with pauses doubling up to 5 s.
func TestKupdateRetryEarly(t *testing.T) {
	run := func(v Variants) (sim.Time, *Flusher) {
		k, _ := newTestKernel(t, func(p *Params) { p.Variants = v })
		fs := &failFS{failUntil: 37 * sim.Second}
		fs.k = k
		k.FS, k.BDI.FS = fs, fs
		a := k.NewInode()
		th := k.NewThread("writer")
		k.DirtyPages(th, a, 0, 4, 4*PageSize)
		// keep a newer inode dirty on b_dirty the whole time
		b := k.NewInode()
		var redirty sim.Timer
		redirty.Fn = func() {
			k.DirtyPages(th, b, 0, 1, PageSize)
			k.W.After(&redirty, 10*sim.Second)
		}
		k.W.After(&redirty, 20*sim.Second)
		require.NoError(t, k.W.Run(120*sim.Second))
		require.NoError(t, k.CheckInvariants())
		return a.Stats().MaxMetaAge, k.flusher
	}
	base, _ := run(v32)
	patched, f := run(wu2011([]int{1, 2, 3, 4}, false, false, false))
	assert.Greater(t, base.Seconds(), 55.0, "baseline: a failed write_inode waits another expire interval")
	assert.Less(t, patched.Seconds(), 37.0+5.5, "patches 1-4: retried within dirty_writeback_interval of the lock freeing")
	assert.Positive(t, f.Stats.RetrySleeps)
	t.Logf("max metadata age: baseline %.1f s, patches 1-4 %.1f s", base.Seconds(), patched.Seconds())
}
