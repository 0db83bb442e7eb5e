package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// callWritepages runs one ->writepages call from its own thread to completion and
// returns the pages it wrote.
func callWritepages(t *testing.T, w *sim.World, k *kernel.Kernel, f kernel.Filesystem, in *kernel.Inode, wbc kernel.WritebackControl) (*kernel.WritebackCtx, int64) {
	t.Helper()
	th := k.NewThread("caller")
	wc := &kernel.WritebackCtx{K: k, Th: th, In: in, Wbc: wbc}
	before := in.Writeback.Count() + in.Written()
	done := false
	th.Task.Resume = func() {
		if !done && !f.Writepages(wc) {
			done = true
		}
	}
	th.Task.Start()
	for !done && w.Step() {
	}
	require.True(t, done)
	return wc, in.Writeback.Count() + in.Written() - before
}

func dirty(k *kernel.Kernel, in *kernel.Inode, n int64) {
	th := k.NewThread("writer")
	k.DirtyPages(th, in, 0, n, n*kernel.PageSize)
}

func TestExt4BumpsNrToWriteAndCallerSeesOnlyItsOwnBudget(t *testing.T) {
	for _, tc := range []struct {
		name       string
		dirty      int64
		nrToWrite  int64
		wantWrites int64
	}{
		{"bump to all contiguous dirty pages", 10000, 1024, 10000},
		{"bump capped at 128 MB", 40000, 1024, 128 << 8},
		{"no bump when budget covers the run", 500, 1024, 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewExt4()
			w, k := testKernel(t, "simple", e, 1<<30, nil)
			in := k.NewInode()
			dirty(k, in, tc.dirty)
			wc, wrote := callWritepages(t, w, k, e, in, kernel.WritebackControl{
				SyncMode: kernel.WBSyncNone, NrToWrite: tc.nrToWrite, RangeCyclic: true, ForBackground: true, RangeEnd: 1<<63 - 1})
			assert.Equal(t, tc.wantWrites, wrote)
			// the give-back: the caller's nr_to_write moved by exactly the pages written
			assert.Equal(t, tc.nrToWrite-wrote, wc.Wbc.NrToWrite)
			assert.Nil(t, wc.FSCall, "the call ended and its state (with the bump) was returned")
			require.NoError(t, k.CheckInvariants())
		})
	}
}

// TestExt4StreamRequestBump: 2.6.30's ext4_da_writepages (Ext4WritebackBump off)
// only raises nr_to_write to s_mb_stream_request and keeps what it raised: the
// dirtier's 1536-page write_chunk writes 1536 pages, a 4-page budget writes 16.
func TestExt4StreamRequestBump(t *testing.T) {
	for _, tc := range []struct {
		nrToWrite, wantWrites int64
	}{{1536, 1536}, {4, 16}, {16, 16}} {
		e := NewExt4()
		w, k := testKernel(t, "simple", e, 1<<30, func(p *kernel.Params) { p.Variants.Set(swExt4WritebackBump, false) })
		in := k.NewInode()
		dirty(k, in, 10000)
		wc, wrote := callWritepages(t, w, k, e, in, kernel.WritebackControl{
			SyncMode: kernel.WBSyncNone, NrToWrite: tc.nrToWrite, RangeCyclic: true, RangeEnd: 1<<63 - 1})
		assert.Equal(t, tc.wantWrites, wrote, "nr_to_write %d", tc.nrToWrite)
		assert.Equal(t, max(tc.nrToWrite, 16)-wrote, wc.Wbc.NrToWrite, "the raise is not given back")
		require.NoError(t, k.CheckInvariants())
	}
}

