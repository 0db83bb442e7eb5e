package repro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUSBStickStallRemedies: what page reclaim and the remedies do in the model.
// On the kernels before 3.14 (dirtyable memory counts the applications' memory
// with swap on) the stick's dirty and writeback pages fill the page cache, and
// the reader's and editor's page allocations sleep in direct reclaim: the
// reader's p99 and the fast disk's throughput suffer. With 1.5 GiB more page
// cache, or on 6.1 and 6.12 (no anon in dirtyable memory), nothing sleeps. On 2.6.30 the
// stick's dirty pages stay below the background threshold, and the stick writes
// far below its speed while the copy runs. dirty_bytes=16M and
// strictlimit with max_ratio=1 keep the stick's dirty pages small, so the copier
// runs at the stick's speed and the final sync is short; max_ratio alone does not
// bind below the free-run ceiling.
func TestUSBStickStallRemedies(t *testing.T) {
	e, err := LookupExperiment("usb-stick-stall")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	t.Log("\n" + r.Text)
	f := r.Figures
	roomy := "3_2_apps_2_GiB."
	for _, k := range []string{"2_6_30_pdflush.", "3_1_IO-full.", "3_2_IO-less."} {
		assert.Greater(t, f[k+"reclaim_sleep_s"], 10.0, k+"direct reclaim sleeps")
		assert.Greater(t, f[k+"reader_p99_ms"], 5*f[roomy+"reader_p99_ms"], k+"reader stalls")
		assert.Less(t, f[k+"fast_MBps"], 0.7*f[roomy+"fast_MBps"], k+"fast disk slowed")
	}
	for _, k := range []string{roomy, "6_1.", "6_12.", "3_2_dirty_bytes_16M."} {
		assert.Zero(t, f[k+"reclaim_sleep_s"], k)
	}
	assert.Equal(t, f["3_2_IO-less.stick_dirty_MB"], f["3_2_stick_max_ratio_1.stick_dirty_MB"],
		"3.2 max_ratio: below freerun nothing throttles")
	for _, remedy := range []string{"6_1_dirty_bytes_16M.", "6_1+6_2_knobs_strict+max_ratio_1.", "6_1+6_2_knobs_strict+max_bytes_16M.", "3_2_dirty_bytes_16M.",
		"6_12_stick_strict+max_bytes_16M."} {
		assert.Less(t, f[remedy+"sync_s"], 2.5, remedy)
		assert.Less(t, f[remedy+"stick_dirty_MB"], 32.0, remedy)
		assert.Greater(t, f[remedy+"copier_exit_s"], 100.0, remedy+": the copier waits for the stick")
	}
	assert.Less(t, f["6_1_stick_max_ratio_1.stick_thresh_MB"], 8.0)
	for _, k := range []string{"3_1_IO-full.", "3_2_IO-less.", "6_1."} {
		assert.InDelta(t, 8, f[k+"stick_MBps"], 1, k+"stick throughput")
	}
	// 2.6.30: the stick's dirty pages stay below the background threshold, so only
	// wb_kupdate's 30 s-old pages reach it (pdflush's nonblocking passes stop at a
	// congested queue): it runs below the stick's rate that 3.1+ keep it at
	assert.Less(t, f["2_6_30_pdflush.stick_MBps"], 0.85*f["3_1_IO-full.stick_MBps"])
	assert.Less(t, f["2_6_30_pdflush.stick_dirty_MB"], f["2_6_30_pdflush.bg_thresh_MB"])
	for _, k := range []string{"2_6_30_pdflush.", "3_1_IO-full.", "3_2_IO-less.", "6_1."} {
		assert.Positive(t, f[k+"sync_s"], k)
	}
}
