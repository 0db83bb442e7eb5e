package fs

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// TestExt3DataGoesOutInJournalBursts: with a dirty limit well above what the
// flusher keeps up with, much of ext3's data is written by kjournald in 5 s commit
// bursts of sync writes.
func TestExt3DataGoesOutInJournalBursts(t *testing.T) {
	e := NewExt3()
	w, k := testKernel(t, "simple", e, 200<<20, nil)
	mbps := runDD(t, w, k, 1, 31*sim.Second, true)
	for _, c := range e.Commits {
		t.Logf("commit at %.2fs: %d data pages", c.At.Seconds(), c.DataPages)
	}
	t.Logf("ext3 1dd: %.1f MB/s, kjournald data %d pages in %d commits, flusher+kjournald written %d", mbps, e.CommitDataPages, len(e.Commits), k.G.NrWritten)
	require.GreaterOrEqual(t, len(e.Commits), 3)
	assert.InDelta(t, 5.0, e.Commits[0].At.Seconds(), 0.01, "first commit after the 5 s interval")
	for i := 1; i < len(e.Commits); i++ {
		prev := e.Commits[i-1]
		assert.LessOrEqual(t, e.Commits[i].At, max(prev.At+5*sim.Second, prev.End),
			"commit %d: every 5 s unless the previous commit took longer", i)
		assert.Greater(t, prev.DataDone, prev.At, "commit %d waited for its data", i-1)
		assert.GreaterOrEqual(t, prev.End, prev.DataDone, "commit %d: metadata and commit block after the data", i-1)
	}
	bursts := 0
	for _, c := range e.Commits {
		if c.DataPages > 1000 {
			bursts++
		}
	}
	assert.GreaterOrEqual(t, bursts, 3, "commits carry data bursts")
	assert.Greater(t, e.CommitDataPages, k.G.NrWritten/10, "a good share of the data goes out from kjournald")
}

func TestExt3DDKeepsInvariants(t *testing.T) {
	for _, n := range []int{1, 10} {
		e := NewExt3()
		w, k := testKernel(t, "simple", e, 100<<20, nil)
		mbps := runDD(t, w, k, n, 30*sim.Second, true)
		commits, jpages := e.Journal()
		t.Logf("ext3 %ddd on simple: %.1f MB/s, commits %d, journal pages %d, kjournald data pages %d", n, mbps, commits, jpages, e.CommitDataPages)
		assert.Greater(t, mbps, 20.0)
	}
}

// TestExt3WritepageHoldsNoHandle: in 3.1 the flusher's ext3_ordered_writepage
// starts no journal handle for a page whose blocks write() allocated, so a commit's
// T_LOCKED ends as soon as the writers' short handles stop: no dd waits in
// journal_start, and the flusher pays no handle per page.
func TestExt3WritepageHoldsNoHandle(t *testing.T) {
	for _, n := range []int{1, 10} {
		t.Run(fmt.Sprintf("%ddd", n), func(t *testing.T) {
			e := NewExt3()
			w, k := testKernel(t, "wu2011-hdd", e, 100<<20, nil)
			mbps := runDD(t, w, k, n, 30*sim.Second, true)
			fl := k.Flusher().Thread().Task.CPUTime()
			pages := k.G.NrWritten + k.G.NrWriteback - e.CommitDataPages // what the flusher wrote
			require.Positive(t, pages)
			perPage := fl / sim.Time(pages)
			t.Logf("ext3 %ddd: %.1f MB/s, %d writer stalls, %d commits, flusher CPU %v for %d pages (%v each)", n, mbps, e.Stalls, len(e.Commits), fl, pages, perPage)
			assert.GreaterOrEqual(t, len(e.Commits), 2)
			assert.Zero(t, e.Stalls, "no writer waited behind a locked commit")
			assert.Less(t, perPage, k.P.Costs.Writepage+e.P.HandleCost, "no journal handle per page written")
			assert.Greater(t, mbps, 30.0)
		})
	}
}

