package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const traceSample = `# tracer: nop
              dd-1023  [001]    12.500100: balance_dirty_pages: bdi 8:0: limit=25600 setpoint=19200 dirty=19000 paused=10
    flush-8:0-1001  [000]    12.600000: writeback_single_inode: bdi 8:0: ino=12 state=I_DIRTY_PAGES age=12 index=100 to_write=1024 wrote=1024
    flush-8:0-1001  [000]    13.000000: writeback_single_inode: bdi 8:0: ino=13 state=I_DIRTY_PAGES age=12 index=100 to_write=1024 wrote=512
`

func TestParseTraceAndFilter(t *testing.T) {
	ls := ParseTrace(traceSample)
	require.Len(t, ls, 3)
	assert.Equal(t, TraceLine{T: 12.6, Task: "flush-8:0-1001", Event: "writeback_single_inode", Ino: "12", Text: ls[1].Text}, ls[1])
	assert.Equal(t, "dd-1023", ls[0].Task)
	for _, tc := range []struct {
		f    TraceFilter
		want int
	}{
		{TraceFilter{}, 3},
		{TraceFilter{Event: "writeback_single_inode"}, 2},
		{TraceFilter{Task: "dd-1023"}, 1},
		{TraceFilter{Ino: "13"}, 1},
		{TraceFilter{Search: "WROTE=512"}, 1},
		{TraceFilter{Event: "balance_dirty_pages", Ino: "12"}, 0},
	} {
		n := 0
		for _, l := range ls {
			if tc.f.Match(l) {
				n++
			}
		}
		assert.Equal(t, tc.want, n, "%+v", tc.f)
	}
}
