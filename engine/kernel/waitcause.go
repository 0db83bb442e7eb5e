package kernel

import "github.com/wblab/wblab/engine/sim"

// WaitCause is where a task's time went while it was off its own code path: the
// kernel function it slept in, or the CPU. A wait point sets it (Thread.SleepFor)
// just before the task blocks; a workload that attributes its latency reads it
// when the task blocks (Thread.SleepCause) and charges the time until the task
// resumes to it.
type WaitCause uint8

// Wait causes. Each names the kernel function (6.1; 2.6.3x where the function had
// another name) whose sleep it counts.
const (
	// WaitOther is a sleep no wait point labelled (e.g. inode_wait_for_writeback,
	// lock_buffer, reclaim's congestion_wait) and the timer's and wake-up's latency.
	WaitOther WaitCause = iota
	// WaitRunning is time on a CPU: the syscalls' own work (copying, page-cache
	// insertion, ->writepages, the filesystem's write_begin).
	WaitRunning
	// WaitRunqueue is time runnable but queued for a busy CPU (the scheduler's
	// runqueue: a burst waiting in sim.CPUs).
	WaitRunqueue
	// WaitJournal is a jbd2/jbd commit wait: ext4_sync_file → jbd2_complete_transaction
	// → jbd2_log_wait_commit (ext4), ext3_sync_file → log_wait_commit (ext3), a
	// write's start_this_handle waiting for the locked transaction (ext3's
	// WriteStaller), and lock_buffer behind kjournald's ordered-data write.
	WaitJournal
	// WaitPageWriteback is waiting for pages under writeback to complete:
	// filemap_fdatawait_range (fsync's file_write_and_wait_range, and
	// writeback_single_inode's WB_SYNC_ALL wait) and wait_on_page_writeback
	// (folio_wait_writeback in 6.1) in write_cache_pages for WB_SYNC_ALL. On xfs
	// and btrfs (no tree-log or transaction commit modelled: btrfs_sync_file →
	// btrfs_sync_log) it is the whole of an fsync's wait.
	WaitPageWriteback
	// WaitRequest is request allocation: get_request_wait (single-queue block
	// layer, before 5.0) or blk_mq_get_tag (blk-mq) sleeping for a free
	// request/tag (nr_requests).
	WaitRequest
	// WaitWBT is blk-wbt throttling: wbt_wait (rq_qos_throttle → wbt_wait →
	// rq_qos_wait in 6.1) sleeping until the inflight count drops below the limit.
	WaitWBT
	// WaitBalance is a balance_dirty_pages pause (io_schedule_timeout in
	// balance_dirty_pages, called from balance_dirty_pages_ratelimited).
	WaitBalance
	// WaitLogForce is an XFS log force: xfs_file_fsync → xfs_log_force_seq waiting
	// for the CIL push (xlog_cil_force_seq) and its iclog writes (xlog_wait_on_iclog).
	WaitLogForce
	// NumWaitCauses is the number of causes.
	NumWaitCauses
)

// waitCauseKeys are the causes' keys (the Result's and engine/report's doc
// table's), in WaitCause order.
var waitCauseKeys = [NumWaitCauses]string{"other", "cpu", "runqueue", "journal_commit",
	"page_writeback", "request_alloc", "wbt", "balance_dirty_pages", "log_force"}

// String is c's key.
func (c WaitCause) String() string {
	if c < NumWaitCauses {
		return waitCauseKeys[c]
	}
	return "other"
}

// SleepFor labels th's next sleep (a wait point calls it just before th blocks).
func (th *Thread) SleepFor(c WaitCause) { th.sleepCause = c }

// SleepCause is why th is off its code path now that its Resume returned, and
// clears the label: WaitRunning for a CPU burst (running or queued: the caller
// splits the time by the task's CPU time), WaitWBT or WaitRequest when
// devices.Queue.Submit blocked it (the caller splits by the submitter's Waited:
// a bio may wait in both), else the wait point's label.
func (th *Thread) SleepCause() WaitCause {
	c := th.sleepCause
	th.sleepCause = WaitOther
	switch th.Task.State() {
	case sim.TaskOnCPU, sim.TaskQueued, sim.TaskRunnable:
		return WaitRunning
	}
	if s := th.Sub; s != nil && s.Blocked() {
		if s.WaitingOnWBT() {
			return WaitWBT
		}
		return WaitRequest
	}
	return c
}
