package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// dropped marks an event the wording's kernel does not have.
const dropped = "(dropped)"

// renderCases are events with the payloads wblab printed for them before the model
// emitted typed events (main@29264d2, whose kernel formatted each line inline):
// unless noted, each pair is the same event of one run made with trace_v66 off and
// on (wblab run --runtime 8s --trace ... --variants trace_v66=false|true), the
// case named in the comment. A wording change fails here.
var renderCases = []struct {
	name     string
	ev       tracepoint.Event
	v32, v66 string
}{
	// ext4-2dd-4k-8p-4096M-100M:10-X
	{"writeback_start", tracepoint.Work{TP: tracepoint.WritebackStart, Bdi: "8:0", NrPages: 9223372036854775807,
		RangeCyclic: true, Background: true, Reason: uint8(ReasonBackground)},
		"bdi 8:0: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background",
		"bdi 8:0: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background cgroup_ino=1"},
	{"writeback_written", tracepoint.Work{TP: tracepoint.WritebackWritten, Bdi: "8:0", NrPages: 9223372036854769207,
		RangeCyclic: true, Background: true, Reason: uint8(ReasonBackground)},
		"bdi 8:0: sb_dev 0:0 nr_pages=9223372036854769207 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background",
		"bdi 8:0: sb_dev 0:0 nr_pages=9223372036854769207 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background cgroup_ino=1"},
	// the other writeback_work_class events share writeback_start's TP_printk
	// (no run above queued a work item: sync, reclaim, pre-workqueue start_all)
	{"writeback_queue", tracepoint.Work{TP: tracepoint.WritebackQueue, Bdi: "8:16", NrPages: 9223372036854775807,
		SyncMode: 1, Reason: uint8(ReasonSync)},
		"bdi 8:16: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=1 kupdate=0 range_cyclic=0 background=0 reason=sync",
		"bdi 8:16: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=1 kupdate=0 range_cyclic=0 background=0 reason=sync cgroup_ino=1"},
	{"writeback_exec vmscan", tracepoint.Work{TP: tracepoint.WritebackExec, Bdi: "8:0", NrPages: 3000,
		Reason: uint8(ReasonTryToFreePages)},
		"bdi 8:0: sb_dev 0:0 nr_pages=3000 sync_mode=0 kupdate=0 range_cyclic=0 background=0 reason=try_to_free_pages",
		"bdi 8:0: sb_dev 0:0 nr_pages=3000 sync_mode=0 kupdate=0 range_cyclic=0 background=0 reason=vmscan cgroup_ino=1"},
	{"writeback_wait", tracepoint.Work{TP: tracepoint.WritebackWait, Bdi: "8:0", NrPages: 1024, Kupdate: true,
		RangeCyclic: true, Reason: uint8(ReasonPeriodic)},
		"bdi 8:0: sb_dev 0:0 nr_pages=1024 sync_mode=0 kupdate=1 range_cyclic=1 background=0 reason=periodic",
		"bdi 8:0: sb_dev 0:0 nr_pages=1024 sync_mode=0 kupdate=1 range_cyclic=1 background=0 reason=periodic cgroup_ino=1"},
	{"writeback_busyloop", tracepoint.Work{TP: tracepoint.WritebackBusyloop, Bdi: "8:0", NrPages: 1024,
		RangeCyclic: true, Background: true, Reason: uint8(ReasonBackground)},
		"bdi 8:0: sb_dev 0:0 nr_pages=1024 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background",
		"bdi 8:0: sb_dev 0:0 nr_pages=1024 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background cgroup_ino=1"},
	{"writeback_pages_written", tracepoint.PagesWritten{Pages: 0}, "0", "0"},
	{"writeback_wake_background", tracepoint.Bdi{TP: tracepoint.WritebackWakeBackground, Bdi: "8:0"},
		"bdi 8:0", "bdi 8:0: cgroup_ino=1"},
	// btrfs-2dd-4k-8p-4096M-100M:10-6.1: v6.6's delayed work has no wake-up event
	{"writeback_wake_thread", tracepoint.Bdi{TP: tracepoint.WritebackWakeThread, Bdi: "8:0"}, "bdi 8:0", dropped},
	{"writeback_queue_io", tracepoint.QueueIO{Bdi: "8:0", Older: 139, Age: 0, Moved: 0, Reason: uint8(ReasonBackground)},
		"bdi 8:0: older=139 age=0 enqueue=0 reason=background",
		"bdi 8:0: older=139 age=0 enqueue=0 reason=background cgroup_ino=1"},
	// kupdate before 30 s: older_than_this is negative; v3.2 prints it signed, v6.6 as %lu
	{"writeback_queue_io negative older", tracepoint.QueueIO{Bdi: "8:0", Older: -24998, Age: 30000, Reason: uint8(ReasonPeriodic)},
		"bdi 8:0: older=-24998 age=30000 enqueue=0 reason=periodic",
		"bdi 8:0: older=18446744073709526618 age=30000 enqueue=0 reason=periodic cgroup_ino=1"},
	{"global_dirty_state", tracepoint.GlobalDirty{Dirty: 9684, BgThresh: 12800, Thresh: 25600, Limit: 25600, Dirtied: 9684},
		"dirty=9684 writeback=0 unstable=0 bg_thresh=12800 thresh=25600 limit=25600 dirtied=9684 written=0",
		"dirty=9684 writeback=0 bg_thresh=12800 thresh=25600 limit=25600 dirtied=9684 written=0"},
	{"bdi_dirty_ratelimit", tracepoint.Ratelimit{Bdi: "8:0", WriteBW: 100464, AvgWriteBW: 102400, DirtyRate: 59700,
		DirtyRatelimit: 85672, TaskRatelimit: 26332, BalancedDirtyRatelimit: 45164},
		"bdi 8:0: write_bw=100464 awrite_bw=102400 dirty_rate=59700 dirty_ratelimit=85672 task_ratelimit=26332 balanced_dirty_ratelimit=45164",
		"bdi 8:0: write_bw=100464 awrite_bw=102400 dirty_rate=59700 dirty_ratelimit=85672 task_ratelimit=26332 balanced_dirty_ratelimit=45164 cgroup_ino=1"},
	// v3.1 (no period/think in the event): v6.6 prints them anyway
	{"balance_dirty_pages v3.1", tracepoint.Balance{Bdi: "8:0", Limit: 25600, Setpoint: 22400, Dirty: 25108,
		BdiSetpoint: 22399, BdiDirty: 25108, DirtyRatelimit: 92848, TaskRatelimit: 36084, Dirtied: 100,
		DirtiedPause: 256, Pause: 11},
		"bdi 8:0: limit=25600 setpoint=22400 dirty=25108 bdi_setpoint=22399 bdi_dirty=25108 dirty_ratelimit=92848 task_ratelimit=36084 dirtied=100 dirtied_pause=256 paused=0 pause=11",
		"bdi 8:0: limit=25600 setpoint=22400 dirty=25108 bdi_setpoint=22399 bdi_dirty=25108 dirty_ratelimit=92848 task_ratelimit=36084 dirtied=100 dirtied_pause=256 paused=0 pause=11 period=0 think=0 cgroup_ino=1"},
	// btrfs-2dd-4k-8p-4096M-100M:10-6.1 (v3.3+ period/think)
	{"balance_dirty_pages v6.1", tracepoint.Balance{Bdi: "8:0", Limit: 25600, Setpoint: 22400, Dirty: 25216,
		BdiSetpoint: 22399, BdiDirty: 25216, DirtyRatelimit: 102400, TaskRatelimit: 32300, Dirtied: 100,
		DirtiedPause: 250, Pause: 12, Period: 12, PeriodThink: true},
		"bdi 8:0: limit=25600 setpoint=22400 dirty=25216 bdi_setpoint=22399 bdi_dirty=25216 dirty_ratelimit=102400 task_ratelimit=32300 dirtied=100 dirtied_pause=250 paused=0 pause=12 period=12 think=0",
		"bdi 8:0: limit=25600 setpoint=22400 dirty=25216 bdi_setpoint=22399 bdi_dirty=25216 dirty_ratelimit=102400 task_ratelimit=32300 dirtied=100 dirtied_pause=250 paused=0 pause=12 period=12 think=0 cgroup_ino=1"},
	{"writeback_single_inode", tracepoint.SingleInode{TP: tracepoint.WritebackSingleInode, Bdi: "8:0", Ino: 12,
		State: uint64(IDirtyPages), Index: 13972, ToWrite: 4096, Wrote: 7548},
		"bdi 8:0: ino=12 state=I_DIRTY_PAGES dirtied_when=0 age=0 index=13972 to_write=4096 wrote=7548",
		"bdi 8:0: ino=12 state=I_DIRTY_PAGES dirtied_when=0 age=0 index=13972 to_write=4096 wrote=7548 cgroup_ino=1"},
	// ext3-2dd-4k-8p-4096M-8M:10-2.6.30-rc6: no bit set prints "state= "
	{"writeback_single_inode clean", tracepoint.SingleInode{TP: tracepoint.WritebackSingleInode, Bdi: "8:0", Ino: 12,
		DirtiedWhen: 8, ToWrite: 1536, Wrote: 8},
		"bdi 8:0: ino=12 state= dirtied_when=8 age=0 index=0 to_write=1536 wrote=8",
		"bdi 8:0: ino=12 state= dirtied_when=8 age=0 index=0 to_write=1536 wrote=8 cgroup_ino=1"},
	// samecheck's ext3-10dd-4k-8p-4096M-8M:10-2.6.30-rc6 trace (v3.2 only event)
	{"writeback_single_inode_requeue", tracepoint.SingleInode{TP: tracepoint.WritebackSingleInodeRequeue, Bdi: "8:0",
		Ino: 13, State: uint64(IDirtySync | IDirtyDatasync | ISync), DirtiedWhen: 21091, Index: 22535, ToWrite: 1536},
		"bdi 8:0: ino=13 state=I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_SYNC dirtied_when=21091 age=0 index=22535 to_write=1536 wrote=0",
		dropped},
	// btrfs-2dd-4k-8p-4096M-100M:10-6.1 (v6.6 only event)
	{"writeback_single_inode_start", tracepoint.SingleInode{TP: tracepoint.WritebackSingleInodeStart, Bdi: "8:0",
		Ino: 12, State: uint64(IDirtySync | IDirtyDatasync | ISync), Index: 6395, ToWrite: 4096},
		dropped,
		"bdi 8:0: ino=12 state=I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_SYNC dirtied_when=0 age=0 index=6395 to_write=4096 wrote=0 cgroup_ino=1"},
	// 6.1 with --disk nvme,fs=ext4,dd=2,editors=2 (v6.6 only events)
	{"writeback_write_inode_start", tracepoint.WriteInode{TP: tracepoint.WritebackWriteInodeStart, Bdi: "8:0", Ino: 12},
		dropped, "bdi 8:0: ino=12 sync_mode=0 cgroup_ino=1"},
	{"writeback_write_inode", tracepoint.WriteInode{TP: tracepoint.WritebackWriteInode, Bdi: "8:0", Ino: 12},
		dropped, "bdi 8:0: ino=12 sync_mode=0 cgroup_ino=1"},
	// no run printed one (v6 SbInodesISyncCheck with a WB_SYNC_NONE work meeting an
	// inode under I_SYNC); the v3.2 form is main's Sprintf, the v6.6 form its Formatter
	{"writeback_sb_inodes_requeue", tracepoint.SbInodesRequeue{Bdi: "8:0", Ino: 12, State: uint64(IDirtyPages | ISync),
		DirtiedWhen: 4295140, Age: 3},
		"bdi 8:0: ino=12 state=I_DIRTY_PAGES|I_SYNC dirtied_when=4295140 age=3",
		"bdi 8:0: ino=12 state=I_DIRTY_PAGES|I_SYNC dirtied_when=4295140 age=3 cgroup_ino=1"},
	// xfs-2dd-4k-8p-4096M-100M:10-2.6.36-rc1: towrt runs negative
	{"wbc_writepage", tracepoint.Writepage{Bdi: "8:0", NrToWrite: -98, Background: true, RangeCyclic: true,
		RangeEnd: 1<<63 - 1},
		"bdi 8:0: towrt=-98 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 start=0x0 end=0x7fffffffffffffff",
		"bdi 8:0: towrt=-98 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 start=0x0 end=0x7fffffffffffffff cgroup_ino=1"},
	// ext4-2dd-4k-8p-4096M-100M:10-X: the block events read the same in both wordings
	{"block_rq_issue", tracepoint.BlockRq{TP: tracepoint.BlockRqIssue, Dev: "8,0", RWBS: "W", Sector: 25600,
		NrSector: 1024, Comm: "flush-8:0"},
		"8,0 W 0 () 25600 + 1024 [flush-8:0]", "8,0 W 0 () 25600 + 1024 [flush-8:0]"},
	{"block_rq_complete", tracepoint.BlockRq{TP: tracepoint.BlockRqComplete, Dev: "8,0", RWBS: "W", Sector: 25600,
		NrSector: 1024},
		"8,0 W () 25600 + 1024 [0]", "8,0 W () 25600 + 1024 [0]"},
	{"block_sleeprq", tracepoint.Sleeprq{Dev: "8,0", RWBS: "W", Sector: 227328, NrSector: 2048, Comm: "flush-8:0"},
		"8,0 W 227328 + 2048 [flush-8:0]", "8,0 W 227328 + 2048 [flush-8:0]"},
	// btrfs-2dd-4k-8p-4096M-100M:10-6.1
	{"wbt_step", tracepoint.WbtScaleStep{Dev: "8:0", Msg: "scale up", Step: -1, Window: 100000, Bg: 6, Normal: 12, Max: 23},
		"8:0: scale up: step=-1, window=100000us, background=6, normal=12, max=23",
		"8:0: scale up: step=-1, window=100000us, background=6, normal=12, max=23"},
	{"wbt_timer", tracepoint.WbtTimerTick{Dev: "8:0", Status: 3, Step: -1, Inflight: 12},
		"8:0: status=3, step=-1, inflight=12", "8:0: status=3, step=-1, inflight=12"},
	// no run printed these (they need reads over the latency target); the text is
	// main's Sprintf in devices/wbt.go
	{"wbt_stat", tracepoint.WbtStats{Dev: "8:16", RMean: 2100000, RMin: 80000, RMax: 9000000, RSamples: 7,
		WMean: 400000, WMin: 1000, WMax: 3000000, WSamples: 120},
		"8:16: rmean=2100000, rmin=80000, rmax=9000000, rsamples=7, wmean=400000, wmin=1000, wmax=3000000, wsamples=120",
		"8:16: rmean=2100000, rmin=80000, rmax=9000000, rsamples=7, wmean=400000, wmin=1000, wmax=3000000, wsamples=120"},
	{"wbt_lat", tracepoint.WbtLatency{Dev: "8:0", Lat: 75123}, "8:0: latency 75123us", "8:0: latency 75123us"},
}