// TestJournalFsyncWaitsForCommit: an ext3/ext4 fsync returns only after a journal
// commit that started after the fsync began is on disk (kernel.FsyncCommitter).
func TestJournalFsyncWaitsForCommit(t *testing.T) {
	for _, name := range []string{"ext3", "ext4"} {
		t.Run(name, func(t *testing.T) {
			f, err := New(name)
			require.NoError(t, err)
			w, k := testKernel(t, "wu2011-hdd", f, 200<<20, nil)
			var j *journal
			switch f := f.(type) {
			case *Ext3:
				j = f.j
			case *Ext4:
				j = f.j
			}
			dd := workload.NewDD(k, 1<<20, 20, true) // 20 MB, below the threshold, then fsync
			dd.Start(0)
			require.NoError(t, w.Run(20*sim.Second))
			require.NoError(t, k.CheckInvariants())
			require.True(t, dd.Done, "fsync returned")
			require.Positive(t, j.Commits)
			t.Logf("%s: dd+fsync returned at %.3fs, last commit started %.3fs, commits %d", name, dd.Ended.Seconds(), j.CommitStart.Seconds(), j.Commits)
			assert.Less(t, dd.Ended, 5*sim.Second, "fsync forced a commit before the 5 s timer")
			assert.GreaterOrEqual(t, dd.Ended, j.CommitStart, "fsync returned after the commit it forced")
			assert.GreaterOrEqual(t, k.G.NrWritten, int64(20<<20)/4096, "all data written")
		})
	}
}

// TestExt3CommitWaitsForItsData: data=ordered (journal_commit_transaction, v3.1):
// the commit block goes to the log only after every data page of the
// transaction is on disk, kjournald's own writes and the pages the flusher had
// under writeback when kjournald passed them (the t_locked_list wait).
func TestExt3CommitWaitsForItsData(t *testing.T) {
	for _, byBuffer := range []bool{false, true} {
		t.Run(fmt.Sprintf("by_buffer=%v", byBuffer), func(t *testing.T) {
			e := NewExt3()
			w, k := testKernel(t, "wu2011-hdd", e, 100<<20, func(p *kernel.Params) { p.Variants.Set(swExt3JbdBuffers, byBuffer) })
			for i := 0; i < 2; i++ {
				workload.NewDD(k, 4096, 0, false).Start(0)
			}
			var bad string
			commits := int64(0)
			w.AfterEvent = func() {
				if bad != "" || e.j.Commits == commits {
					return
				}
				// a commit block just completed: no page of the committed
				// transaction may still be under writeback or locked by kjournald
				commits = e.j.Commits
				for _, sg := range e.waitSegs {
					ei := sg.in.FS.(*ext3Inode)
					if n := sg.in.Writeback.CountRange(sg.lo, sg.hi) + ei.bufLocked.CountRange(sg.lo, sg.hi); n > 0 {
						bad = fmt.Sprintf("commit %d on disk with %d data pages of inode %d still in flight", commits, n, sg.in.Ino)
						return
					}
				}
			}
			require.NoError(t, w.Run(30*sim.Second))
			require.Empty(t, bad)
			require.GreaterOrEqual(t, e.j.Commits, int64(3))
			require.NoError(t, k.CheckInvariants())
		})
	}
}

