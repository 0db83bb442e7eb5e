package validate

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
)

func readFixture(t *testing.T, file, name string) *Log {
	t.Helper()
	f, err := os.Open(file)
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLog(name, f)
	require.NoError(t, err)
	return l
}

// TestMixConfig: the model of a harness 2 run comes from the log's H lines alone: the
// guest's CPUs, memory and sysctls, each disk's queue, filesystem, max_ratio and rate
// (the busy rate the guest got, the throttle for a disk that idled), each writer on
// its disk with its bs, the editor on its disk.
func TestMixConfig(t *testing.T) {
	l := readFixture(t, "testdata/notheld-s3-maxratio-smoke.log.gz", "s4-max-ratio.r1")
	m, err := MixOf(l)
	require.NoError(t, err)
	cfg, ddOf, err := MixConfig(l, &m)
	require.NoError(t, err)
	c, err := CaseOf(l)
	require.NoError(t, err)
	assert.Equal(t, Kernel, cfg.Kernel)
	assert.Equal(t, c.CPUs, cfg.CPUs)
	assert.Equal(t, c.MemTotalKB/1024, cfg.MemoryMB)
	assert.Equal(t, c.DirtyRatio, cfg.DirtyRatio)
	assert.Equal(t, c.DirtyBackgroundRatio, cfg.DirtyBackgroundRatio)
	require.Len(t, cfg.Disks, 2)
	assert.Equal(t, []int{0, 1}, ddOf)
	for i, d := range l.Disks {
		dc := cfg.Disks[i]
		assert.Equal(t, "capped", dc.Device.Model, d.Name)
		assert.Equal(t, int64(MixDiskRate(l, d, m.Window)+0.5), dc.Device.BandwidthBps, d.Name)
		assert.Equal(t, engine.Workload{DD: 1, BS: 1 << 20}, engine.Workload{DD: dc.Workload.DD, BS: dc.Workload.BS, Count: dc.Workload.Count}, d.Name)
		assert.Equal(t, "ext4", dc.Filesystem, d.Name)
	}
	assert.Equal(t, 1, cfg.Disks[0].Workload.Editors, "the editor on vda (editor=a)")
	assert.Equal(t, int64(4096), cfg.Disks[0].Workload.EditorBytes)
	assert.Zero(t, cfg.Disks[1].Workload.Editors)
	assert.Equal(t, kernel.DefaultBdiKnobs(), cfg.Disks[0].BDI)
	assert.Equal(t, 1, cfg.Disks[1].BDI.MaxRatio, "max_ratio_vdb=1 as read back")
	// vda was busy through the window: the rate it got; a rate is never invented
	_, util, err := l.DiskRateOf("vda", m.Window)
	require.NoError(t, err)
	if util < DiskBoundUtil {
		assert.Equal(t, l.Disks[0].ThrottleBps, cfg.Disks[0].Device.BandwidthBps, "an idle disk runs at its throttle")
	}

	// each writer's control: that writer alone on the same disks
	k := controlConfig(cfg, &m, 1, 10)
	assert.Zero(t, k.Disks[0].Workload.DD+k.Disks[0].Workload.Editors)
	assert.Equal(t, 1, k.Disks[1].Workload.DD)
	assert.Equal(t, cfg.Disks[1].Device, k.Disks[1].Device)

	// a setting wblab cannot take is an error naming it
	l.Header["max_ratio_vdb"] = "x"
	_, _, err = MixConfig(l, &m)
	assert.ErrorContains(t, err, "max_ratio_vdb")
}

// TestRunMix: the scenario runs to the kill, every dd exits after SIGTERM, the sync
// ends with nothing dirty, and the editor's saves and the writers' rates are measured as on the guest; invariants hold throughout.
func TestRunMix(t *testing.T) {
	l := readFixture(t, "testdata/notheld-s3-maxratio-smoke.log.gz", "s4-max-ratio.r1")
	m, err := MixOf(l)
	require.NoError(t, err)
	cfg, _, err := MixConfig(l, &m)
	require.NoError(t, err)
	cfg.CheckInvariants = true
	c, _ := CaseOf(l)
	mm, tr, err := runMix(context.Background(), cfg, c.RunS, m.Window, true)
	require.NoError(t, err)
	require.Len(t, mm.ExitS, 2)
	for _, x := range mm.ExitS {
		assert.GreaterOrEqual(t, x, 0.0)
		// a dd exits at balance_dirty_pages' next fatal_signal_pending check, or, on
		// ext4, once a T_LOCKED transaction it waits for in start_this_handle is
		// switched (an uninterruptible wait: seconds behind a stick's queue)
		assert.Less(t, x, mixSyncLimit.Seconds(), "exit after the kill")
	}
	assert.Positive(t, mm.SyncS)
	assert.Positive(t, mm.Editor.N)
	assert.LessOrEqual(t, mm.Editor.P50S, mm.Editor.P99S)
	assert.LessOrEqual(t, mm.Editor.P99S, mm.Editor.MaxS)
	require.Len(t, mm.DiskMBps, 2)
	stick := float64(cfg.Disks[1].Device.BandwidthBps) / (1 << 20)
	assert.LessOrEqual(t, mm.DiskMBps[1], stick*1.05, "the stick writes at most at its rate")
	assert.Positive(t, tr.rate(m.Window, func(i int) int64 { return tr.written[i][0] }))
}

func TestLatenciesOf(t *testing.T) {
	l := latenciesOf([]float64{0.4, 0.1, 0.3, 0.2, 1.0})
	assert.Equal(t, 5, l.N)
	assert.InDelta(t, 0.4, l.MeanS, 1e-12)
	assert.InDelta(t, 0.3, l.P50S, 1e-12)          // the middle of five
	assert.InDelta(t, 0.4+0.6*0.6, l.P90S, 1e-12)  // 0.9·4 = 3.6: between the 4th and 5th
	assert.InDelta(t, 0.4+0.96*0.6, l.P99S, 1e-12) // 3.96
	assert.Equal(t, 1.0, l.MaxS)
	assert.Equal(t, Latencies{}, latenciesOf(nil))
}