func TestExt4WritebackLeavesInodeCleanAndJournalCommits(t *testing.T) {
	e := NewExt4()
	w, k := testKernel(t, "simple", e, 100<<20, nil)
	in := k.NewInode()
	dirty(k, in, 2000)
	// kupdate writes the expired inode after 30 s. The allocation marks it
	// I_DIRTY_SYNC during the pass (dquot_claim_block), writeback_single_inode
	// clears that right before ->write_inode, and ext4_write_inode (WB_SYNC_NONE)
	// does not dirty it again (3.1): one pass leaves the inode clean, off the lists.
	require.NoError(t, w.Run(36*sim.Second))
	assert.True(t, in.Dirty.Empty())
	st := in.Stats()
	assert.Equal(t, int64(1), st.WritebackCalls, "one pass writes the pages and the inode")
	assert.Equal(t, "", in.OnList(), kernel.StateString(in.State))
	commits, pages := e.Journal()
	assert.Positive(t, commits)
	assert.Less(t, pages, int64(200), "jbd2 commits carry little data with delalloc")
	require.NoError(t, k.CheckInvariants())
}

func TestExt4DDKeepsInvariants(t *testing.T) {
	for _, n := range []int{1, 10} {
		e := NewExt4()
		w, k := testKernel(t, "simple", e, 100<<20, nil)
		mbps := runDD(t, w, k, n, 30*sim.Second, true)
		t.Logf("ext4 %ddd on simple: %.1f MB/s, bumps %d", n, mbps, e.Bumps)
		assert.Greater(t, mbps, 30.0)
	}
}

// TestWalkDirtyTagsIntegrityWalks: a WB_SYNC_ALL ->writepages call through
// kernel.WalkDirty writes only the pages dirty when it started on a filesystem
// whose walk tags PAGECACHE_TAG_TOWRITE (ext4's write_cache_pages_da, v3.2), and
// also the pages dirtied meanwhile on one whose walk does not (btrfs's
// extent_write_cache_pages of 2.6.3x).
func TestWalkDirtyTagsIntegrityWalks(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fs        kernel.Filesystem
		wantWrote int64
	}{
		{"ext4 tags", NewExt4(), 4000},
		{"btrfs does not", NewBtrfs(), 8000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, k := testKernel(t, "simple", tc.fs, 1<<30, nil)
			in := k.NewInode()
			dirty(k, in, 4000)
			th := k.NewThread("fsync")
			wc := &kernel.WritebackCtx{K: k, Th: th, In: in,
				Wbc: kernel.WritebackControl{SyncMode: kernel.WBSyncAll, NrToWrite: 1<<63 - 1, RangeEnd: 1<<63 - 1}}
			writer := k.NewThread("writer")
			calls, done := 0, false
			th.Task.Resume = func() {
				if done {
					return
				}
				calls++
				if !tc.fs.Writepages(wc) {
					done = true
				} else if calls == 1 {
					k.DirtyPages(writer, in, 4000, 4000, 4000*kernel.PageSize) // dirtied during the walk
				}
			}
			th.Task.Start()
			for !done && w.Step() {
			}
			require.True(t, done)
			require.Greater(t, calls, 1, "the walk blocked at least once")
			assert.Equal(t, tc.wantWrote, in.Writeback.Count()+in.Written())
			require.NoError(t, k.CheckInvariants())
		})
	}
}

// TestExt4NextCallBumpsFromWritebackIndex: ext4_da_writepages leaves
// writeback_index at the page after the last one it wrote (write_cache_pages_da's
// done_index, v3.1), so the next range_cyclic call's ext4_num_dirty_pages starts at
// a dirty page and bumps nr_to_write again to the contiguous dirty run.
func TestExt4NextCallBumpsFromWritebackIndex(t *testing.T) {
	e := NewExt4()
	w, k := testKernel(t, "simple", e, 1<<30, nil)
	in := k.NewInode()
	dirty(k, in, 40000)
	wbc := kernel.WritebackControl{SyncMode: kernel.WBSyncNone, NrToWrite: 1024, RangeCyclic: true, ForBackground: true, RangeEnd: 1<<63 - 1}
	_, first := callWritepages(t, w, k, e, in, wbc)
	assert.Equal(t, int64(128<<8), first, "the first call bumps to 128 MB")
	assert.Equal(t, first, in.WritebackIndex, "writeback_index is the next page to write")
	_, second := callWritepages(t, w, k, e, in, wbc)
	assert.Equal(t, 40000-first, second, "the second call bumps to the rest of the run")
	assert.Equal(t, int64(2), e.Bumps)
	require.NoError(t, k.CheckInvariants())
}
