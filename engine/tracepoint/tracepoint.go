// Package tracepoint declares the events the model emits at the kernel's tracepoints
// and the one Tracer interface they go to. An event is a plain struct holding the
// fields the kernel's TP_STRUCT__entry would hold, as the model computes them
// (signed where the model's value is signed); it carries no wording. engine/trace
// renders events as ftrace text in the v3.2 or the v6.6 wording.
//
// The package is a leaf (it imports only engine/sim) so that devices, engine/kernel
// and engine/fs can all emit to the same Tracer.
package tracepoint

import (
	"strconv"

	"github.com/wblab/wblab/engine/sim"
)

// Tracer receives the model's events. now is the event's time (a call inside a CPU
// burst computed in one step may be stamped after the world's now); task is the
// task in whose context the event happens, or nil in interrupt or timer context.
// The model checks a tracer is set before it builds an event, so an untraced run
// pays one nil check per tracepoint.
type Tracer interface {
	Emit(now sim.Time, task *sim.Task, ev Event)
}

// Event is one tracepoint hit.
type Event interface {
	// Tracepoint names the tracepoint that fired.
	Tracepoint() Point
}

// Point is a tracepoint.
type Point uint8

// Tracepoints the model emits, with the kernel's event names.
const (
	WritebackQueue              Point = iota // writeback_queue (writeback_work_class)
	WritebackExec                            // writeback_exec
	WritebackStart                           // writeback_start
	WritebackWritten                         // writeback_written
	WritebackWait                            // writeback_wait
	WritebackBusyloop                        // writeback_busyloop (Kara 2011's busy-loop warning)
	WritebackPagesWritten                    // writeback_pages_written
	WritebackWakeBackground                  // writeback_wake_background (writeback_class)
	WritebackWakeThread                      // writeback_wake_thread (v3.2 only)
	WritebackQueueIO                         // writeback_queue_io
	GlobalDirtyState                         // global_dirty_state
	BdiDirtyRatelimit                        // bdi_dirty_ratelimit
	BalanceDirtyPages                        // balance_dirty_pages
	WritebackSingleInode                     // writeback_single_inode
	WritebackSingleInodeRequeue              // writeback_single_inode_requeue (v3.2 only)
	WritebackSingleInodeStart                // writeback_single_inode_start (v6.6 only)
	WritebackSbInodesRequeue                 // writeback_sb_inodes_requeue
	WritebackWriteInodeStart                 // writeback_write_inode_start (v6.6 only)
	WritebackWriteInode                      // writeback_write_inode (v6.6 only)
	WbcWritepage                             // wbc_writepage
	BlockRqIssue                             // block_rq_issue
	BlockRqComplete                          // block_rq_complete
	BlockSleeprq                             // block_sleeprq
	WbtStat                                  // wbt_stat
	WbtLat                                   // wbt_lat
	WbtStep                                  // wbt_step
	WbtTimer                                 // wbt_timer
	nPoints
)

var pointNames = [nPoints]string{
	"writeback_queue", "writeback_exec", "writeback_start", "writeback_written", "writeback_wait",
	"writeback_busyloop", "writeback_pages_written", "writeback_wake_background", "writeback_wake_thread",
	"writeback_queue_io", "global_dirty_state", "bdi_dirty_ratelimit", "balance_dirty_pages",
	"writeback_single_inode", "writeback_single_inode_requeue", "writeback_single_inode_start",
	"writeback_sb_inodes_requeue", "writeback_write_inode_start", "writeback_write_inode",
	"wbc_writepage", "block_rq_issue", "block_rq_complete", "block_sleeprq",
	"wbt_stat", "wbt_lat", "wbt_step", "wbt_timer",
}

// String is the event name the kernel prints.
func (p Point) String() string {
	if p < nPoints {
		return pointNames[p]
	}
	return "Point(" + strconv.Itoa(int(p)) + ")"
}

// Work is the writeback_work_class (writeback_queue, _exec, _start, _written, _wait,
// _busyloop): a struct wb_writeback_work.
type Work struct {
	TP               Point
	Bdi              string // bdi name, e.g. "8:0"
	SbMajor, SbMinor int    // sb_dev; 0:0 when the work has no superblock
	NrPages          int64
	SyncMode         int // WB_SYNC_NONE 0, WB_SYNC_ALL 1
	Kupdate          bool
	RangeCyclic      bool
	Background       bool
	Reason           uint8 // enum wb_reason, v3.2 numbering
}

// PagesWritten is writeback_pages_written.
type PagesWritten struct{ Pages int64 }

// Bdi is the writeback_class (writeback_wake_background, writeback_wake_thread).
type Bdi struct {
	TP  Point
	Bdi string
}

// QueueIO is writeback_queue_io.
type QueueIO struct {
	Bdi    string
	Older  int64 // older_than_this, jiffies (0 if none; negative early in a run)
	Age    int64 // jiffies - older_than_this in ms (-1 if none)
	Moved  int   // inodes moved to b_io
	Reason uint8
}

// GlobalDirty is global_dirty_state, in pages.
type GlobalDirty struct {
	Dirty     int64 // NR_FILE_DIRTY
	Writeback int64 // NR_WRITEBACK
	Unstable  int64 // NR_UNSTABLE_NFS (v3.2 only)
	BgThresh  int64
	Thresh    int64
	Limit     int64 // global_dirty_limit
	Dirtied   int64 // NR_DIRTIED, cumulative
	Written   int64 // NR_WRITTEN, cumulative
}

