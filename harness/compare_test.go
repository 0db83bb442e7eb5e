package harness

import (
	"context"
	"github.com/wblab/wblab/engine"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
)

func TestMatricesFromTheThread(t *testing.T) {
	want := map[string]struct {
		base, test string
		rows       int
	}{
		"wu-2011-T1": {"3.1.0-rc9-ioless-full", "3.1.0-rc9-ioless-full-more_io_wait-5", 24},
		"wu-2011-T2": {"3.1.0-rc9-ioless-full-more_io_wait", "3.1.0-rc9-ioless-full-more_io_wait-7", 20},
		"wu-2011-T3": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-9", 24},
		"wu-2011-T4": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-8", 24},
		"wu-2011-T5": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-6", 14},
		"wu-2011-T6": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-7", 20},
	}
	require.Len(t, Matrices(), len(want))
	for name, w := range want {
		m, err := LookupMatrix(name)
		require.NoError(t, err)
		assert.Equal(t, w.base, m.Base, name)
		assert.Equal(t, w.test, m.Test, name)
		assert.Len(t, m.Rows, w.rows, name)
		for _, c := range m.Cases() {
			_, err := CompareConfig(c, m.Base, CompareOptions{})
			require.NoError(t, err, c)
		}
	}
	m, _ := LookupMatrix("wu-2011-T1")
	// +1.2% in the mail includes the thresh=8M rows the copy omits
	assert.InDelta(t, 1.0, m.ThreadTotalDeltaPct(), 0.05, "the thread's delta over the listed cases")
}

func TestCompareText(t *testing.T) {
	c := &Comparison{Base: "3.1.0-rc9-ioless-full", Test: "3.1.0-rc9-ioless-full-more_io_wait-5",
		Rows:          []CompareRow{{Case: "thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X", BaseMBps: 56.47, TestMBps: 58.22, DeltaPct: 3.1}},
		TotalBaseMBps: 56.47, TotalTestMBps: 58.22, TotalDeltaPct: 3.1}
	lines := strings.Split(c.Text(), "\n")
	assert.Equal(t, "3.1.0-rc9-ioless-full-next-20111014+  3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+  ", lines[0])
	assert.Equal(t, "                   56.47        +3.1%        58.22  thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X", lines[2])
	assert.True(t, strings.HasSuffix(lines[3], "  TOTAL write_bw"))
}

