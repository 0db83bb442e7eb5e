package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// TestControlAndNotFired: a control (the same kernel twice, other seeds) differs
// only by the machine variation; a pair whose results are identical on a row with
// a >= 3 % thread delta is reported unless the test names why.
func TestControlAndNotFired(t *testing.T) {
	cases := []string{"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X"}
	opt := CompareOptions{Runtime: engine.Duration(10e9)}
	ctl, err := Control(context.Background(), "ioless-full", cases, opt)
	require.NoError(t, err)
	require.Len(t, ctl.Rows, 1)
	assert.Equal(t, ctl.Base, ctl.Test)
	assert.NotEqual(t, ctl.Rows[0].BaseMBps, ctl.Rows[0].TestMBps, "other seeds: the machine variation shows")
	assert.Less(t, ctl.Rows[0].DeltaPct*ctl.Rows[0].DeltaPct, 25.0, "a control's delta is small")

	same := &Comparison{Base: "a", Test: "b", Rows: []CompareRow{
		{Case: "c1", BaseMBps: 50, TestMBps: 50, ThreadDeltaPct: 3.5},
		{Case: "c2", BaseMBps: 50, TestMBps: 50, ThreadDeltaPct: -4},
		{Case: "c3", BaseMBps: 50, TestMBps: 50, ThreadDeltaPct: 1.2},
		{Case: "c4", BaseMBps: 50, TestMBps: 51, ThreadDeltaPct: 5},
	}}
	errs := NotFired(same, map[string]string{"c2": "one superblock, never unmounted"})
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "c1")

	r := CompareRow{DeltaPct: 2}
	assert.True(t, BeyondControl(r, CompareRow{DeltaPct: 0.5}))
	assert.False(t, BeyondControl(r, CompareRow{DeltaPct: 2.5}))
}
