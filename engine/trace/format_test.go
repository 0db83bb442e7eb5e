package trace

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

func TestPrefix(t *testing.T) {
	tests := []struct {
		name string
		now  sim.Time
		comm string
		pid  int
		cpu  int
		want string
	}{
		// kernel-notes §6.1, first harness example (leading padding restored: %16s).
		{"dd example", 159*sim.Second + 775867*sim.Microsecond, "dd", 3853, 4,
			"              dd-3853  [004]   159.775867: "},
		// kernel-notes §6.1 and the Chinner 2010 thread.
		{"flusher example", 1342952*sim.Second + 351608*sim.Microsecond, "flush-253:16", 8516, 7,
			"    flush-253:16-8516  [007] 1342952.351608: "},
		{"zero time", 0, "flush-8:0", 1, 0, "       flush-8:0-1     [000]     0.000000: "},
		{"6-digit pid", sim.Second, "dd", 123456, 12, "              dd-123456 [012]     1.000000: "},
		{"ns2usecs rounds up at 500ns", sim.Second + 499*sim.Microsecond + 500, "dd", 1, 1,
			"              dd-1     [001]     1.000500: "},
		{"ns2usecs rounds down below 500ns", sim.Second + 499*sim.Microsecond + 499, "dd", 1, 1,
			"              dd-1     [001]     1.000499: "},
		{"rounding carries into seconds", 2*sim.Second - 1, "dd", 1, 1,
			"              dd-1     [001]     2.000000: "},
		{"comm cut to TASK_COMM_LEN-1", 0, "a-very-long-command-name", 9, 3,
			" a-very-long-com-9     [003]     0.000000: "},
		{"negative cpu as printf %03d", 0, "dd", 5, -1, "              dd-5     [-01]     0.000000: "},
		{"negative time clamps to 0", -5, "dd", 5, 0, "              dd-5     [000]     0.000000: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, string(AppendPrefix(nil, tt.now, tt.comm, tt.pid, tt.cpu)))
			if tt.cpu >= 0 && tt.now >= 0 && len(tt.comm) < 16 {
				us := (int64(tt.now) + 500) / 1000
				assert.Equal(t, sprintfPrefix(tt.comm, tt.pid, tt.cpu, us/1e6, us%1e6), tt.want)
			}
		})
	}
}

// chinnerLines are the v2.6.36 wbc_writepage lines quoted in
// threads/chinner-2010-write_cache_pages-nr_to_write.txt. v2.6.36 printed
// "more=%d older=0x%lx" between cyclic= and start=; v3.2 dropped both fields, so the
// v3.2 form of each line is the quoted line without " more=0 older=0x0".
var chinnerLines = []struct {
	line  string
	now   sim.Time
	cpu   int
	towrt int64
}{
	{"flush-253:16-8516  [007] 1342952.351608: wbc_writepage: bdi 253:16: towrt=1024 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 more=0 older=0x0 start=0x0 end=0x0", 1342952351608 * sim.Microsecond, 7, 1024},
	{"flush-253:16-8516  [007] 1342952.351654: wbc_writepage: bdi 253:16: towrt=1023 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 more=0 older=0x0 start=0x0 end=0x0", 1342952351654 * sim.Microsecond, 7, 1023},
	{"flush-253:16-8516  [000] 1342952.369520: wbc_writepage: bdi 253:16: towrt=0 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 more=0 older=0x0 start=0x0 end=0x0", 1342952369520 * sim.Microsecond, 0, 0},
	{"flush-253:16-8516  [000] 1342952.369542: wbc_writepage: bdi 253:16: towrt=-1 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 more=0 older=0x0 start=0x0 end=0x0", 1342952369542 * sim.Microsecond, 0, -1},
	{"flush-253:16-8516  [000] 1342952.369549: wbc_writepage: bdi 253:16: towrt=-2 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 more=0 older=0x0 start=0x0 end=0x0", 1342952369549 * sim.Microsecond, 0, -2},
}