// TestExt3ByBufferCounts: with jbd's by-buffer ordered data (swExt3JbdBuffers)
// kjournald writes buffers without PG_writeback, so its pages reach NR_WRITTEN
// only when ->writepage meets them: locked (trylock_buffer fails under
// WB_SYNC_NONE from 2.6.37: redirtied, pages_skipped, counted in NR_DIRTIED and
// NR_WRITTEN) or clean (ended under writeback without IO, counted in NR_WRITTEN).
// So NR_WRITTEN = pages the flusher wrote + skips + clean passes, the pages the
// disk received are the flusher's plus kjournald's, and before 2.6.37 the
// flusher waits in lock_buffer instead of skipping (wbc->nonblocking unset).
func TestExt3ByBufferCounts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		blocking bool
	}{{"3.1 trylock", false}, {"2.6.36 lock_buffer", true}} {
		t.Run(tc.name, func(t *testing.T) {
			e := NewExt3()
			w, k := testKernel(t, "wu2011-hdd", e, 100<<20, func(p *kernel.Params) {
				p.Variants.Set(swExt3JbdBuffers, true)
				p.Variants.Set(ksw("wbc_nonblocking"), tc.blocking)
			})
			runDD(t, w, k, 1, 30*sim.Second, true)
			st := k.BDI.Q.Stats()
			disk := st.Sectors[devices.Write] / devices.PageSectors // data, journal and checkpoint pages written
			_, jpages := e.Journal()
			flusherIO := disk - jpages - e.Checkpointed - e.CommitDataPages
			t.Logf("%s: NR_WRITTEN %d, NR_DIRTIED %d, kjournald data %d, skips %d, clean %d, flusher IO ~%d",
				tc.name, k.G.NrWritten, k.G.NrDirtied, e.CommitDataPages, e.PagesSkipped, e.CleanPages, flusherIO)
			require.Positive(t, e.CommitDataPages, "kjournald wrote data by buffer")
			require.Positive(t, e.CleanPages, "the flusher met buffers kjournald had written")
			if tc.blocking {
				assert.Zero(t, e.PagesSkipped, "lock_buffer waits: no page skipped")
			} else {
				assert.Positive(t, e.PagesSkipped, "trylock_buffer failed on buffers kjournald held")
			}
			// every dirtied page is written, dirty or under writeback; a skip
			// dirtied its page once more
			assert.Equal(t, k.G.NrDirtied, k.G.NrWritten+k.G.NrFileDirty+k.G.NrWriteback)
			assert.Greater(t, k.G.NrWritten, flusherIO+e.PagesSkipped, "clean passes counted too")
		})
	}
}

// TestExt3JournalsMetadataOncePerTransaction: jbd logs a buffer once per
// transaction, so a commit carries the new indirect blocks plus a few blocks
// (the block bitmap and group descriptor block of each group written in, the
// inode table block, each file's double-indirect block, the commit block), not
// a bitmap and descriptor per reservation window.
func TestExt3JournalsMetadataOncePerTransaction(t *testing.T) {
	for _, tc := range []struct {
		dd       int
		perFile  int64 // blocks per commit per file beyond the indirect blocks
		perTrans int64 // blocks per commit shared by the files
	}{
		// the DIND block; bitmaps and descriptor blocks of the ~2-3 groups written
		// in, the inode table block, the commit block
		{1, 1, 10},
		{10, 1, 10}, // the 10 inodes share one inode table block
	} {
		t.Run(fmt.Sprintf("%ddd", tc.dd), func(t *testing.T) {
			e := NewExt3()
			w, k := testKernel(t, "wu2011-hdd", e, 100<<20, nil)
			runDD(t, w, k, tc.dd, 31*sim.Second, true)
			commits, pages := e.Journal()
			require.GreaterOrEqual(t, commits, int64(5))
			// every indirect block allocated (written home, waiting for its
			// checkpoint, or in the running transaction) against every block logged
			// (written to the journal, or still to be logged)
			ind := e.Checkpointed + int64(len(e.homeCom)-e.hi+len(e.homeRun))
			other := pages + e.j.pendingMeta - ind
			t.Logf("ext3 %ddd: %d commits, %d journal pages, %d indirect blocks, %.1f other blocks per transaction",
				tc.dd, commits, pages, ind, float64(other)/float64(commits+1))
			assert.Positive(t, e.Checkpointed, "indirect blocks are journalled")
			assert.Positive(t, other, "the commit blocks")
			// (+dd: each file's creation logs its inode and directory entry)
			assert.LessOrEqual(t, other, (commits+1)*(int64(tc.dd)*tc.perFile+tc.perTrans)+int64(tc.dd),
				"each bitmap, descriptor and inode table block logged once per transaction")
		})
	}
}
