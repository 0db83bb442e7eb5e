package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

// testFS is a plain one-page-per-writepage filesystem for unit tests. Hooks let a
// test make ->write_inode redirty the inode.
type testFS struct {
	k           *Kernel
	redirtyMeta bool
}

func (f *testFS) Name() string                                             { return "test" }
func (f *testFS) Mount(k *Kernel, b *BDI) error                            { f.k = k; return nil }
func (f *testFS) Create(in *Inode)                                         {}
func (f *testFS) WriteBegin(*Thread, *Inode, int64, int64, int64) sim.Time { return 0 }
func (f *testFS) Writepages(wc *WritebackCtx) bool                         { return wc.WriteCachePages() }
func (f *testFS) Writepage(wc *WritebackCtx, index, runEnd int64) int64 {
	f.WritepageRun(wc, index, 1)
	return 1
}
func (f *testFS) WritepageRun(wc *WritebackCtx, index, n int64) {
	wc.Th.Charge(sim.Time(n) * sim.Microsecond)
	wc.WritePages(index, n)
}
func (f *testFS) WriteInode(wc *WritebackCtx) error {
	if f.redirtyMeta {
		f.k.MarkInodeDirty(wc.In, IDirtySync)
	}
	return nil
}
func (f *testFS) Sector(in *Inode, index int64) int64 { return int64(in.Ino)<<30 + index*8 }

func newTestKernel(t *testing.T, mutate func(*Params)) (*Kernel, *testFS) {
	t.Helper()
	w := sim.NewWorld(1000, 1)
	spec, err := devices.Preset("simple")
	require.NoError(t, err)
	q, err := devices.New(w, spec, devices.LegacyBlock(spec, 512))
	require.NoError(t, err)
	p := Params{CPUs: 8, MemoryMB: 4096, Sysctls: Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
		DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: DefaultCosts(),
		Variants: Variants{}.With(SwWCPTerminateLE0, swScaledChunk)}
	if mutate != nil {
		mutate(&p)
	}
	fs := &testFS{}
	k, err := New(w, p)
	require.NoError(t, err)
	_, err = k.AddDisk("8:0", q, fs, DefaultBdiKnobs())
	require.NoError(t, err)
	return k, fs
}

func TestWritebackChunkSize(t *testing.T) {
	const mb = 256 // pages
	tests := []struct {
		name      string
		limit     int64 // global dirty limit, pages
		bw        int64 // avg write bandwidth, pages/s
		work      WbWritebackWork
		wantPages int64
	}{
		{"100 MB limit: limit/8 governs", 100 * mb, 50 * mb, WbWritebackWork{NrPages: longMax}, 16 * mb},
		{"1 GB limit: bw/2 governs", 1024 * mb, 50 * mb, WbWritebackWork{NrPages: longMax}, 28 * mb},
		{"8 MB limit: 4 MB minimum", 8 * mb, 50 * mb, WbWritebackWork{NrPages: longMax}, 4 * mb},
		{"work's pages bound it", 1024 * mb, 50 * mb, WbWritebackWork{NrPages: 2 * mb}, 4 * mb},
		{"WB_SYNC_ALL: whole inode", 100 * mb, 50 * mb, WbWritebackWork{NrPages: 10, SyncMode: WBSyncAll}, longMax},
		{"tagged: whole inode", 100 * mb, 50 * mb, WbWritebackWork{NrPages: 10, TaggedWritepages: true}, longMax},
	}
	for _, tc := range tests {
		k, _ := newTestKernel(t, nil)
		k.globalDirtyLimit = tc.limit
		k.BDI.AvgWriteBandwidth = tc.bw
		assert.Equal(t, tc.wantPages, k.writebackChunkSize(k.BDI, &tc.work), tc.name)
	}
	k, _ := newTestKernel(t, func(p *Params) { p.Variants.Set(swScaledChunk, false) })
	assert.Equal(t, int64(1024), k.writebackChunkSize(k.BDI, &WbWritebackWork{NrPages: longMax}), "MAX_WRITEBACK_PAGES before v3.1")
}