func TestChinnerWbcWritepage(t *testing.T) {
	b := New(10)
	f := NewFormatter(V32)
	for _, c := range chinnerLines {
		b.Emit(c.now, "flush-253:16", 8516, c.cpu, tracepoint.WbcWritepage.String(), f.WBC(tracepoint.Writepage{
			Bdi: "253:16", NrToWrite: c.towrt, Background: true, RangeCyclic: true,
		}))
	}
	lines := b.Lines()
	require.Len(t, lines, len(chinnerLines))
	for i, c := range chinnerLines {
		want := strings.Replace(c.line, " more=0 older=0x0", "", 1)
		assert.Equal(t, want, strings.TrimLeft(lines[i], " "))
		assert.Equal(t, "    ", lines[i][:4], "comm is right-aligned in 16 columns")

		// The harness reads ours and the original the same way up to end=.
		ours, ok := Tab(lines[i], tracepoint.WbcWritepage.String())
		require.True(t, ok)
		theirs, ok := Tab(c.line, tracepoint.WbcWritepage.String())
		require.True(t, ok)
		assert.Equal(t, float64(c.towrt), ours[1], "column 2 is towrt")
		assert.Equal(t, theirs[:8], ours[:8], "timestamp, towrt, skip, mode, kupd, bgrd, reclm, cyclic")
	}
}

