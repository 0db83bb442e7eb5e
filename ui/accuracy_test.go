package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wblab/wblab/ui/wire"
)

// TestAccuracyLines: a disk card gets one line per covered figure, one line when
// none is covered, none without an answer.
func TestAccuracyLines(t *testing.T) {
	n := &wire.AccuracyNotes{Kernel: "6.1", Disks: []wire.DiskAccuracy{
		{WriteRate: "real 6.1 within ±27 % in 4 QEMU references", BdiThresh: wire.NoCover, EditorP99: "real 6.1 within ±97 % in 3 QEMU references"},
		{WriteRate: wire.NoCover, BdiThresh: wire.NoCover},
	}}
	assert.Equal(t, []DiskLine{
		{Label: "write rate vs real 6.1", A: "real 6.1 within ±27 % in 4 QEMU references"},
		{Label: "bdi_thresh vs real 6.1", A: wire.NoCover},
		{Label: "editor p99 vs real 6.1", A: "real 6.1 within ±97 % in 3 QEMU references"},
	}, AccuracyLines(n, 0))
	assert.Equal(t, []DiskLine{{Label: "vs real 6.1", A: wire.NoCover}}, AccuracyLines(n, 1))
	assert.Nil(t, AccuracyLines(n, 2))
	assert.Nil(t, AccuracyLines(nil, 0))
	cards := withAccuracy([]DiskCard{{ID: "disk-card-1"}}, n)
	assert.Len(t, cards[0].Lines, 3)
}
