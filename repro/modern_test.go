package repro

import (
	"context"
	"github.com/wblab/wblab/engine"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModernWBTWholeRun: a 6.1 run on the Wu 2011 disk with a dd and a reader, on
// XFS (on ext4 a commit's locked transaction holds the flusher's next handle, so
// its queue runs shallower and wbt scales down less in 20 s).
// The preset sets the device's block layer (blk-mq, 1280 KiB requests, plug 32 /
// 128 KiB) and blk-wbt with the v6 limits; reads over the latency target scale wbt
// down past max_depth 2, where v6 keeps normal = max and background = 1 (v4.10
// had normal = (max+1)/2 = 1 at max 2; devices' unit tests cover both rules).
func TestModernWBTWholeRun(t *testing.T) {
	for _, tc := range []struct {
		kernel     string
		wantNormal func(max float64) float64
	}{
		{"6.1", func(max float64) float64 { return max }},
	} {
		t.Run(tc.kernel, func(t *testing.T) {
			cfg := engine.DefaultConfig()
			cfg.Kernel = tc.kernel
			cfg.Disks[0].Filesystem = "xfs"
			cfg.Disks[0].Workload = engine.Workload{DD: 1, BS: 4096, Readers: 1}
			cfg.Runtime = engine.Duration(20e9)
			cfg.SampleInterval = engine.Duration(10e6)
			cfg.CheckInvariants = true
			m, err := engine.Build(cfg, engine.BuildOptions{})
			require.NoError(t, err)
			spec, blk := m.Disks()[0].Queue.Spec(), m.Disks()[0].Queue.Block()
			if tc.kernel == "6.1" {
				assert.True(t, blk.BlkMQ && blk.WBT && blk.WBTV6 && !blk.WBTDraft)
				assert.Equal(t, []int{1280, 32, 128 << 10, 62}, []int{blk.MaxSectorsKB, blk.PlugCount, int(blk.PlugBytes), blk.NrRequests})
				assert.Equal(t, "deadline", spec.Elevator, "cfq is gone: mq-deadline")
			}
			r, err := engine.Run(context.Background(), cfg)
			require.NoError(t, err)
			mx, _ := r.Series.Column("wbt_max")
			nm, _ := r.Series.Column("wbt_normal")
			bg, _ := r.Series.Column("wbt_background")
			low := 0
			for i := range mx {
				if mx[i] <= 2 && mx[i] > 0 {
					low++
					require.Equal(t, tc.wantNormal(mx[i]), nm[i], "normal at max %v (sample %d)", mx[i], i)
					require.Equal(t, 1.0, bg[i], "background at max %v", mx[i])
				}
			}
			assert.Positive(t, low, "wbt scaled down to max_depth <= 2 (reads over the latency target)")
			t.Logf("%s: %d samples at max_depth <= 2, final step %d, %d scale events; reads p99 %.0f ms",
				tc.kernel, low, r.WBT.FinalStep, r.WBT.Scales, r.Reads.P99Ms)
		})
	}
}

func TestModernVs2011Quick(t *testing.T) {
	e, err := LookupExperiment("modern-vs-2011")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	for _, k := range []string{"total_2011_MBps", "total_61_MBps", "100M_ext4_1dd_2011_MBps", "100M_ext4_1dd_61_MBps",
		"100M_xfs_10dd_delta_pct"} {
		require.Contains(t, r.Figures, k)
	}
	assert.Positive(t, r.Figures["total_61_MBps"])
	// wbt holds the 6.1 device queue near its limit of 16; the 2011 legacy queue
	// runs ~100 deep (NCQ 31 plus the elevator)
	assert.Less(t, r.Figures["100M_ext4_1dd_61_avgqu"], 20.0)
	assert.Greater(t, r.Figures["100M_ext4_1dd_2011_avgqu"], 60.0)
	assert.Contains(t, r.Text, "3.1.0-rc9-ioless-full-next-20111014+  6.1+")
	assert.Contains(t, r.Text, "TOTAL write_bw")
	assert.InDelta(t, 0, r.Figures["100M_ext4_1dd_delta_pct"], 5, "ext4 1dd: write_bw within ±5 % across the kernels")
	t.Log(r.Text)
}

func TestCaseKey(t *testing.T) {
	assert.Equal(t, "100M_ext4_10dd", caseKey("thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X"))
	assert.Equal(t, "1G_xfs_1dd", caseKey("thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-X"))
}