func TestFormatV32(t *testing.T) {
	f := NewFormatter(V32)
	work := tracepoint.Work{Bdi: "8:16", SbMajor: 8, SbMinor: 17, NrPages: 1024, SyncMode: 0,
		Kupdate: false, RangeCyclic: true, Background: true, Reason: uint8(ReasonBackground)}
	inode := tracepoint.SingleInode{Bdi: "8:16", Ino: 12, State: uint64(IDirtyPages | ISync), DirtiedWhen: 4295140,
		Age: 3, Index: 262144, ToWrite: 1024, Wrote: 1024}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"writeback_work_class", f.Work(work),
			"bdi 8:16: sb_dev 8:17 nr_pages=1024 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background"},
		{"writeback_work_class sync", f.Work(tracepoint.Work{Bdi: "8:0", NrPages: math.MaxInt64, SyncMode: 1, Reason: uint8(ReasonSync)}),
			"bdi 8:0: sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=1 kupdate=0 range_cyclic=0 background=0 reason=sync"},
		{"writeback_work_class reclaim", f.Work(tracepoint.Work{Bdi: "8:0", NrPages: 3000, Reason: uint8(ReasonTryToFreePages)}),
			"bdi 8:0: sb_dev 0:0 nr_pages=3000 sync_mode=0 kupdate=0 range_cyclic=0 background=0 reason=try_to_free_pages"},
		{"writeback_pages_written", f.PagesWritten(4096), "4096"},
		{"writeback_class", f.Bdi("8:0"), "bdi 8:0"},
		{"writeback_bdi_register", f.BdiRegister("btrfs-1"), "bdi btrfs-1"},
		{"wbc_writepage", f.WBC(tracepoint.Writepage{Bdi: "8:0", NrToWrite: 1024, PagesSkipped: 2, SyncMode: 1,
			Kupdate: true, Reclaim: true, RangeCyclic: false, RangeStart: 4096, RangeEnd: math.MaxInt64}),
			"bdi 8:0: towrt=1024 skip=2 mode=1 kupd=1 bgrd=0 reclm=1 cyclic=0 start=0x1000 end=0x7fffffffffffffff"},
		{"wbc_writepage negative end as %lx", f.WBC(tracepoint.Writepage{Bdi: "8:0", RangeEnd: -1}),
			"bdi 8:0: towrt=0 skip=0 mode=0 kupd=0 bgrd=0 reclm=0 cyclic=0 start=0x0 end=0xffffffffffffffff"},
		{"writeback_queue_io kupdate", f.QueueIO(tracepoint.QueueIO{Bdi: "8:0", Older: 4294937296, Age: 30000, Moved: 3, Reason: uint8(ReasonPeriodic)}),
			"bdi 8:0: older=4294937296 age=30000 enqueue=3 reason=periodic"},
		{"writeback_queue_io no cutoff", f.QueueIO(tracepoint.QueueIO{Bdi: "8:0", Older: 0, Age: -1, Moved: 0, Reason: uint8(ReasonBackground)}),
			"bdi 8:0: older=0 age=-1 enqueue=0 reason=background"},
		{"global_dirty_state", f.GlobalDirtyState(tracepoint.GlobalDirty{Dirty: 19553, Writeback: 4480, Unstable: 0,
			BgThresh: 12800, Thresh: 25600, Limit: 25897, Dirtied: 1058745, Written: 1034712}),
			"dirty=19553 writeback=4480 unstable=0 bg_thresh=12800 thresh=25600 limit=25897 dirtied=1058745 written=1034712"},
		{"bdi_dirty_ratelimit", f.BdiDirtyRatelimit(tracepoint.Ratelimit{Bdi: "8:0", WriteBW: 97328, AvgWriteBW: 96944,
			DirtyRate: 98012, DirtyRatelimit: 9600, TaskRatelimit: 9420, BalancedDirtyRatelimit: 9511}),
			"bdi 8:0: write_bw=97328 awrite_bw=96944 dirty_rate=98012 dirty_ratelimit=9600 task_ratelimit=9420 balanced_dirty_ratelimit=9511"},
		{"balance_dirty_pages", f.BalanceDirtyPages(tracepoint.Balance{Bdi: "8:0", Limit: 25897, Setpoint: 22400,
			Dirty: 22517, BdiSetpoint: 2240, BdiDirty: 2290, DirtyRatelimit: 9600, TaskRatelimit: 9420,
			Dirtied: 32, DirtiedPause: 32, Paused: 0, Pause: 12, Period: 13, Think: 1}),
			"bdi 8:0: limit=25897 setpoint=22400 dirty=22517 bdi_setpoint=2240 bdi_dirty=2290 dirty_ratelimit=9600 task_ratelimit=9420 dirtied=32 dirtied_pause=32 paused=0 pause=12"},
		{"balance_dirty_pages negative pause", f.BalanceDirtyPages(tracepoint.Balance{Bdi: "8:0", Pause: -20}),
			"bdi 8:0: limit=0 setpoint=0 dirty=0 bdi_setpoint=0 bdi_dirty=0 dirty_ratelimit=0 task_ratelimit=0 dirtied=0 dirtied_pause=0 paused=0 pause=-20"},
		{"writeback_single_inode", f.SingleInode(inode),
			"bdi 8:16: ino=12 state=I_DIRTY_PAGES|I_SYNC dirtied_when=4295140 age=3 index=262144 to_write=1024 wrote=1024"},
		{"writeback_single_inode clean", f.SingleInode(tracepoint.SingleInode{Bdi: "8:0", Ino: 13, DirtiedWhen: 100, ToWrite: 1024}),
			"bdi 8:0: ino=13 state= dirtied_when=100 age=0 index=0 to_write=1024 wrote=0"},
		{"writeback_congestion_wait", f.CongestionWait(100000, 100123),
			"usec_timeout=100000 usec_delayed=100123"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
}

func TestFormatV32PeriodThink(t *testing.T) {
	f := NewFormatter(V32)
	got := f.BalanceDirtyPages(tracepoint.Balance{Bdi: "8:0", Limit: 25897, Setpoint: 22400,
		Dirty: 22517, BdiSetpoint: 2240, BdiDirty: 2290, DirtyRatelimit: 9600, TaskRatelimit: 9420,
		Dirtied: 32, DirtiedPause: 32, Paused: 0, Pause: 12, Period: 13, Think: -1, PeriodThink: true})
	assert.Equal(t, "bdi 8:0: limit=25897 setpoint=22400 dirty=22517 bdi_setpoint=2240 bdi_dirty=2290 dirty_ratelimit=9600 task_ratelimit=9420 dirtied=32 dirtied_pause=32 paused=0 pause=12 period=13 think=-1", got)
}

