package tracepoint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPointNames(t *testing.T) {
	tests := []struct {
		p    Point
		want string
	}{
		{WritebackQueue, "writeback_queue"},
		{WritebackBusyloop, "writeback_busyloop"},
		{WritebackSingleInodeRequeue, "writeback_single_inode_requeue"},
		{WbcWritepage, "wbc_writepage"},
		{BlockSleeprq, "block_sleeprq"},
		{WbtTimer, "wbt_timer"},
		{nPoints, "Point(27)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.p.String())
	}
	// each event type reports its own tracepoint or the one it was given
	assert.Equal(t, GlobalDirtyState, GlobalDirty{}.Tracepoint())
	assert.Equal(t, WritebackWait, Work{TP: WritebackWait}.Tracepoint())
	assert.Equal(t, BlockRqComplete, BlockRq{TP: BlockRqComplete}.Tracepoint())
}
