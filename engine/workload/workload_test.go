package workload_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// newKernel is a small machine for the tasks: the baseline kernel (v3.2
// writeback), 4 GiB of memory with a 100 MB dirty limit, the generic filesystem on
// a disk preset.
func newKernel(t *testing.T, disk string) *kernel.Kernel {
	t.Helper()
	w := sim.NewWorld(1000, 1)
	spec, err := devices.Preset(disk)
	require.NoError(t, err)
	q, err := devices.New(w, spec, devices.LegacyBlock(spec, 512))
	require.NoError(t, err)
	preset, err := kernel.LookupPreset(kernel.DefaultPreset)
	require.NoError(t, err)
	p := kernel.Params{CPUs: 4, MemoryMB: 4096, Sysctls: kernel.Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
		DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: kernel.DefaultCosts(), Variants: preset.Variants}
	k, err := kernel.New(w, p)
	require.NoError(t, err)
	_, err = k.AddDisk("8:0", q, fs.NewGeneric(), kernel.DefaultBdiKnobs())
	require.NoError(t, err)
	return k
}

// TestDD: a dd with count= writes count*bs bytes and exits; with conv=fsync it
// exits only once every page is on the disk, without it while the pages are
// still dirty in the page cache (the flusher's first wakeup is 5 s away).
func TestDD(t *testing.T) {
	tests := []struct {
		name      string
		bs, count int64
		fsync     bool
		wantPages int64 // pages dirtied
	}{
		{"bs=4k count=256", 4096, 256, false, 256},
		{"bs=4k count=256 conv=fsync", 4096, 256, true, 256},
		{"bs=1M count=8 conv=fsync", 1 << 20, 8, true, 2048},
		{"bs=512 count=1000: sub-page writes", 512, 1000, false, 125},
		{"bs=512 count=1000 conv=fsync", 512, 1000, true, 125},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKernel(t, "simple")
			dd := workload.NewDD(k, tc.bs, tc.count, tc.fsync)
			dd.Start(sim.Second)
			require.NoError(t, k.W.Run(20*sim.Second))
			require.True(t, dd.Done, "dd exits")
			assert.Equal(t, tc.bs*tc.count, dd.Written())
			in := dd.Inode()
			assert.Equal(t, tc.bs*tc.count, in.Size)
			assert.Equal(t, tc.wantPages, in.Dirtied())
			assert.Equal(t, sim.Second, dd.Started)
			assert.Greater(t, dd.Ended, dd.Started)
			if tc.fsync {
				// 60 MB/s and 200 µs a request: the data takes time on the disk
				assert.Equal(t, tc.wantPages, in.Written(), "fsync returned: every page written")
				assert.True(t, in.Dirty.Empty() && in.Writeback.Empty())
				minIO := sim.Time(tc.wantPages*kernel.PageSize) * sim.Second / (60 << 20)
				assert.Greater(t, dd.Ended-dd.Started, minIO)
			} else {
				assert.Less(t, dd.Ended, 2*sim.Second, "write() returns into the page cache")
				// by 20 s kupdate (30 s expiry) has not written it; the background
				// threshold (10 % of 4 GiB) is far away
				assert.Equal(t, tc.wantPages, in.Dirty.Count(), "still dirty")
			}
			t.Logf("ended after %v", time.Duration(dd.Ended-dd.Started))
			require.NoError(t, k.CheckInvariants())
		})
	}
}

// TestDDUnlimited: a dd without count= keeps writing; balance_dirty_pages holds
// the dirty pages near the 100 MB limit and the writes run at the disk's pace.
func TestDDUnlimited(t *testing.T) {
	k := newKernel(t, "simple")
	dd := workload.NewDD(k, 1<<20, 0, false)
	dd.Start(0)
	limit := int64(100<<20) / kernel.PageSize
	maxDirty := int64(0)
	for s := 1; s <= 30; s++ {
		require.NoError(t, k.W.Run(sim.Time(s)*sim.Second))
		maxDirty = max(maxDirty, k.G.NrFileDirty+k.G.NrWriteback)
	}
	assert.False(t, dd.Done)
	assert.LessOrEqual(t, maxDirty, limit+limit/20, "dirty+writeback stay near the dirty limit")
	// 30 s at 60 MB/s is 1.8 GB; the page cache adds the dirty limit at most
	mb := float64(dd.Written()) / (1 << 20)
	t.Logf("%.0f MB written in 30 s, dirty+writeback at most %d pages (limit %d)", mb, maxDirty, limit)
	assert.InDelta(t, 30*60+100, mb, 250, "MB written in 30 s")
	require.NoError(t, k.CheckInvariants())
}