func TestPosRatioControlLine(t *testing.T) {
	// 100M:10 on 4096M: thresh 25600 pages, bg 12800, freerun 19200, limit 25600, setpoint 22400
	tests := []struct {
		name  string
		dirty int64
		want  float64
	}{
		{"freerun", 19200, 2.0},
		{"setpoint", 22400, 1.0},
		{"limit", 25600 - 1, 0.0},
	}
	for _, tc := range tests {
		got := float64(posRatioPolynom(22400, tc.dirty, 25600)) / 1024
		assert.InDelta(t, tc.want, got, 0.01, tc.name)
	}
	k, _ := newTestKernel(t, nil)
	k.BDI.AvgWriteBandwidth = 50 * 256
	bg, thresh := k.dirtyLimits()
	require.Equal(t, int64(25600), thresh)
	require.Equal(t, int64(12800), bg)
	_, _, limit, setpoint := k.DirtyLimits()
	require.Equal(t, int64(25600), limit)
	require.Equal(t, int64(22400), setpoint)
	// at the setpoint with bdi_dirty at the bdi setpoint the whole ratio is ~1
	assert.InDelta(t, 1.0, float64(k.bdiPositionRatio(k.BDI, thresh, bg, 22400, thresh, 22400*thresh/(thresh+1)))/1024, 0.01)
	assert.Equal(t, int64(0), k.bdiPositionRatio(k.BDI, thresh, bg, 25600, thresh, 25600), "at the limit")
	assert.Greater(t, k.bdiPositionRatio(k.BDI, thresh, bg, 19200, thresh, 19200), int64(2*1024)-1, "freerun: ≥ 2 (bdi line adds more)")
}

func TestBandwidthEstimateConverges(t *testing.T) {
	k, _ := newTestKernel(t, nil)
	const rate = 60 * 256 // pages/s
	start := k.W.Jiffies()
	for step := 1; step <= 150; step++ { // 30 s in 200 ms steps
		require.NoError(t, k.W.Run(sim.Time(step)*200*sim.Millisecond+sim.Millisecond))
		k.BDI.Stats.Written = int64(step) * rate / 5
		k.wbUpdateBandwidth(k.BDI, start)
	}
	assert.InEpsilon(t, float64(rate), float64(k.BDI.WriteBandwidth), 0.02)
	assert.InEpsilon(t, float64(rate), float64(k.BDI.AvgWriteBandwidth), 0.03)
}

// runWCP dirties pages [0, dirty) of a new inode, optionally puts some under
// writeback, and runs write_cache_pages with nr_to_write from a flusher-like thread.
func runWCP(t *testing.T, k *Kernel, in *Inode, wbc WritebackControl) *WritebackCtx {
	t.Helper()
	th := k.NewThread("wcp")
	wc := &WritebackCtx{K: k, Th: th, In: in, Wbc: wbc}
	done := false
	th.Task.Resume = func() {
		if !wc.WriteCachePages() {
			done = true
			th.Task.Exit()
		}
	}
	th.Task.Start()
	require.NoError(t, k.W.Run(k.W.Now()+10*sim.Second))
	require.True(t, done)
	return wc
}

