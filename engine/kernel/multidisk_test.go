package kernel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// twoDisks builds a kernel with a fast and a slow disk (generic fs on both), one
// unlimited dd on each, invariants checked after every event.
func twoDisks(t *testing.T, preset string, slowBps int64, knobs kernel.BdiKnobs) (*kernel.Kernel, *sim.World) {
	t.Helper()
	p, err := kernel.LookupPreset(preset)
	require.NoError(t, err)
	// the sysfs knobs of 6.2 (strict_limit, max_bytes) on the 6.1 preset
	if knobs.StrictLimit || knobs.MaxBytes > 0 {
		p.Variants, _ = kernel.Overrides{"bdi_knobs_v62": true}.Apply(p.Variants)
	}
	w := sim.NewWorld(1000, 1)
	fast, err := devices.Preset("simple")
	require.NoError(t, err)
	slow := fast
	slow.Name, slow.BandwidthBps = "slow", slowBps
	q0, err := devices.New(w, fast, devices.LegacyBlock(fast, 512))
	require.NoError(t, err)
	q1, err := devices.New(w, slow, devices.LegacyBlock(slow, 512))
	require.NoError(t, err)
	f0, _ := fs.New("generic")
	f1, _ := fs.New("generic")
	k, err := kernel.New(w, kernel.Params{CPUs: 4, MemoryMB: 4096, Sysctls: kernel.Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
		DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: kernel.DefaultCosts(), Variants: p.Variants})
	require.NoError(t, err)
	_, err = k.AddDisk("8:0", q0, f0, kernel.DefaultBdiKnobs())
	require.NoError(t, err)
	b1, err := k.AddDisk("8:16", q1, f1, knobs)
	require.NoError(t, err)
	workload.NewDDOn(k, k.BDI, 4096, 0, false).Start(0)
	workload.NewDDOn(k, b1, 4096, 0, false).Start(0)
	var failure error
	w.AfterEvent = func() {
		if failure == nil {
			failure = k.CheckInvariants()
		}
	}
	t.Cleanup(func() { require.NoError(t, failure) })
	return k, w
}

// TestWriteoutFractionFollowsBandwidth: with a 60 MiB/s and a 6 MiB/s disk each
// written by one dd, each bdi's share of the dirty limit follows its share of
// recent completions, on the 3.2 (prop_local_percpu) and 6.1 (fprop) kernels.
func TestWriteoutFractionFollowsBandwidth(t *testing.T) {
	for _, preset := range []string{kernel.DefaultPreset, "6.1"} {
		t.Run(preset, func(t *testing.T) {
			k, w := twoDisks(t, preset, 6<<20, kernel.DefaultBdiKnobs())
			require.NoError(t, w.Run(60*sim.Second))
			bdis := k.BDIs()
			_, thresh, _, _ := k.DirtyLimits()
			fastT, slowT := k.BdiThresh(bdis[0]), k.BdiThresh(bdis[1])
			t.Logf("thresh %d: fast bdi_thresh %d, slow %d; written %d / %d", thresh, fastT, slowT,
				bdis[0].Stats.Written, bdis[1].Stats.Written)
			assert.LessOrEqual(t, fastT+slowT, thresh, "the shares never exceed the limit")
			assert.Greater(t, fastT, 3*slowT, "the fast disk completes ~10x more: its share is larger")
			assert.Positive(t, slowT, "the slow disk keeps a share")
			w0 := float64(bdis[0].Stats.Written) / float64(bdis[0].Stats.Written+bdis[1].Stats.Written)
			assert.InDelta(t, w0, float64(fastT)/float64(thresh), 0.15, "share ≈ recent completion share")
		})
	}
}

// TestMaxRatioCapsTheSlowDisk: a 20 MiB/s disk next to a 60 MiB/s one earns a
// quarter of the limit; max_ratio=5 caps its bdi_thresh at 5 % and its writer is
// throttled to hold fewer dirty pages; min_ratio reserves a share whatever the
// completions.
func TestMaxRatioCapsTheSlowDisk(t *testing.T) {
	run := func(knobs kernel.BdiKnobs) (thresh, bdiThresh, dirty int64) {
		k, w := twoDisks(t, kernel.DefaultPreset, 20<<20, knobs)
		require.NoError(t, w.Run(60*sim.Second))
		slow := k.BDIs()[1]
		_, thresh, _, _ = k.DirtyLimits()
		return thresh, k.BdiThresh(slow), slow.Stats.Reclaimable
	}
	thresh, freeT, freeD := run(kernel.DefaultBdiKnobs())
	_, capT, capD := run(kernel.BdiKnobs{MaxRatio: 5})
	t.Logf("slow disk: bdi_thresh %d -> %d with max_ratio=5, dirty %d -> %d (thresh %d)", freeT, capT, freeD, capD, thresh)
	assert.Greater(t, freeT, thresh*10/100, "uncapped, the slow disk earns more than 10 %")
	assert.LessOrEqual(t, capT, thresh*5/100)
	assert.Less(t, capD, freeD, "the capped disk holds fewer dirty pages")

	_, minT, _ := run(kernel.BdiKnobs{MinRatio: 40, MaxRatio: 100})
	assert.GreaterOrEqual(t, minT, thresh*40/100, "min_ratio share is kept")
}

