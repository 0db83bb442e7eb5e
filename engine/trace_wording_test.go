package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

// TestTraceWordingSwitch: the trace_v66 switch picks the wording of the one tracer
// Build installs, for the kernel's events and the queue's alike (kernel-notes §6.3).
func TestTraceWordingSwitch(t *testing.T) {
	for _, v66 := range []bool{false, true} {
		c, err := harness.ConfigForCase("thresh=100M/btrfs-2dd-4k-8p-4096M-100M:10-6.1")
		require.NoError(t, err)
		c.Runtime = engine.Duration(2 * time.Second)
		c.TraceLines = 100000
		c.Variants = map[string]bool{"trace_v66": v66}
		r, err := engine.RunWith(context.Background(), c, engine.RunOptions{})
		require.NoError(t, err)
		byEvent := map[string][]string{}
		for _, l := range r.Trace {
			i := strings.Index(l, "]")
			f := strings.SplitN(l[i+1:], ": ", 3)
			require.Len(t, f, 3, l)
			byEvent[f[1]] = append(byEvent[f[1]], f[2])
		}
		require.NotEmpty(t, byEvent["global_dirty_state"])
		require.NotEmpty(t, byEvent["block_rq_issue"])
		require.NotEmpty(t, byEvent["writeback_wake_background"])
		if v66 {
			assert.NotContains(t, byEvent["global_dirty_state"][0], "unstable=")
			assert.Equal(t, "bdi 8:0: cgroup_ino=1", byEvent["writeback_wake_background"][0])
			assert.NotEmpty(t, byEvent["writeback_single_inode_start"])
		} else {
			assert.Contains(t, byEvent["global_dirty_state"][0], " unstable=0 ")
			assert.Equal(t, "bdi 8:0", byEvent["writeback_wake_background"][0])
			assert.Empty(t, byEvent["writeback_single_inode_start"])
		}
		assert.Regexp(t, `^8,0 W 0 \(\) \d+ \+ \d+ \[\S+\]$`, byEvent["block_rq_issue"][0])
	}
}