func TestWriteCachePagesNrToWrite(t *testing.T) {
	tests := []struct {
		name        string
		fix         bool
		dirty       int64
		nrToWrite   int64
		syncMode    SyncMode
		wantWritten int64
		wantNr      int64
	}{
		{"stops when nr_to_write reaches 0", true, 100, 30, WBSyncNone, 30, 0},
		{"fewer dirty pages than budget", true, 20, 30, WBSyncNone, 20, 10},
		{"WB_SYNC_ALL ignores the budget", true, 100, 30, WBSyncAll, 100, -70},
		{"fix: nr_to_write already <= 0 writes one page", true, 100, 0, WBSyncNone, 1, -1},
		{"2.6.36-rc1: nr_to_write <= 0 never stops", false, 100, 0, WBSyncNone, 100, 0},
		{"2.6.36-rc1: positive budget stops at 0", false, 100, 30, WBSyncNone, 30, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) { p.Variants.Set(SwWCPTerminateLE0, tc.fix) })
			th := k.NewThread("dd")
			in := k.NewInode()
			k.DirtyPages(th, in, 0, tc.dirty, tc.dirty*PageSize)
			wc := runWCP(t, k, in, WritebackControl{SyncMode: tc.syncMode, NrToWrite: tc.nrToWrite,
				RangeCyclic: tc.syncMode == WBSyncNone, RangeEnd: longMax})
			assert.Equal(t, tc.wantWritten, in.Written()+in.Writeback.Count())
			assert.Equal(t, tc.wantNr, wc.Wbc.NrToWrite)
			require.NoError(t, k.CheckInvariants())
		})
	}
}

func TestWriteCachePagesCyclicAndSkipsWriteback(t *testing.T) {
	k, _ := newTestKernel(t, nil)
	th := k.NewThread("dd")
	in := k.NewInode()
	k.DirtyPages(th, in, 0, 100, 100*PageSize)
	in.WritebackIndex = 60
	wc := runWCP(t, k, in, WritebackControl{SyncMode: WBSyncNone, NrToWrite: 50, RangeCyclic: true, RangeEnd: longMax})
	// from index 60 to the end (40 pages), then wrap to 0..9
	assert.Equal(t, int64(50), in.Written()+in.Writeback.Count())
	assert.False(t, in.Dirty.Contains(5))
	assert.True(t, in.Dirty.Contains(10))
	assert.Equal(t, int64(9), in.WritebackIndex, "done_index: last page written")
	assert.Equal(t, int64(0), wc.Wbc.NrToWrite)
}

// TestWritebackSingleInodeOutcomes covers every branch of writeback_single_inode's
// requeue decision.
func TestWritebackSingleInodeOutcomes(t *testing.T) {
	tests := []struct {
		name        string
		dirty       int64 // dirty pages
		busy        int64 // of which also under writeback (skipped by WB_SYNC_NONE)
		nrToWrite   int64
		syncMode    SyncMode
		iSync       bool // inode already under I_SYNC
		redirtyMeta bool // ->write_inode redirties the inode
		wantList    string
		wantWrote   int64
		wantAgeKept bool
	}{
		{"I_SYNC busy: requeue_io", 10, 0, 1024, WBSyncNone, true, false, "b_more_io", 0, true},
		{"slice used up: requeue_io", 100, 0, 40, WBSyncNone, false, false, "b_more_io", 40, true},
		{"pages left, budget left: redirty_tail", 100, 100, 1024, WBSyncNone, false, false, "b_dirty", 0, false},
		{"fs redirtied the inode: redirty_tail", 10, 0, 1024, WBSyncNone, false, true, "b_dirty", 10, false},
		{"clean: off the lists", 10, 0, 1024, WBSyncNone, false, false, "", 10, true},
		{"WB_SYNC_ALL, still dirty: dirtied_when = now", 10, 0, longMax, WBSyncAll, false, true, "b_dirty", 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, fs := newTestKernel(t, nil)
			fs.redirtyMeta = tc.redirtyMeta
			th := k.NewThread("dd")
			older := k.NewInode() // keeps b_dirty non-empty with a newer head
			in := k.NewInode()
			require.NoError(t, k.W.Run(40*sim.Second))
			k.DirtyPages(th, in, 0, tc.dirty, tc.dirty*PageSize)
			require.NoError(t, k.W.Run(41*sim.Second))
			k.DirtyPages(th, older, 0, 1, PageSize)
			if tc.busy > 0 { // pages redirtied while under writeback
				wbc := WritebackControl{SyncMode: WBSyncAll, NrToWrite: longMax, RangeEnd: longMax}
				wc := &WritebackCtx{K: k, Th: th, In: in, Wbc: wbc}
				wc.WritePages(0, tc.busy)
				k.DirtyPages(th, in, 0, tc.busy, tc.dirty*PageSize)
				in.State |= IDirtyPages
			}
			listMove(in, &k.BDI.bIO)
			if tc.iSync {
				in.State |= ISync
			}
			when := in.DirtiedWhen
			m := &singleInodeWB{}
			m.begin(k, th, in, WritebackControl{SyncMode: tc.syncMode, NrToWrite: tc.nrToWrite, RangeCyclic: true, RangeEnd: longMax}, true)
			th.Task.Resume = func() {
				if !k.writebackSingleInode(th, m) {
					th.Task.Exit()
				}
			}
			th.Task.Start()
			require.NoError(t, k.W.Run(k.W.Now()+sim.Second))
			assert.Equal(t, tc.wantList, in.OnList())
			assert.Equal(t, tc.wantWrote, m.nrToWrite-m.wc.Wbc.NrToWrite)
			if tc.wantAgeKept {
				assert.Equal(t, when, in.DirtiedWhen)
			} else {
				assert.Greater(t, in.DirtiedWhen, when)
			}
			if tc.iSync {
				in.State &^= ISync
			}
			require.NoError(t, k.CheckInvariants())
		})
	}
}