// Ratelimit is bdi_dirty_ratelimit, all in KB/s.
type Ratelimit struct {
	Bdi                    string
	WriteBW                int64 // write_bw
	AvgWriteBW             int64 // awrite_bw
	DirtyRate              int64
	DirtyRatelimit         int64
	TaskRatelimit          int64
	BalancedDirtyRatelimit int64
}

// Balance is one balance_dirty_pages round of a task.
type Balance struct {
	Bdi            string
	Limit          int64 // global_dirty_limit, pages
	Setpoint       int64 // (limit + freerun) / 2, pages
	Dirty          int64 // pages
	BdiSetpoint    int64 // setpoint * bdi_thresh / (thresh + 1), pages
	BdiDirty       int64 // pages
	DirtyRatelimit int64 // KB/s
	TaskRatelimit  int64 // KB/s
	Dirtied        int64 // pages dirtied since the last pause
	DirtiedPause   int64 // current->nr_dirtied_pause
	Paused         int64 // ms already paused in this call
	Pause          int64 // ms
	Period         int64 // ms (v3.3+)
	Think          int64 // ms (v3.3+), 0 if dirty_paused_when is unset
	// PeriodThink: the kernel's event has period and think (v3.3+; always in v6.6).
	PeriodThink bool
}

// SingleInode is writeback_single_inode, writeback_single_inode_requeue (v3.2) and
// writeback_single_inode_start (v6.6).
type SingleInode struct {
	TP          Point
	Bdi         string
	Ino         uint64
	State       uint64 // i_state, as show_inode_state prints it
	DirtiedWhen int64  // jiffies
	Age         int64  // (jiffies - dirtied_when) / HZ, seconds
	Index       int64  // mapping->writeback_index
	ToWrite     int64  // nr_to_write at entry
	Wrote       int64  // to_write - wbc->nr_to_write
}

// SbInodesRequeue is v6.6's writeback_sb_inodes_requeue.
type SbInodesRequeue struct {
	Bdi         string
	Ino         uint64
	State       uint64
	DirtiedWhen int64
	Age         int64
}

// WriteInode is v6.6's writeback_write_inode_start and writeback_write_inode.
type WriteInode struct {
	TP       Point
	Bdi      string
	Ino      uint64
	SyncMode int
}

// Writepage is wbc_writepage: a struct writeback_control.
type Writepage struct {
	Bdi          string
	NrToWrite    int64 // towrt
	PagesSkipped int64 // skip
	SyncMode     int   // mode
	Kupdate      bool  // kupd
	Background   bool  // bgrd
	Reclaim      bool  // reclm
	RangeCyclic  bool  // cyclic
	RangeStart   int64 // bytes (loff_t)
	RangeEnd     int64 // bytes, LLONG_MAX for the whole file
}

// BlockRq is block_rq_issue and block_rq_complete (the block_rq class).
type BlockRq struct {
	TP       Point
	Dev      string // "MAJ,MIN"
	RWBS     string // blk_fill_rwbs: R or W, then F, A, S, M
	Sector   int64
	NrSector int64
	Comm     string // the submitter (issue only)
}

// Sleeprq is block_sleeprq (v2.6.36-v4.x get_request_wait): a task sleeps for a
// request for a bio.
type Sleeprq struct {
	Dev      string
	RWBS     string
	Sector   int64
	NrSector int64
	Comm     string
}

// WbtStats is wbt_stat: the window's read and write latency statistics, ns.
type WbtStats struct {
	Dev                         string // "MAJ:MIN"
	RMean, RMin, RMax, RSamples int64
	WMean, WMin, WMax, WSamples int64
}

// WbtLatency is wbt_lat: the minimum latency target, µs.
type WbtLatency struct {
	Dev string
	Lat int64
}

// WbtScaleStep is wbt_step: a scaling step. Msg is the kernel's string ("step up"
// before v6, "scale up" since).
type WbtScaleStep struct {
	Dev             string
	Msg             string
	Step            int
	Window          int64 // µs
	Bg, Normal, Max int
}

// WbtTimerTick is wbt_timer.
type WbtTimerTick struct {
	Dev                    string
	Status, Step, Inflight int
}

// Tracepoint implements Event.
func (e Work) Tracepoint() Point          { return e.TP }
func (PagesWritten) Tracepoint() Point    { return WritebackPagesWritten }
func (e Bdi) Tracepoint() Point           { return e.TP }
func (QueueIO) Tracepoint() Point         { return WritebackQueueIO }
func (GlobalDirty) Tracepoint() Point     { return GlobalDirtyState }
func (Ratelimit) Tracepoint() Point       { return BdiDirtyRatelimit }
func (Balance) Tracepoint() Point         { return BalanceDirtyPages }
func (e SingleInode) Tracepoint() Point   { return e.TP }
func (SbInodesRequeue) Tracepoint() Point { return WritebackSbInodesRequeue }
func (e WriteInode) Tracepoint() Point    { return e.TP }
func (Writepage) Tracepoint() Point       { return WbcWritepage }
func (e BlockRq) Tracepoint() Point       { return e.TP }
func (Sleeprq) Tracepoint() Point         { return BlockSleeprq }
func (WbtStats) Tracepoint() Point        { return WbtStat }
func (WbtLatency) Tracepoint() Point      { return WbtLat }
func (WbtScaleStep) Tracepoint() Point    { return WbtStep }
func (WbtTimerTick) Tracepoint() Point    { return WbtTimer }
