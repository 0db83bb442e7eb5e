package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestActivityPathsNameRealSwitches: every path names switches of the registry,
// and the names are unique.
func TestActivityPathsNameRealSwitches(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range ActivityPaths() {
		assert.False(t, seen[p.Name], "duplicate path %s", p.Name)
		seen[p.Name] = true
		assert.NotEmpty(t, p.Doc, p.Name)
		for _, s := range p.Switches {
			_, ok := Variants{}.Get(s)
			assert.True(t, ok, "%s names %q, not a switch", p.Name, s)
		}
	}
}

func TestNeverRan(t *testing.T) {
	base, err := LookupPreset("ioless-full")
	require.NoError(t, err)
	test, err := LookupPreset("more_io_wait-5")
	require.NoError(t, err)
	zero := map[string]int64{}
	tests := []struct {
		name       string
		actA, actB map[string]int64
		want       []string
	}{
		// patches 1-4: more_io_wait, write_inode_requeue_wait, last_active_progress,
		// kupdate_retry_early
		{"nothing ran", zero, zero, []string{"kupdate_retry_early", "last_active_progress", "more_io_wait", "write_inode_requeue_wait"}},
		{"one path in one run", zero, map[string]int64{"requeue_io_wait.inode_dirty": 3},
			[]string{"kupdate_retry_early", "last_active_progress"}},
		{"a path in the base run counts too", map[string]int64{"kupdate.retry_early": 1, "last_active.progress_differs": 2,
			"wb_writeback.more_io_wait_only": 1, "write_inode_failed": 1}, zero, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NeverRan(base.Variants, test.Variants, tc.actA, tc.actB))
		})
	}
	assert.Empty(t, NeverRan(base.Variants, base.Variants, zero, zero), "same kernel: no differing switch")
}

// TestV6DecisionsCountWhereTheSettingsDiffer: the v6 formula switches count a
// decision when the two settings give different values, whichever the kernel has.
func TestV6DecisionsCountWhereTheSettingsDiffer(t *testing.T) {
	tests := []struct {
		name string
		v6   bool
		call func(k *Kernel)
		id   PathID
		want int64
	}{
		{"dirty_exceeded: bdi over, global under (v3.2 yes, v6 no)", false,
			func(k *Kernel) { k.dirtyExceeded(k.BDI, 10, 5, 1, 100) }, pathDirtyExceededDiffers, 1},
		{"dirty_exceeded: same from v6", true,
			func(k *Kernel) { k.dirtyExceeded(k.BDI, 10, 5, 1, 100) }, pathDirtyExceededDiffers, 1},
		{"dirty_exceeded: both over", true,
			func(k *Kernel) { k.dirtyExceeded(k.BDI, 10, 5, 200, 100) }, pathDirtyExceededDiffers, 0},
		{"dirty_exceeded: neither over", false,
			func(k *Kernel) { k.dirtyExceeded(k.BDI, 1, 5, 1, 100) }, pathDirtyExceededDiffers, 0},
		{"max pause: large pool, the two rules differ", false,
			func(k *Kernel) { k.bdiMaxPause(k.BDI, 22400) }, pathMaxPauseDiffers, 1},
		{"max pause: from v6", true,
			func(k *Kernel) { k.bdiMaxPause(k.BDI, 22400) }, pathMaxPauseDiffers, 1},
		{"max pause: both at MAX_PAUSE (dirty ratelimit 2^10 below write_bw)", true, func(k *Kernel) {
			k.BDI.DirtyRatelimit = k.BDI.AvgWriteBandwidth >> 10
			k.bdiMaxPause(k.BDI, 1<<40)
		}, pathMaxPauseDiffers, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k, _ := newTestKernel(t, func(p *Params) {
				p.Variants.Set(swDirtyExceededV6, tc.v6)
				p.Variants.Set(swWbMaxPause, tc.v6)
			})
			k.BDI.AvgWriteBandwidth, k.BDI.DirtyRatelimit = 25600, 25600 // 100 MB/s
			before := k.act.n[tc.id]
			tc.call(k)
			assert.Equal(t, tc.want, k.act.n[tc.id]-before)
		})
	}
}
