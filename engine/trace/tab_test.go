package trace

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// emitOne formats one line through a fresh buffer.
func emitOne(now sim.Time, comm string, event, payload string) string {
	b := New(1)
	b.Emit(now, comm, 4321, 2, event, payload)
	return b.Lines()[0]
}

func TestTabColumns(t *testing.T) {
	v32 := NewFormatter(V32)
	v66 := NewFormatter(V66)
	now := 159*sim.Second + 775867*sim.Microsecond
	ts := 159.775867
	gds := tracepoint.GlobalDirty{Dirty: 2, Writeback: 3, Unstable: 4, BgThresh: 5, Thresh: 6, Limit: 7, Dirtied: 8, Written: 9}
	bdp := tracepoint.Balance{Bdi: "8:0", Limit: 2, Setpoint: 3, Dirty: 4, BdiSetpoint: 5, BdiDirty: 6,
		DirtyRatelimit: 7, TaskRatelimit: 8, Dirtied: 9, DirtiedPause: 10, Paused: 11, Pause: 12, Period: 13, Think: 14}
	bdp33 := bdp
	bdp33.PeriodThink = true // v3.3+
	tests := []struct {
		name    string
		comm    string
		event   string
		payload string
		want    []float64 // harness columns 1..n
	}{
		// §5.4: columns 2-9 are dirty..written in the v3.2 wording.
		{"global_dirty_state v3.2", "dd", tracepoint.GlobalDirtyState.String(), v32.GlobalDirtyState(gds),
			[]float64{ts, 2, 3, 4, 5, 6, 7, 8, 9}},
		// v6.6 drops unstable=, so every later column moves left by one (§6.3).
		{"global_dirty_state v6.6", "dd", tracepoint.GlobalDirtyState.String(), v66.GlobalDirtyState(gds),
			[]float64{ts, 2, 3, 5, 6, 7, 8, 9}},
		// §5.4 column map: 2 limit, 3 setpoint, 4 dirty, 5 bdi_setpoint, 6 bdi_dirty,
		// 7 dirty_ratelimit, 8 task_ratelimit, 9 dirtied, 10 dirtied_pause, 11 paused,
		// 12 pause, 13 period, 14 think.
		{"balance_dirty_pages v3.3", "dd", tracepoint.BalanceDirtyPages.String(), v32.BalanceDirtyPages(bdp33),
			[]float64{ts, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}},
		{"balance_dirty_pages v3.2", "dd", tracepoint.BalanceDirtyPages.String(), v32.BalanceDirtyPages(bdp),
			[]float64{ts, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{"balance_dirty_pages v6.6", "dd", tracepoint.BalanceDirtyPages.String(), v66.BalanceDirtyPages(bdp),
			[]float64{ts, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 1}},
		{"balance_dirty_pages btrfs bdi", "dd", tracepoint.BalanceDirtyPages.String(), func() string {
			p := bdp33
			p.Bdi = "btrfs-1"
			return v32.BalanceDirtyPages(p)
		}(), []float64{ts, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}},
		{"bdi_dirty_ratelimit", "flush-8:0", tracepoint.BdiDirtyRatelimit.String(), v32.BdiDirtyRatelimit(tracepoint.Ratelimit{Bdi: "8:0",
			WriteBW: 2, AvgWriteBW: 3, DirtyRate: 4, DirtyRatelimit: 5, TaskRatelimit: 6, BalancedDirtyRatelimit: 7}),
			[]float64{ts, 2, 3, 4, 5, 6, 7}},
		// §5.4: 2 ino, state stripped, 4 age, 6 to_write, 7 wrote (3 dirtied_when, 5 index).
		{"writeback_single_inode", "flush-8:0", tracepoint.WritebackSingleInode.String(), v32.SingleInode(tracepoint.SingleInode{Bdi: "8:0",
			Ino: 2, State: uint64(IDirtyPages | ISync), DirtiedWhen: 3, Age: 4, Index: 5, ToWrite: 6, Wrote: 7}),
			[]float64{ts, 2, 3, 4, 5, 6, 7}},
		{"writeback_single_inode empty state", "flush-8:0", tracepoint.WritebackSingleInode.String(), v32.SingleInode(tracepoint.SingleInode{Bdi: "8:0",
			Ino: 2, DirtiedWhen: 3, Age: 4, Index: 5, ToWrite: 6, Wrote: 7}),
			[]float64{ts, 2, 3, 4, 5, 6, 7}},
		// writeback_start: "sb_dev 8:1" yields two columns; reason is stripped.
		{"writeback_start", "flush-8:0", tracepoint.WritebackStart.String(), v32.Work(tracepoint.Work{Bdi: "8:0", SbMajor: 8, SbMinor: 1,
			NrPages: 1024, RangeCyclic: true, Background: true, Reason: uint8(ReasonBackground)}),
			[]float64{ts, 8, 1, 1024, 0, 0, 1, 1}},
		{"writeback_queue_io negative age", "flush-8:0", tracepoint.WritebackQueueIO.String(), v32.QueueIO(tracepoint.QueueIO{Bdi: "8:0", Older: 0, Age: -1, Moved: 4, Reason: uint8(ReasonBackground)}),
			[]float64{ts, 0, -1, 4}},
		{"writeback_pages_written", "flush-8:0", tracepoint.WritebackPagesWritten.String(), v32.PagesWritten(1024),
			[]float64{ts, 1024}},
		{"writeback_congestion_wait", "dd", "writeback_congestion_wait", v32.CongestionWait(100000, 4000),
			[]float64{ts, 100000, 4000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := emitOne(now, tt.comm, tt.event, tt.payload)
			got, ok := Tab(line, tt.event)
			require.True(t, ok, line)
			assert.InDeltaSlice(t, tt.want, got, 1e-9, line)
			assert.Len(t, got, len(tt.want), line)
		})
	}
}

func TestTabMatching(t *testing.T) {
	f := NewFormatter(V32)
	inode := tracepoint.SingleInode{Bdi: "8:0", Ino: 2, DirtiedWhen: 3, Age: 4, Index: 5, ToWrite: 6, Wrote: 7}
	requeue := emitOne(sim.Second, "flush-8:0", tracepoint.WritebackSingleInodeRequeue.String(), f.SingleInode(inode))
	tests := []struct {
		name  string
		line  string
		event string
		ok    bool
		want  []float64
	}{
		{"other event", requeue, tracepoint.GlobalDirtyState.String(), false, nil},
		{"event name is not a prefix match", requeue, tracepoint.WritebackSingleInode.String(), false, nil},
		{"exact event", requeue, tracepoint.WritebackSingleInodeRequeue.String(), true, []float64{1, 2, 3, 4, 5, 6, 7}},
		{"trailing newline", requeue + "\n", tracepoint.WritebackSingleInodeRequeue.String(), true, []float64{1, 2, 3, 4, 5, 6, 7}},
		// Newer kernels' irq-flags column: the harness regex only needs "<time>: <event>: ".
		{"irq flags column", "              dd-3853  [004] ....   159.775867: global_dirty_state: dirty=1 writeback=2 unstable=0 bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7",
			tracepoint.GlobalDirtyState.String(), true, []float64{159.775867, 1, 2, 0, 3, 4, 5, 6, 7}},
		// Only the first "bdi X" is removed: the private bdi_dirty_state event of §5.4.
		{"bdi_dirty_state from the notes", "dd-3853  [004]   159.775867: bdi_dirty_state: bdi 8:64: reclaimable=27052 writeback=1 thresh=2 dirtied=3 written=4",
			"bdi_dirty_state", true, []float64{159.775867, 27052, 1, 2, 3, 4}},
		{"no timestamp before event", "global_dirty_state: dirty=1", tracepoint.GlobalDirtyState.String(), false, nil},
		{"non-numeric field", "1.5: ev: a - b . c 7", "ev", true, []float64{1.5, math.NaN(), math.NaN(), 7}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Tab(tt.line, tt.event)
			require.Equal(t, tt.ok, ok)
			require.Len(t, got, len(tt.want))
			for i := range tt.want {
				if math.IsNaN(tt.want[i]) {
					assert.True(t, math.IsNaN(got[i]), "column %d", i+1)
				} else {
					assert.InDelta(t, tt.want[i], got[i], 1e-9, "column %d", i+1)
				}
			}
		})
	}
}

func TestSedBdi(t *testing.T) {
	tests := []struct{ in, want string }{
		{"1: e: bdi 8:0: x=1", "1: e:  x=1"},
		{"1: e: bdi btrfs-1: x=1", "1: e:  x=1"},
		{"1: e: bdi_setpoint=3 bdi 8:0", "1: e: bdi_setpoint=3 "},
		{"1: e: bdi  bdi 8:0 y", "1: e: bdi   y"}, // "bdi " + blank is no match; the next one is
		{"1: e: bdi ", "1: e: bdi "},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sedBdi(tt.in), tt.in)
	}
}
