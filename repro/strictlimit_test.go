package repro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrictlimitIdle: after 60 s idle beside a busy HDD the stick's writeout
// fraction has decayed, so its bdi_thresh is near 0 when the copy starts (6.1 and
// 6.12 alike: neither has 6.13's strictlimit floor); with strict_limit the
// copier is throttled against that share from its first write, so it sleeps
// longer pauses and gets less through in its first seconds than without the
// knob. 6.12's strict_limit and 6.1's with the 6.2 knobs are the same mechanism.
func TestStrictlimitIdle(t *testing.T) {
	e, err := LookupExperiment("strictlimit-idle")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	t.Log("\n" + r.Text)
	f := r.Figures
	for _, k := range []string{"6_12_strict_limit.", "6_1+6_2_knobs_strict_limit."} {
		assert.Less(t, f[k+"thresh_MB"], 1.0, k+"share decayed while idle")
		assert.Greater(t, f[k+"max_pause_ms"], 2*f["6_12_no_strict_limit.max_pause_ms"], k+"pauses against the wb's own limit")
		assert.Less(t, f[k+"first5_MB"], f["6_12_no_strict_limit.first5_MB"], k+"less through in the first 5 s")
		assert.Greater(t, f[k+"thresh5_MB"], f[k+"thresh_MB"], k+"the share grows with the stick's completions")
	}
	for _, n := range []string{"thresh_MB", "first5_MB", "max_pause_ms", "copy_s"} {
		assert.Equal(t, f["6_1+6_2_knobs_strict_limit."+n], f["6_12_strict_limit."+n], n)
	}
}
