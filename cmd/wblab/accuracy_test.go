package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/validate"
)

// TestAccuracyNotes: the run summary's notes come from the accuracy table beside
// the figures it covers, say where no reference covers a figure, and stay out of
// other kernels' summaries.
func TestAccuracyNotes(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Kernel = validate.Kernel
	cfg.Disks[0].Filesystem = "ext4"
	cfg.Disks[0].Workload.Editors = 1
	cfg.Runtime = engine.Duration(5 * time.Second)
	res, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	var sum strings.Builder
	require.NoError(t, res.WriteSummary(&sum))
	table := validate.AccuracyTable{Kernel: validate.Kernel, Rows: []validate.AccuracyRow{
		{Kind: validate.KindDiskRate, Figures: 5, Runs: 4, MaxErrPct: 26.5},
		{Kind: validate.KindEditorP99, Figures: 4, Runs: 3, MaxErrPct: 96.8},
		{Kind: validate.KindWriterOne, Figures: 4, Runs: 4, MaxErrPct: 12.1},
	}}
	out := accuracyNotes(sum.String(), cfg, res, table)
	for _, want := range []string{
		"(write rate: real 6.1 within ±27 % in 4 QEMU references; bdi_thresh: no QEMU reference covers this)",
		"(p50: no QEMU reference covers this; p99: real 6.1 within ±97 % in 3 QEMU references)",
		"(rate: real 6.1 within ±13 % in 4 QEMU references)",
	} {
		assert.Contains(t, out, want)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "disk ") {
			assert.Contains(t, lines[i+1], "write rate: real 6.1", "the note under the disk's line")
		}
	}
	assert.Contains(t, accuracyNotes(sum.String(), cfg, res, validate.AccuracyTable{}), "(no QEMU reference covers this)")

	cfg.Kernel = "6.12"
	assert.Equal(t, sum.String(), accuracyNotes(sum.String(), cfg, res, table), "no note for other kernels")

	// the committed table parses
	_, err = validate.Accuracy()
	require.NoError(t, err)
}
