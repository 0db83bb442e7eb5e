package ui

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
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

// TestParseTraceLine: the parser takes what the kernel's trace format allows and
// refuses the rest.
func TestParseTraceLine(t *testing.T) {
	for _, tc := range []struct {
		line             string
		ok               bool
		task, event, ino string
		t                float64
	}{
		{"    flush-8:0-1001  [000]    12.600000: writeback_single_inode: bdi 8:0: ino=12 state=I_DIRTY_PAGES", true, "flush-8:0-1001", "writeback_single_inode", "12", 12.6},
		{"dd-7 [3] 1.5: balance_dirty_pages: bdi 8:0: dirty=10", true, "dd-7", "balance_dirty_pages", "", 1.5},
		{"kworker-2 [0] 0.25: ev: xino=4 ino=9", true, "kworker-2", "ev", "9", 0.25},
		{"kworker-2 [0] 0.25: ev: ino=x", true, "kworker-2", "ev", "", 0.25},
		{"# tracer: nop", false, "", "", "", 0},
		{"dd [0] 1.0: ev: x", false, "", "", "", 0},
		{"dd-x [0] 1.0: ev: x", false, "", "", "", 0},
		{"dd-1[0] 1.0: ev: x", false, "", "", "", 0},
		{"dd-1 [a] 1.0: ev: x", false, "", "", "", 0},
		{"dd-1 [0] 10: ev: x", false, "", "", "", 0},
		{"dd-1 [0] 1.0: ev:x", false, "", "", "", 0},
		{"dd-1 [0] 1.0: ev", false, "", "", "", 0},
	} {
		got, ok := parseTraceLine(tc.line)
		if assert.Equal(t, tc.ok, ok, tc.line) && ok {
			assert.Equal(t, TraceLine{T: tc.t, Task: tc.task, Event: tc.event, Ino: tc.ino, Text: tc.line}, got, tc.line)
		}
	}
}

// TestParseTraceMatchesTheFormat: on a real run's trace, the parser reads what the
// trace format's regular expression reads, line for line.
func TestParseTraceMatchesTheFormat(t *testing.T) {
	cfg := engine.DefaultConfig()
	cfg.Disks[0].Filesystem, cfg.Runtime, cfg.TraceLines = "xfs", engine.Duration(5e9), 20000
	res, err := engine.Run(t.Context(), cfg)
	require.NoError(t, err)
	var tr strings.Builder
	require.NoError(t, res.WriteTrace(&tr))
	lineRe := regexp.MustCompile(`^\s*(.+?)-(\d+)\s+\[\d+\]\s+(\d+\.\d+): ([^:]+): (.*)$`)
	inoRe := regexp.MustCompile(`\bino=(\d+)`)
	var want []TraceLine
	for _, l := range strings.Split(tr.String(), "\n") {
		m := lineRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		x := TraceLine{Task: m[1] + "-" + m[2], Event: m[4], Text: l}
		x.T, _ = strconv.ParseFloat(m[3], 64)
		if im := inoRe.FindStringSubmatch(m[5]); im != nil {
			x.Ino = im[1]
		}
		want = append(want, x)
	}
	require.Greater(t, len(want), 1000)
	assert.Equal(t, want, ParseTrace(tr.String()))
}
