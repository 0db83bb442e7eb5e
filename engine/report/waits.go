package report

// waitDocs explain where an editor's save spent its time (LatencyResult.TimeIn),
// one row per kernel.WaitCause, by its key, in kernel.WaitCause order. The
// model's wait points label the task's sleep as it blocks; the time until it
// resumes is charged to the label.
var waitDocs = []Doc{
	{"other", "Sleeps no wait point labels (inode_wait_for_writeback behind the flusher, page reclaim, congestion_wait) and the timer's and wake-up's latency.",
		"", "", "near 0", "large: a wait the model does not name"},
	{"cpu", "Running on a CPU: the write()s' copy and page-cache work, ->writepages, the filesystem's write_begin.",
		"", "the syscalls themselves", "the floor of a save", ""},
	{"runqueue", "Runnable, queued for a busy CPU (the scheduler's runqueue).",
		"", "schedule() / the CPU pool", "0", "large: CPU-bound writeback or checksumming (btrfs) starving the editor"},
	{"journal_commit", "Waiting for a journal commit: ext4's fsync waits for the jbd2 commit of its transaction; ext3's for the jbd commit; an ext3 write() waits in start_this_handle while the running transaction is locked; an ext3 writepage waits on a buffer the commit is writing (ordered data).",
		"", "jbd2_log_wait_commit (ext4_sync_file → jbd2_complete_transaction), log_wait_commit (ext3_sync_file), start_this_handle, lock_buffer",
		"a commit's few journal blocks", "seconds: the commit writes (data=ordered) or waits for the bulk writer's data"},
	{"page_writeback", "Waiting for the file's pages under writeback to finish (fsync's data wait, or a WB_SYNC_ALL writepages meeting a page the flusher is writing).",
		"", "filemap_fdatawait_range (file_write_and_wait_range), wait_on_page_writeback / folio_wait_writeback in write_cache_pages",
		"the save's own pages' IO", "long: the save's pages queue behind the bulk writer's in the elevator or the device. On btrfs this is the model's whole fsync: it has no tree-log/transaction commit (btrfs_sync_log) yet"},
	{"request_alloc", "Sleeping for a free request (tag): the queue's nr_requests are all in use.",
		"", "get_request_wait (single-queue, before 5.0), blk_mq_get_tag (blk-mq)", "0", "large: the bulk writer holds every request"},
	{"wbt", "Throttled by blk-wbt: more writes of the class in flight than its limit.",
		"", "wbt_wait (rq_qos_throttle → wbt_wait → rq_qos_wait in 6.1)", "0 for a sync write (wb_max)", "large at a small queue depth (a QD 1 disk's limits are 1)"},
	{"balance_dirty_pages", "Paused by dirty throttling while dirtying the file.",
		"", "balance_dirty_pages: io_schedule_timeout(pause), from balance_dirty_pages_ratelimited", "0 (a small file dirties few pages)", "pauses of 10-200 ms: the global dirty limit reached"},
	{"log_force", "Waiting for an XFS log force: fsync pushes the CIL (every committed transaction, the bulk writer's extent conversions too) into iclogs and waits for their FUA writes.",
		"", "xfs_log_force_seq (xfs_file_fsync → xfs_fsync_flush_log → xlog_cil_force_seq, xlog_wait_on_iclog)",
		"one or two iclog writes", "long: the iclog writes queue behind the bulk writer's data in the elevator or the device"},
}

// waitNames are the causes' names in the CLI summary.
var waitNames = map[string]string{"other": "other", "cpu": "running", "runqueue": "CPU queueing",
	"journal_commit": "jbd2 commit", "page_writeback": "page writeback", "request_alloc": "request allocation",
	"wbt": "wbt", "balance_dirty_pages": "dirty throttling", "log_force": "log force"}

// WaitDocs explains the wait causes of LatencyResult.TimeIn, in order.
func WaitDocs() []Doc { return waitDocs }

// WaitName is a wait cause's name in text (the journal is jbd on ext3).
func WaitName(key, fs string) string {
	if key == "journal_commit" && fs == "ext3" {
		return "jbd commit"
	}
	if n, ok := waitNames[key]; ok {
		return n
	}
	return key
}
