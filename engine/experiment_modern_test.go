package engine

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestModernWBTWholeRun: a 6.1 run on the Wu 2011 disk with a dd and a reader.
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
			cfg := DefaultConfig()
			cfg.Kernel = tc.kernel
			cfg.Filesystem = "ext4"
			cfg.Workload = Workload{DD: 1, BS: 4096, Readers: 1}
			cfg.Runtime = Duration(20e9)
			cfg.SampleInterval = Duration(10e6)
			cfg.CheckInvariants = true
			s, err := newSimulation(cfg)
			require.NoError(t, err)
			spec := s.q.Spec()
			if tc.kernel == "6.1" {
				assert.True(t, spec.BlkMQ && spec.WBT && spec.WBTV6 && !spec.WBTDraft)
				assert.Equal(t, []int{1280, 32, 128 << 10, 62}, []int{spec.MaxSectorsKB, spec.PlugCount, int(spec.PlugBytes), spec.NrRequests})
				assert.Equal(t, "deadline", spec.Elevator, "cfq is gone: mq-deadline")
			}
			r, err := Run(context.Background(), cfg)
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
