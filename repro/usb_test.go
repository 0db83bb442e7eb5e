package repro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUSBStickStallRemedies: what the remedies do to the stick in the model —
// dirty_bytes=16M and strictlimit with max_ratio=1 keep the stick's dirty pages
// near its small limit, so the copier runs at the stick's speed and the final
// sync is short; max_ratio alone does not bind while the system stays below the
// free-run ceiling; per-bdi limits keep the editor's saves on the fast disk short
// on every kernel.
func TestUSBStickStallRemedies(t *testing.T) {
	e, err := LookupExperiment("usb-stick-stall")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	t.Log("\n" + r.Text)
	f := r.Figures
	base := "6_1."
	for _, remedy := range []string{"6_1_dirty_bytes_16M.", "6_1_strict+max_ratio_1."} {
		assert.Less(t, f[remedy+"sync_s"], f[base+"sync_s"]/10, remedy)
		assert.Less(t, f[remedy+"stick_dirty_MB"], 32.0, remedy)
		assert.Greater(t, f[remedy+"copier_exit_s"], 2*f[base+"copier_exit_s"], remedy+": the copier waits for the stick")
	}
	assert.Greater(t, f["6_1_stick_max_ratio_1.stick_dirty_MB"], 300.0, "max_ratio alone: below freerun nothing throttles")
	assert.Less(t, f["6_1_stick_max_ratio_1.stick_thresh_MB"], 8.0)
	for _, k := range []string{"2_6_30_pdflush.", "3_1_IO-full.", "3_2_IO-less.", "6_1."} {
		assert.InDelta(t, 8, f[k+"stick_MBps"], 1, k+"stick throughput")
		assert.Less(t, f[k+"editor_p99_ms"], 1000.0, k+"editor saves")
		assert.Positive(t, f[k+"sync_s"], k)
	}
}
