package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// TestEditorWaitAttribution: an editor saving beside a bulk writer on the 6.1
// preset; each case is a disk where one wait dominates the saves. Every save's
// parts (the time charged at the wait points) sum to its latency; the Result's
// time_in shares sum to 100 % and name the dominant wait; the series has a point
// per save.
func TestEditorWaitAttribution(t *testing.T) {
	tests := []struct {
		name, kernel, disk string
		cpus               int // 0: 8
		want               kernel.WaitCause
	}{
		{"ext4: the jbd2 commit", "6.1", "capped,bw=100M,fs=ext4,dd=1,editors=1", 0, kernel.WaitJournal},
		{"ext3 on 2.6.30: the jbd commit", "2.6.30-rc6", "wu2011-hdd,fs=ext3,dd=1,editors=1", 0, kernel.WaitJournal},
		{"xfs: the log force", "6.1", "capped,bw=100M,fs=xfs,dd=1,editors=1", 0, kernel.WaitLogForce},
		{"wbt on a QD=1 disk", "6.1", "kara2016-qd1,fs=generic,dd=1,editors=1,editor_bytes=4M", 0, kernel.WaitWBT},
		{"request allocation with nr_requests=4", "6.1", "capped,bw=100M,nr_requests=4,wbt=off,fs=generic,dd=1,editors=1,editor_bytes=1M", 0, kernel.WaitRequest},
		{"dirty throttling of a 64 MiB save", "6.1", "capped,bw=100M,fs=generic,dd=1,editors=1,editor_bytes=64M,editor_interval=5s", 0, kernel.WaitBalance},
		{"one CPU, 8 dd: the runqueue", "6.1", "nvme,fs=generic,dd=8,editors=1", 1, kernel.WaitRunqueue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Kernel = tc.kernel
			if tc.cpus > 0 {
				cfg.CPUs = tc.cpus
			}
			d, err := ParseDisk(tc.disk)
			require.NoError(t, err)
			cfg.Disks = []DiskConfig{d}
			cfg.Runtime = Duration(30 * time.Second)
			cfg.CheckInvariants = true
			m, err := Build(cfg, BuildOptions{})
			require.NoError(t, err)
			require.Len(t, m.eds, 1)
			saves, bad := 0, 0
			var sum [kernel.NumWaitCauses]sim.Time
			m.eds[0].OnSave = func(began, lat sim.Time, parts *[kernel.NumWaitCauses]sim.Time) {
				saves++
				var s sim.Time
				for c, p := range parts {
					assert.GreaterOrEqual(t, p, sim.Time(0))
					s += p
					sum[c] += p
				}
				if s != lat {
					bad++
					t.Errorf("save %d at %v: parts sum to %v, latency %v", saves, began, s, lat)
				}
			}
			require.NoError(t, m.Run(context.Background()))
			r := m.Result()
			require.Len(t, r.Disks, 1)
			require.Len(t, r.Disks[0].Editors, 1)
			e := r.Disks[0].Editors[0]
			require.Greater(t, saves, 3)
			assert.Equal(t, int64(saves), e.N)
			assert.Zero(t, bad)
			share, top := 0.0, ""
			for _, w := range e.TimeIn {
				share += w.SharePct
				if top == "" || w.SharePct > shareOf(e.TimeIn, top) {
					top = w.Cause
				}
				assert.LessOrEqual(t, w.P50Ms, w.P99Ms, w.Cause)
			}
			assert.InDelta(t, 100, share, 1e-6)
			assert.Equal(t, tc.want.String(), top, "dominant wait: %+v", e.TimeIn)
			assert.Greater(t, sum[tc.want], sum[kernel.WaitOther])
			assert.LessOrEqual(t, e.P50Ms, e.P90Ms)
			assert.LessOrEqual(t, e.P90Ms, e.P99Ms)
			assert.Len(t, e.Series, saves, "a point per save below MaxSavePoints")
			assert.Zero(t, e.SeriesEvery)
			t.Logf("%+v", e.TimeIn)
		})
	}
}

func shareOf(ws []WaitShare, cause string) float64 {
	for _, w := range ws {
		if w.Cause == cause {
			return w.SharePct
		}
	}
	return 0
}

// TestEditorSeriesBound: past workload.MaxSavePoints saves the series keeps every
// 2nd, then 4th ... save, from the first, and never more than MaxSavePoints.
func TestEditorSeriesBound(t *testing.T) {
	tests := []struct {
		name      string
		interval  time.Duration
		runtime   time.Duration
		wantEvery int64
	}{
		{"under the bound: every save", 100 * time.Millisecond, 60 * time.Second, 0},
		{"2x the bound: every 2nd", 10 * time.Millisecond, 25 * time.Second, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Kernel = "6.1"
			d, err := ParseDisk("nvme,fs=generic,editors=1,editor_bytes=4k")
			require.NoError(t, err)
			d.Workload.EditorInterval = Duration(tc.interval)
			cfg.Disks = []DiskConfig{d}
			cfg.Runtime = Duration(tc.runtime)
			r, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			e := r.Disks[0].Editors[0]
			assert.LessOrEqual(t, len(e.Series), workload.MaxSavePoints)
			assert.Equal(t, tc.wantEvery, e.SeriesEvery)
			every := max(e.SeriesEvery, 1)
			assert.Equal(t, (e.N+every-1)/every, int64(len(e.Series)), "saves 0, every, 2*every ... kept")
			for i := 1; i < len(e.Series); i++ {
				assert.Greater(t, e.Series[i].TimeS, e.Series[i-1].TimeS)
			}
		})
	}
}

// Every wait cause has its row in WaitDocs, in kernel.WaitCause order, and every
// cause a wait point sets names the kernel function it sleeps in.
func TestWaitDocs(t *testing.T) {
	docs := WaitDocs()
	require.Len(t, docs, int(kernel.NumWaitCauses))
	for c := range kernel.NumWaitCauses {
		d := docs[c]
		assert.Equal(t, c.String(), d.Name)
		assert.NotEmpty(t, d.Meaning, d.Name)
		if c > kernel.WaitRunning {
			assert.NotEmpty(t, d.Function, "%s: no kernel function", d.Name)
		}
	}
}