// TestStrictLimitThrottlesBelowFreerun: on 6.1, strictlimit keeps the slow disk
// under its own threshold even though the system is far below the global free-run
// ceiling (dirty_bytes 1 GB, so only the bdi limit can throttle).
func TestStrictLimitThrottlesBelowFreerun(t *testing.T) {
	run := func(strict bool) (bdiDirty, bdiThresh int64) {
		k, w := twoDisks(t, "6.1", 2<<20, kernel.BdiKnobs{MaxRatio: 100, StrictLimit: strict})
		require.NoError(t, w.Run(30*sim.Second))
		slow := k.BDIs()[1]
		return slow.Stats.Reclaimable + slow.Stats.Writeback, k.BdiThresh(slow)
	}
	loose, _ := run(false)
	strict, th := run(true)
	t.Logf("slow disk dirty+writeback: %d without strictlimit, %d with (bdi_thresh %d)", loose, strict, th)
	assert.Less(t, strict, loose, "strictlimit throttles the slow disk's writer earlier")
	assert.LessOrEqual(t, strict, th+th/4+64, "and keeps it near its own threshold")
}

// TestStrictLimitNeedsTheCap: the knobs are refused on kernels without them,
// naming the field: strictlimit needs BDI_CAP_STRICTLIMIT (3.12) and the 6.2
// sysfs knob, min_bytes/max_bytes the 6.2 knobs.
func TestStrictLimitNeedsTheCap(t *testing.T) {
	p, err := kernel.LookupPreset("2.6.30-rc6")
	require.NoError(t, err)
	v61, err := kernel.LookupPreset("6.1")
	require.NoError(t, err)
	v62, err := kernel.Overrides{"bdi_knobs_v62": true}.Apply(v61.Variants)
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		knobs kernel.BdiKnobs
		v     kernel.Variants
		err   string
	}{
		{"2.6.30 strictlimit", kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true}, p.Variants, "bdi.strictlimit: this kernel has no BDI_CAP_STRICTLIMIT"},
		{"6.1 strictlimit: FUSE only", kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true}, v61.Variants, "bdi.strictlimit: before Linux 6.2"},
		{"6.1 max_bytes", kernel.BdiKnobs{MaxRatio: 100, MaxBytes: 16 << 20}, v61.Variants, "bdi.max_bytes: this kernel has no max_bytes knob (Linux 6.2+"},
		{"6.1 min_bytes", kernel.BdiKnobs{MaxRatio: 100, MinBytes: 16 << 20}, v61.Variants, "bdi.min_bytes"},
		{"max_ratio 0", kernel.BdiKnobs{MaxRatio: 0}, p.Variants, "bdi.max_ratio"},
		{"min above max", kernel.BdiKnobs{MinRatio: 60, MaxRatio: 50}, p.Variants, "bdi.min_ratio"},
		{"6.2 knobs", kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true, MaxBytes: 16 << 20}, v62, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.knobs.Validate(tc.v)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestMaxBytes: 6.2's max_bytes becomes a max_ratio in parts per million of the
// dirty threshold when it is set: 16 MiB of a 100 MiB threshold caps the slow
// disk's bdi_thresh at 16 MiB; more than the dirtyable memory is refused.
func TestMaxBytes(t *testing.T) {
	k, _ := twoDisks(t, "6.1", 2<<20, kernel.BdiKnobs{MaxRatio: 100, MaxBytes: 16 << 20})
	slow := k.BDIs()[1]
	assert.LessOrEqual(t, k.BdiThresh(slow), int64(16<<20)/kernel.PageSize)
	_, err := k.AddDisk("8:32", slow.Q, slow.FS, kernel.BdiKnobs{MaxRatio: 100, MaxBytes: 1 << 40})
	require.ErrorContains(t, err, "bdi.max_bytes")
}

// TestPdflushServesEveryDisk: 2.6.30's shared pdflush pool writes both
// superblocks (writeback_inodes' walk), and the per-bdi kernel has one flusher per
// disk doing its own.
func TestPdflushServesEveryDisk(t *testing.T) {
	for _, preset := range []string{"2.6.30-rc6", "2.6.30-rc6+per-bdi"} {
		t.Run(preset, func(t *testing.T) {
			k, w := twoDisks(t, preset, 20<<20, kernel.DefaultBdiKnobs())
			require.NoError(t, w.Run(30*sim.Second))
			for _, b := range k.BDIs() {
				assert.Positive(t, b.Stats.Written, "bdi %s written", b.Name)
				if preset == "2.6.30-rc6" {
					continue
				}
				assert.Positive(t, b.Flusher().Thread().Stats.PagesSubmitted, "flush-%s wrote its own disk", b.Name)
			}
			if preset == "2.6.30-rc6" {
				var sub int64
				for _, th := range k.Pdflush() {
					sub += th.Stats.PagesSubmitted
				}
				assert.Positive(t, sub, "pdflush threads wrote")
			}
		})
	}
}
