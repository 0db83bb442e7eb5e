package harness

import (
	"context"
	"testing"

	"github.com/wblab/wblab/engine"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSweepShape: on the seeky wu2011-hdd, ext4 with 10 writers loses write_bw when
// the dirty threshold shrinks (smaller per-inode chunks, more switches between
// files, each a seek), and one writer does not.
func TestSweepShape(t *testing.T) {
	sw, err := RunSweep(context.Background(), SweepOptions{Filesystems: []string{"ext4"},
		ThresholdsMB: []int64{8, 100}, Writers: []int{1, 10}, Runtime: engine.Duration(60 * time.Second)})
	require.NoError(t, err)
	require.Len(t, sw.Cells, 4)
	get := func(th int64, dd int) SweepCell {
		c, ok := sw.Cell("ext4", th, dd)
		require.True(t, ok)
		return c
	}
	small, big := get(8, 10), get(100, 10)
	t.Logf("10dd: 8M %.1f MB/s (%.1f seeks/s), 100M %.1f MB/s (%.1f seeks/s)", small.WriteBWMBps, small.SeeksS, big.WriteBWMBps, big.SeeksS)
	assert.Less(t, small.WriteBWMBps, 0.95*big.WriteBWMBps)
	assert.Greater(t, small.SeeksS, big.SeeksS)
	assert.InEpsilon(t, get(100, 1).WriteBWMBps, get(8, 1).WriteBWMBps, 0.03, "one writer streams at any threshold")
	assert.Contains(t, sw.Text(), "10dd")
}

func TestSweepConfigsRejectBadInput(t *testing.T) {
	_, _, err := SweepConfigs(SweepOptions{Filesystems: []string{"nope"}})
	assert.ErrorContains(t, err, "not a filesystem")
	_, _, err = SweepConfigs(SweepOptions{Kernel: "9.9"})
	assert.Error(t, err)
	cfgs, cells, err := SweepConfigs(SweepOptions{})
	require.NoError(t, err)
	assert.Len(t, cfgs, len(SweepFilesystems)*len(SweepThresholdsMB)*len(SweepWriters))
	assert.Equal(t, len(cfgs), len(cells))
	assert.Equal(t, "thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", sweepCase("xfs", 1024, 100))
}