func TestSyncWritesEverythingDirtiedBefore(t *testing.T) {
	k, _ := newTestKernel(t, nil)
	th := k.NewThread("sync")
	var ins []*Inode
	for i := 0; i < 5; i++ {
		in := k.NewInode()
		k.DirtyPages(th, in, 0, 1000, 1000*PageSize)
		ins = append(ins, in)
	}
	require.NoError(t, k.W.Run(sim.Second))
	var work *WbWritebackWork
	done := sim.Time(-1)
	step := 0
	th.Task.Resume = func() {
		switch step {
		case 0:
			step = 1
			work = k.SyncInodesSb()
			if work.Wait(th) {
				return
			}
			fallthrough
		case 1:
			done = k.W.Now()
			th.Task.Exit()
		}
	}
	th.Task.Start()
	require.NoError(t, k.W.Run(30*sim.Second))
	require.True(t, work.Done())
	require.Positive(t, done)
	for _, in := range ins {
		assert.Equal(t, int64(1000), in.Written(), "inode %d", in.Ino)
		assert.Equal(t, "", in.OnList())
	}
	// 20 MB at 60 MiB/s takes about a third of a second
	assert.InDelta(t, 1.33, done.Seconds(), 0.1)
	require.NoError(t, k.CheckInvariants())
}

// TestWalkDirtyDoneIndex: a range_cyclic WalkDirty that stops on its budget leaves
// writeback_index at the last page it wrote (write_cache_pages, v3.2: page->index)
// or, with DoneIndexNext, at the page after it (ext4's write_cache_pages_da, v3.1:
// page->index + 1), so ext4's next call starts at a dirty page.
func TestWalkDirtyDoneIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		next bool
		want int64
	}{
		{"write_cache_pages", false, 99},
		{"write_cache_pages_da", true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, nil)
			in := k.NewInode()
			in.Dirty.Add(0, 300)
			wc := &WritebackCtx{K: k, Th: k.NewThread("walker"), In: in, DoneIndexNext: tc.next,
				Wbc: WritebackControl{SyncMode: WBSyncNone, NrToWrite: 100, RangeCyclic: true, RangeEnd: longMax}}
			blocked := wc.WalkDirty(false, func(s, e int64) (int64, bool) {
				n := min(e-s, wc.Wbc.NrToWrite)
				wc.Wbc.NrToWrite -= n
				return n, wc.Wbc.NrToWrite <= 0
			})
			require.False(t, blocked)
			assert.Equal(t, tc.want, in.WritebackIndex)
			assert.True(t, in.Dirty.Contains(tc.want), "the step writes nothing: the page writeback_index points at is dirty")
		})
	}
}