// TestRenderBothWordings: every event renders as main printed it, in both wordings.
func TestRenderBothWordings(t *testing.T) {
	for _, tc := range renderCases {
		for _, w := range []struct {
			f    Format
			want string
		}{{V32, tc.v32}, {V66, tc.v66}} {
			t.Run(tc.name+"/"+w.f.String(), func(t *testing.T) {
				f := NewFormatter(w.f)
				got, ok := f.Payload(tc.ev)
				if w.want == dropped {
					assert.False(t, ok, "the %s kernel has no %s", w.f, tc.ev.Tracepoint())
					return
				}
				require.True(t, ok)
				assert.Equal(t, w.want, got)
			})
		}
	}
}

// TestRenderCoversEveryTracepoint: renderCases holds every tracepoint the model emits.
func TestRenderCoversEveryTracepoint(t *testing.T) {
	seen := map[tracepoint.Point]bool{}
	for _, tc := range renderCases {
		seen[tc.ev.Tracepoint()] = true
		assert.True(t, strings.HasPrefix(tc.name, tc.ev.Tracepoint().String()), "%s renders %s", tc.name, tc.ev.Tracepoint())
	}
	n := 0
	for p := tracepoint.Point(0); !strings.HasPrefix(p.String(), "Point("); p++ {
		assert.True(t, seen[p], "no render case for %s", p)
		n++
	}
	assert.Equal(t, 27, n, "tracepoints")
}