func TestCompareRuns(t *testing.T) {
	cmp, err := Compare(context.Background(), "ioless-full", "more_io_wait-5",
		[]string{"thresh=100M/xfs-2dd-4k-8p-4096M-100M:10-X", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X"},
		CompareOptions{Runtime: engine.Duration(20e9)})
	require.NoError(t, err)
	require.Len(t, cmp.Rows, 2)
	for _, r := range cmp.Rows {
		assert.Positive(t, r.BaseMBps)
		assert.Positive(t, r.TestMBps)
	}
	assert.InDelta(t, cmp.Rows[0].BaseMBps+cmp.Rows[1].BaseMBps, cmp.TotalBaseMBps, 1e-9)
	_, err = Compare(context.Background(), "nope", "4.6", []string{"x"}, CompareOptions{})
	require.ErrorContains(t, err, "--base")
	_, err = kernel.LookupPreset("more_io_wait-x2")
	require.NoError(t, err)
}

// TestCompareSeeds: with several seeds the rows are means, the delta is paired by
// seed (its mean is the mean of the per-seed deltas), and a case where the two
// kernels' differing switches never ran gives identical paired runs, a delta of
// exactly 0 inside the noise, and names those switches.
func TestCompareSeeds(t *testing.T) {
	cases := []string{"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X", "thresh=1G/xfs-10dd-4k-8p-4096M-1024M:10-X"}
	opt := CompareOptions{Runtime: engine.Duration(30e9), Seeds: 3, Seed: 5}
	cmp, err := Compare(context.Background(), "ioless-full", "more_io_wait-5", cases, opt)
	require.NoError(t, err)
	require.Equal(t, 3, cmp.Seeds)
	// the same runs one by one
	var totB, totT [3]float64
	for i, c := range cases {
		r := cmp.Rows[i]
		var b, tt, d [3]float64
		for s := range 3 {
			for k, dst := range map[string]*float64{"ioless-full": &b[s], "more_io_wait-5": &tt[s]} {
				cfg, err := CompareConfig(c, k, CompareOptions{Runtime: opt.Runtime, Seed: 5 + uint64(s)})
				require.NoError(t, err)
				res, err := engine.Run(context.Background(), cfg)
				require.NoError(t, err)
				*dst = res.WriteBWMBps
			}
			d[s] = (tt[s] - b[s]) / b[s] * 100
			totB[s] += b[s]
			totT[s] += tt[s]
		}
		assert.InDelta(t, (b[0]+b[1]+b[2])/3, r.BaseMBps, 1e-9, c)
		assert.InDelta(t, (tt[0]+tt[1]+tt[2])/3, r.TestMBps, 1e-9, c)
		assert.InDelta(t, (d[0]+d[1]+d[2])/3, r.DeltaPct, 1e-9, c)
		assert.Equal(t, r.Delta.Mean, r.DeltaPct)
		assert.Equal(t, 3, r.Base.N)
		assert.LessOrEqual(t, r.Base.Min, r.Base.Mean)
		assert.GreaterOrEqual(t, r.Base.Max, r.Base.Mean)
	}
	ext4 := cmp.Rows[0]
	assert.Zero(t, ext4.DeltaPct, "no differing path ran on ext4 1dd: identical paired runs")
	assert.True(t, ext4.InNoise)
	assert.Contains(t, ext4.NeverRan, "more_io_wait")
	assert.Contains(t, cmp.Text(), "this change never ran in this case")
	assert.Contains(t, cmp.Text(), "~+0.0%")
	var dt [3]float64
	for s := range 3 {
		dt[s] = (totT[s] - totB[s]) / totB[s] * 100
	}
	assert.InDelta(t, (dt[0]+dt[1]+dt[2])/3, cmp.TotalDeltaPct, 1e-9)

	_, err = Compare(context.Background(), "ioless-full", "more_io_wait-5", cases[:1], CompareOptions{Seeds: engine.MaxSeeds + 1})
	assert.ErrorContains(t, err, "seeds: 101 out of range [1, 100]")
}

func TestRunSeeds(t *testing.T) {
	cfg, err := ConfigForCase("thresh=100M/btrfs-2dd-4k-8p-4096M-100M:10-X")
	require.NoError(t, err)
	cfg.Runtime = engine.Duration(20e9)
	cfg.Seed = 3
	sw, err := engine.RunSeeds(context.Background(), cfg, 4)
	require.NoError(t, err)
	assert.Equal(t, []uint64{3, 4, 5, 6}, sw.Seeds)
	require.Len(t, sw.Results, 4)
	for i, r := range sw.Results {
		assert.Equal(t, sw.Seeds[i], r.Seed)
	}
	assert.Equal(t, 4, sw.WriteBW.N)
	assert.Positive(t, sw.WriteBW.SD, "btrfs runs vary by seed")
	assert.Less(t, sw.WriteBW.CV(), 0.03)
	assert.Contains(t, sw.Text(), "4 seeds")
	_, err = engine.RunSeeds(context.Background(), cfg, -1)
	assert.ErrorContains(t, err, "seeds: -1 out of range")
}

func TestRunAllKeepsOrderAndStopsOnError(t *testing.T) {
	cfg, err := ConfigForCase("thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X")
	require.NoError(t, err)
	cfg.Runtime = engine.Duration(5e9)
	cfgs := engine.SeedConfigs(cfg, 5)
	res, err := engine.RunAll(context.Background(), cfgs)
	require.NoError(t, err)
	for i, r := range res {
		assert.Equal(t, cfgs[i].Seed, r.Seed)
	}
	cfgs[2].Disks[0].Workload.DD = 0
	_, err = engine.RunAll(context.Background(), cfgs)
	var re *engine.RunError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 2, re.Index)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = engine.RunAll(ctx, engine.SeedConfigs(cfg, 3))
	assert.ErrorIs(t, err, context.Canceled)
}

// TestCompareConfigDevice: --device gives every run of a comparison its disk (the
// Axboe 2009 cases on the X25-E), with the device's key overrides; a bad device is
// an error naming the field.
func TestCompareConfigDevice(t *testing.T) {
	tests := []struct {
		name, device, wantDev, wantErr string
		wantQD                         int
	}{
		{"default: the case's disk", "", engine.DefaultDevice, "", 0},
		{"a preset", "x25e", "x25e", "", 0},
		{"a preset with an override", "x25e,qd=4", "x25e", "", 4},
		{"unknown preset", "nope", "", `device: unknown preset "nope"`, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := CompareConfig("ext4-1dd-1M-4p-2048M-20:10-X", "2.6.30-rc6", CompareOptions{Device: tc.device})
			if tc.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantDev, cfg.Disks[0].Device.Name)
			if tc.wantQD > 0 {
				assert.Equal(t, tc.wantQD, cfg.Disks[0].Device.QueueDepth)
			}
		})
	}
}
