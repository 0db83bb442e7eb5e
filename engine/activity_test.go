package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/harness"
)

// TestV6SwitchesRun: every switch the 6.1 preset sets differently from the v3.2
// baseline, and that has counted paths, counts a run in at least one of three 6.1
// machines (ext4 2dd under dirty_ratio 20; a fast and a slow disk; the slow one
// with strictlimit; the two disks with page reclaim, applications holding 3.5 GiB),
// unless notHere names why its path cannot fire in them.
func TestV6SwitchesRun(t *testing.T) {
	notHere := map[string]string{
		"sb_inodes_i_sync_check":    "needs a second writer of the inode (fsync while the flusher writes it); these runs have none",
		"wrote_minus_skipped":       "needs pages_skipped: ext4 never skips a page here (XFS's ILOCK trylock does)",
		"xfs_write_inode_flush":     "XFS's ->write_inode: these runs are ext4 (fs TestXfsWriteInodePinAndFlushLock covers it)",
		"xfs_fsync_log_force":       "XFS's fsync: these runs are ext4 with no fsync (fs TestFsyncBesideBulkWriter covers it)",
		"jbd2_complete_transaction": "ext4's fsync: these runs have no fsync (fs TestFsyncBesideBulkWriter covers it)",
		"xfs_iomap_write":           "XFS's buffered write: these runs are ext4 (fs TestXfsIomapWrite covers it)",
	}
	ratio, err := harness.ConfigForCase("ext4-2dd-4k-8p-4096M-20:10-6.1")
	require.NoError(t, err)
	ratio.Runtime = engine.Duration(20 * time.Second)
	two := twoDiskConfig(t)
	strict := twoDiskConfig(t)
	strict.Disks[0].BDI.StrictLimit = true
	strict.Variants = kernel.Overrides{"bdi_knobs_v62": true}
	reclaim := twoDiskConfig(t)
	reclaim.Reclaim = &engine.ReclaimConfig{AnonMB: 3584, Swap: true}
	ran := map[string]int64{}
	for _, cfg := range []engine.Config{ratio, two, strict, reclaim} {
		r, err := engine.Run(context.Background(), cfg)
		require.NoError(t, err)
		for name, n := range r.SwitchActivity {
			ran[name] += n
		}
	}
	v6, err := kernel.LookupPreset("6.1")
	require.NoError(t, err)
	base, err := kernel.LookupPreset(kernel.DefaultPreset)
	require.NoError(t, err)
	for _, sw := range kernel.Switches {
		a, _ := v6.Variants.Get(sw.Name)
		b, _ := base.Variants.Get(sw.Name)
		if a == b {
			continue
		}
		if _, uncounted := kernel.UncountedSwitches[sw.Name]; uncounted {
			continue
		}
		t.Run(sw.Name, func(t *testing.T) {
			var paths []string
			var n int64
			for _, p := range kernel.ActivityPaths() {
				for _, s := range p.Switches {
					if s == sw.Name {
						paths = append(paths, p.Name)
						n += ran[p.Name]
					}
				}
			}
			if why, ok := notHere[sw.Name]; ok {
				assert.Zero(t, n, "%s ran in %v: drop it from notHere", sw.Name, paths)
				t.Skipf("%s: %s", sw.Name, why)
			}
			assert.Positive(t, n, "none of %v ran", paths)
		})
	}
}

// TestPresetsNameDeclaredSwitches: the switches presets name (the filesystems',
// declared in engine/fs after the kernel package's presets) are all declared once
// engine is linked, and each is on in some preset.
func TestPresetsNameDeclaredSwitches(t *testing.T) {
	assert.Empty(t, kernel.UndeclaredPresetSwitches())
	for _, name := range []string{"ext4_writeback_bump", "xfs_write_inode_flush"} {
		some := false
		for _, p := range kernel.Presets() {
			on, ok := p.Variants.Get(name)
			require.True(t, ok, name)
			some = some || on
		}
		assert.True(t, some, "no preset has %s", name)
	}
}

// TestEverySwitchCounted: every declared switch (the kernel's and engine/fs's)
// decides at least one counted path, or its declaration says why it has none
// (Switch.Uncounted), not both, so NeverRan's "this change never ran" can be
// said of every counted switch; and the switches' page order keys are distinct.
func TestEverySwitchCounted(t *testing.T) {
	counted := map[string][]string{}
	for _, p := range kernel.ActivityPaths() {
		for _, s := range p.Switches {
			counted[s] = append(counted[s], p.Name)
		}
	}
	order := map[int]string{}
	for _, sw := range kernel.Switches {
		t.Run(sw.Name, func(t *testing.T) {
			assert.NotContains(t, order, sw.Order, "order key of %s", order[sw.Order])
			order[sw.Order] = sw.Name
			if sw.Uncounted != "" {
				assert.Empty(t, counted[sw.Name], "declared uncounted but counted by %v", counted[sw.Name])
				return
			}
			assert.NotEmpty(t, counted[sw.Name], "no counted path and no Uncounted reason")
		})
	}
}