// TestPrinterLines: the Printer's whole lines, as main's trace files have them (a nil
// task is interrupt context, "<idle>-0 [000]").
func TestPrinterLines(t *testing.T) {
	dd := &sim.Task{Comm: "dd", PID: 1012, CPU: 7}
	tests := []struct {
		name string
		f    Format
		now  sim.Time
		task *sim.Task
		ev   tracepoint.Event
		want string
	}{
		{"task context", V32, 21189714 * sim.Microsecond, dd,
			tracepoint.SingleInode{TP: tracepoint.WritebackSingleInodeRequeue, Bdi: "8:0", Ino: 13,
				State: uint64(IDirtySync | IDirtyDatasync | ISync), DirtiedWhen: 21091, Index: 22535, ToWrite: 1536},
			"              dd-1012  [007]    21.189714: writeback_single_inode_requeue: bdi 8:0: ino=13 state=I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_SYNC dirtied_when=21091 age=0 index=22535 to_write=1536 wrote=0"},
		{"interrupt context", V32, 33264 * sim.Microsecond, nil,
			tracepoint.BlockRq{TP: tracepoint.BlockRqComplete, Dev: "8,0", RWBS: "W", Sector: 16384, NrSector: 1024},
			"          <idle>-0     [000]     0.033264: block_rq_complete: 8,0 W () 16384 + 1024 [0]"},
		{"timer context v6.6", V66, 124978 * sim.Microsecond, nil,
			tracepoint.WbtTimerTick{Dev: "8:0", Status: 3, Inflight: 14},
			"          <idle>-0     [000]     0.124978: wbt_timer: 8:0: status=3, step=0, inflight=14"},
		{"a task off its CPU prints cpu 0", V66, sim.Second, &sim.Task{Comm: "flush-8:0", PID: 1001, CPU: -1},
			tracepoint.Bdi{TP: tracepoint.WritebackWakeBackground, Bdi: "8:0"},
			"       flush-8:0-1001  [000]     1.000000: writeback_wake_background: bdi 8:0: cgroup_ino=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(4)
			NewPrinter(tt.f, b).Emit(tt.now, tt.task, tt.ev)
			assert.Equal(t, []string{tt.want}, b.Lines())
		})
	}
	// an event the wording lacks prints nothing
	b := New(4)
	NewPrinter(V66, b).Emit(sim.Second, nil, tracepoint.Bdi{TP: tracepoint.WritebackWakeThread, Bdi: "8:0"})
	assert.Zero(t, b.Len())
}

// TestFunc: Func hands each rendered event to its function with the task.
func TestFunc(t *testing.T) {
	var got []string
	dd := &sim.Task{Comm: "dd"}
	tr := Func(V32, func(task *sim.Task, event, payload string) {
		got = append(got, task.Comm+" "+event+": "+payload)
	})
	tr.Emit(sim.Second, dd, tracepoint.PagesWritten{Pages: 42})
	tr.Emit(sim.Second, dd, tracepoint.WriteInode{TP: tracepoint.WritebackWriteInode, Bdi: "8:0"}) // v6.6 only
	assert.Equal(t, []string{"dd writeback_pages_written: 42"}, got)
}