func TestFormatV66(t *testing.T) {
	f := NewFormatter(V66)
	g := &Formatter{Format: V66, CgroupIno: 4242}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"writeback_work_class", f.Work(tracepoint.Work{Bdi: "8:0", NrPages: 3000, Reason: uint8(ReasonVmscan)}),
			"bdi 8:0: sb_dev 0:0 nr_pages=3000 sync_mode=0 kupdate=0 range_cyclic=0 background=0 reason=vmscan cgroup_ino=1"},
		{"writeback_work_class cgroup", g.Work(tracepoint.Work{Bdi: "8:0", NrPages: 1, Reason: uint8(ReasonForeignFlush)}),
			"bdi 8:0: sb_dev 0:0 nr_pages=1 sync_mode=0 kupdate=0 range_cyclic=0 background=0 reason=foreign_flush cgroup_ino=4242"},
		{"writeback_pages_written", f.PagesWritten(7), "7"},
		{"writeback_class", f.Bdi("8:0"), "bdi 8:0: cgroup_ino=1"},
		{"writeback_bdi_register", f.BdiRegister("8:0"), "bdi 8:0"},
		{"wbc_writepage", f.WBC(tracepoint.Writepage{Bdi: "8:0", NrToWrite: 5, Background: true, RangeCyclic: true}),
			"bdi 8:0: towrt=5 skip=0 mode=0 kupd=0 bgrd=1 reclm=0 cyclic=1 start=0x0 end=0x0 cgroup_ino=1"},
		{"writeback_queue_io", f.QueueIO(tracepoint.QueueIO{Bdi: "8:0", Older: 4294937296, Age: 30000, Moved: 3, Reason: uint8(ReasonPeriodic)}),
			"bdi 8:0: older=4294937296 age=30000 enqueue=3 reason=periodic cgroup_ino=1"},
		{"global_dirty_state drops unstable", f.GlobalDirtyState(tracepoint.GlobalDirty{Dirty: 1, Writeback: 2, Unstable: 3,
			BgThresh: 4, Thresh: 5, Limit: 6, Dirtied: 7, Written: 8}),
			"dirty=1 writeback=2 bg_thresh=4 thresh=5 limit=6 dirtied=7 written=8"},
		{"bdi_dirty_ratelimit", f.BdiDirtyRatelimit(tracepoint.Ratelimit{Bdi: "8:0", WriteBW: 1, AvgWriteBW: 2,
			DirtyRate: 3, DirtyRatelimit: 4, TaskRatelimit: 5, BalancedDirtyRatelimit: 6}),
			"bdi 8:0: write_bw=1 awrite_bw=2 dirty_rate=3 dirty_ratelimit=4 task_ratelimit=5 balanced_dirty_ratelimit=6 cgroup_ino=1"},
		{"balance_dirty_pages", f.BalanceDirtyPages(tracepoint.Balance{Bdi: "8:0", Limit: 1, Setpoint: 2, Dirty: 3,
			BdiSetpoint: 4, BdiDirty: 5, DirtyRatelimit: 6, TaskRatelimit: 7, Dirtied: 8, DirtiedPause: 9,
			Paused: 10, Pause: 11, Period: 12, Think: 13}),
			"bdi 8:0: limit=1 setpoint=2 dirty=3 bdi_setpoint=4 bdi_dirty=5 dirty_ratelimit=6 task_ratelimit=7 dirtied=8 dirtied_pause=9 paused=10 pause=11 period=12 think=13 cgroup_ino=1"},
		{"writeback_single_inode", f.SingleInode(tracepoint.SingleInode{Bdi: "8:0", Ino: 12, State: uint64(IDirtyPages | IDirtyTime | ISync | IReferenced),
			DirtiedWhen: 4295140, Age: 3, Index: 8, ToWrite: 1024, Wrote: 512}),
			"bdi 8:0: ino=12 state=I_DIRTY_PAGES|I_SYNC|I_DIRTY_TIME|I_REFERENCED dirtied_when=4295140 age=3 index=8 to_write=1024 wrote=512 cgroup_ino=1"},
		{"writeback_sb_inodes_requeue", f.SbInodesRequeue(tracepoint.SbInodesRequeue{Bdi: "8:0", Ino: 12, State: uint64(IDirtyPages | ISync), DirtiedWhen: 4295140, Age: 3}),
			"bdi 8:0: ino=12 state=I_DIRTY_PAGES|I_SYNC dirtied_when=4295140 age=3 cgroup_ino=1"},
		{"writeback_write_inode", f.WriteInode(tracepoint.WriteInode{TP: tracepoint.WritebackWriteInode, Bdi: "8:0", Ino: 12, SyncMode: 1}), "bdi 8:0: ino=12 sync_mode=1 cgroup_ino=1"},
		{"writeback_congestion_wait", f.CongestionWait(1, 2), "usec_timeout=1 usec_delayed=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { assert.Equal(t, tt.want, tt.got) })
	}
}

