package engine

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDetail(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(*Config)
	}{
		{"10dd generic", func(c *Config) { c.Disks[0].Workload.DD = 10 }},
		{"2dd ext4", func(c *Config) { c.Disks[0].Workload.DD, c.Disks[0].Filesystem = 2, "ext4" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Runtime = Duration(30 * time.Second)
			tc.cfg(&cfg)
			plain, err := Run(t.Context(), cfg)
			require.NoError(t, err)
			cfg.Detail = true
			res, err := Run(t.Context(), cfg)
			require.NoError(t, err)
			d := res.Detail
			require.NotNil(t, d)
			assert.Nil(t, plain.Detail)
			assert.Equal(t, plain.WriteBWMBps, res.WriteBWMBps, "recording must not change the run")
			rows := len(res.Series.Data[0])
			assert.Len(t, d.TimeS, rows)
			assert.Len(t, d.Inodes, cfg.Disks[0].Workload.DD)
			assert.Len(t, d.Tasks, cfg.Disks[0].Workload.DD)
			onIO, pauses := 0, int64(0)
			for _, in := range d.Inodes {
				assert.Len(t, in.Lists, rows)
				assert.Len(t, in.Visited, rows)
				assert.Len(t, in.DirtyMB, rows)
				for _, c := range in.Visited {
					if c != '0' && c != '1' {
						onIO++
					}
				}
			}
			assert.Positive(t, onIO, "some inode visits b_io or b_more_io")
			var dirtied float64
			for i, tk := range d.Tasks {
				assert.Len(t, tk.RateMBps, rows)
				for _, n := range tk.PauseHist {
					pauses += n
				}
				for j := 1; j < rows; j++ {
					dirtied += tk.RateMBps[j] * (d.TimeS[j] - d.TimeS[j-1])
				}
				assert.Equal(t, res.Tasks[i].PID, tk.PID)
			}
			var want int64
			for _, tk := range res.Tasks {
				want += tk.Pauses
			}
			assert.Equal(t, want, pauses, "the histograms count every pause")
			assert.InDelta(t, res.DirtiedMB, dirtied+d.Tasks[0].RateMBps[0]*d.TimeS[0]*float64(len(d.Tasks)), res.DirtiedMB*0.05)
			// the oldest dirty data is younger than the inode's dirtied_when age for dd
			// that never ends (its inode is never clean)
			assert.Positive(t, res.DirtyAge.MaxDataS)
			assert.Less(t, res.DirtyAge.MaxDataS, res.DirtyAge.MaxS)
		})
	}
}
