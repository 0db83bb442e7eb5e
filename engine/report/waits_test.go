package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// EditorLine prints the percentiles and the causes by share, largest first; the
// journal is jbd on ext3.
func TestEditorLine(t *testing.T) {
	e := LatencyResult{N: 58, P50Ms: 12.1, P90Ms: 40, P99Ms: 210, MaxMs: 380, TimeIn: []WaitShare{
		{Cause: "cpu", SharePct: 1}, {Cause: "journal_commit", SharePct: 61, TotalMs: 61},
		{Cause: "page_writeback", SharePct: 22, TotalMs: 22}, {Cause: "request_alloc", SharePct: 9, TotalMs: 9}}}
	tests := []struct {
		name, fs string
		e        LatencyResult
		want     string
	}{
		{"ext4", "ext4", e, "editor on 8:0: 58 saves, p50 12.1 ms, p90 40.0 ms, p99 210.0 ms, max 380.0 ms; " +
			"time in: jbd2 commit 61 %, page writeback 22 %, request allocation 9 %, running 1 %"},
		{"ext3", "ext3", LatencyResult{N: 1, P50Ms: 5, P99Ms: 5, MaxMs: 5, TimeIn: []WaitShare{{Cause: "journal_commit", SharePct: 100, TotalMs: 5}}},
			"editor on 8:0: 1 saves, p50 5.0 ms, p99 5.0 ms, max 5.0 ms; time in: jbd commit 100 %"},
		{"no saves, one in flight", "xfs", LatencyResult{InFlightMs: 900},
			"editor on 8:0: 0 saves, p50 0.0 ms, p99 0.0 ms, max 0.0 ms; one in flight for 900.0 ms"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, EditorLine("8:0", tc.fs, tc.e))
		})
	}
}