func TestInodeState(t *testing.T) {
	tests := []struct {
		state InodeState
		v32   string
		v66   string
	}{
		{0, "", ""}, // __print_flags prints nothing for 0
		{IDirtySync, "I_DIRTY_SYNC", "I_DIRTY_SYNC"},
		{IDirty, "I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES", "I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES"},
		{IReferenced | ISync | IDirtyPages, "I_DIRTY_PAGES|I_SYNC|I_REFERENCED", "I_DIRTY_PAGES|I_SYNC|I_REFERENCED"},
		{INew | IWillFree | IFreeing | IClear, "I_NEW|I_WILL_FREE|I_FREEING|I_CLEAR", "I_NEW|I_WILL_FREE|I_FREEING|I_CLEAR"},
		// Bits the table lacks are printed once, as 0x%lx, after the names.
		{IDirtyTime | ISync, "I_SYNC|0x800", "I_SYNC|I_DIRTY_TIME"},
		{1 << 9, "0x200", "0x200"},
		{1<<9 | 1<<12 | IDirtySync, "I_DIRTY_SYNC|0x1200", "I_DIRTY_SYNC|0x1200"},
	}
	for _, tt := range tests {
		t.Run(tt.v32, func(t *testing.T) {
			assert.Equal(t, tt.v32, tt.state.String())
			assert.Equal(t, tt.v32, tt.state.Text(V32))
			assert.Equal(t, tt.v66, tt.state.Text(V66))
		})
	}
	assert.Equal(t, InodeState(1<<7), ISync, "__I_SYNC = 7")
	assert.Equal(t, InodeState(1<<8), IReferenced)
}

func TestReason(t *testing.T) {
	tests := []struct {
		r        Reason
		kernel   uint8 // v3.2 enum value
		v32, v66 string
	}{
		{ReasonBackground, 0, "background", "background"},
		{ReasonTryToFreePages, 1, "try_to_free_pages", "vmscan"},
		{ReasonSync, 2, "sync", "sync"},
		{ReasonPeriodic, 3, "periodic", "periodic"},
		{ReasonLaptopTimer, 4, "laptop_timer", "laptop_timer"},
		{ReasonFreeMoreMem, 5, "free_more_memory", "free_more_memory"},
		{ReasonFsFreeSpace, 6, "fs_free_space", "fs_free_space"},
		{ReasonForkerThread, 7, "forker_thread", "forker_thread"},
		{ReasonForeignFlush, 8, "foreign_flush", "foreign_flush"},
		{Reason(42), 42, "0x2a", "0x2a"},
	}
	for _, tt := range tests {
		t.Run(tt.v32, func(t *testing.T) {
			assert.Equal(t, tt.kernel, uint8(tt.r))
			assert.Equal(t, tt.v32, tt.r.String())
			assert.Equal(t, tt.v66, tt.r.Text(V66))
		})
	}
	assert.Equal(t, ReasonTryToFreePages, ReasonVmscan)
	assert.Equal(t, "v3.2", V32.String())
	assert.Equal(t, "v6.6", V66.String())
	assert.Equal(t, "Format(7)", Format(7).String())
}

// The Formatter reuses its buffer: earlier results must not change.
func TestFormatterResultsAreIndependent(t *testing.T) {
	f := NewFormatter(V32)
	a := f.PagesWritten(123456789)
	b := f.PagesWritten(1)
	assert.Equal(t, "123456789", a)
	assert.Equal(t, "1", b)
}