// TestReader: readers issue one synchronous read at a time; on a rotating disk
// random reads pay a seek each, sequential ones do not.
func TestReader(t *testing.T) {
	tests := []struct {
		name   string
		bs     int64
		random bool
	}{
		{"sequential 128k", 128 << 10, false},
		{"random 4k", 4 << 10, true},
	}
	mean := map[string]sim.Time{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKernel(t, "wu2011-hdd")
			r := workload.NewReader(k, 0, tc.bs, tc.random)
			r.Start(0)
			require.NoError(t, k.W.Run(5*sim.Second))
			st, lat := r.Stats(), r.Latency()
			require.Positive(t, st.Reads)
			assert.Equal(t, st.Reads, lat.N)
			assert.Positive(t, st.Mean)
			assert.LessOrEqual(t, st.Mean, st.Max)
			assert.LessOrEqual(t, st.P99, st.Max)
			assert.LessOrEqual(t, lat.P50, lat.P99)
			// one read at a time: the reads fill the run
			assert.InDelta(t, 5.0, (sim.Time(st.Reads) * st.Mean).Seconds(), 0.1)
			t.Logf("%d reads, mean %v, p99 %v, max %v", st.Reads, time.Duration(st.Mean), time.Duration(st.P99), time.Duration(st.Max))
			mean[tc.name] = st.Mean
		})
	}
	assert.Greater(t, mean["random 4k"], 2*mean["sequential 128k"], "random reads seek")
}

// TestEditorSaves: an editor saving 64 KiB with fsync every second; each save's
// latency runs from its first write() to fsync's return, and a dd filling the
// disk's queue beside it makes saves slower.
func TestEditorSaves(t *testing.T) {
	tests := []struct {
		name string
		dd   bool
	}{
		{"idle disk", false},
		{"beside a dd", true},
	}
	saves := map[string]workload.LatencyStats{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKernel(t, "wu2011-hdd")
			e := workload.NewEditorOn(k, k.BDI, 64<<10, sim.Second)
			e.Start(0)
			if tc.dd {
				workload.NewDD(k, 1<<20, 0, false).Start(0)
			}
			require.NoError(t, k.W.Run(20*sim.Second+500*sim.Millisecond))
			s, w := e.Saves(), e.Writes()
			require.Positive(t, s.N)
			if !tc.dd {
				assert.Equal(t, int64(21), s.N, "a save each second, 0 s to 20 s")
				assert.Zero(t, e.InFlight(), "between saves")
			}
			assert.GreaterOrEqual(t, w.N, s.N, "a save's writes come before its fsync")
			assert.Positive(t, s.P50)
			assert.LessOrEqual(t, s.P50, s.P99)
			assert.LessOrEqual(t, s.P99, s.Max)
			assert.Less(t, w.P50, s.P50, "write() alone is faster than write+fsync")
			assert.Positive(t, e.MeanSave())
			assert.LessOrEqual(t, e.MeanSave(), s.Max)
			t.Logf("%d saves: p50 %v p99 %v max %v (writes p50 %v)", s.N, time.Duration(s.P50), time.Duration(s.P99), time.Duration(s.Max), time.Duration(w.P50))
			saves[tc.name] = s
		})
	}
	assert.Greater(t, saves["beside a dd"].P50, saves["idle disk"].P50)
}

// TestRandomWriter: count= writes of bs at bs-aligned random offsets of the file;
// a page written again while dirty is not dirtied twice.
func TestRandomWriter(t *testing.T) {
	tests := []struct {
		name            string
		bs, file, count int64
	}{
		{"4k writes, 1 MiB file: every block rewritten", 4 << 10, 1 << 20, 1000},
		{"16k writes, 64 MiB file", 16 << 10, 64 << 20, 100},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := newKernel(t, "simple")
			r := workload.NewRandomWriter(k, tc.bs, tc.file, tc.count)
			r.Start(0)
			require.NoError(t, k.W.Run(10*sim.Second))
			require.True(t, r.Done)
			assert.Equal(t, tc.count, r.Writes)
			in := k.Inodes()[len(k.Inodes())-1]
			pages := tc.bs / kernel.PageSize
			assert.LessOrEqual(t, in.Size, tc.file)
			assert.Zero(t, in.Dirtied()%pages, "whole bs blocks")
			assert.LessOrEqual(t, in.Dirtied(), min(tc.count*pages, tc.file/kernel.PageSize))
			assert.Positive(t, in.Dirtied())
			require.NoError(t, k.CheckInvariants())
		})
	}
}
