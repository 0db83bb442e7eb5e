package report

// Explanations of the time-series columns, the charts' derived series and the
// summary figures: the one source the page's "what is this", `wblab help series` and
// the docs read (engine.SeriesDoc adds each column's own row of engine.Columns for a
// column without an entry here). engine's TestEveryColumnExplained keeps it in step
// with the columns.

// seriesDocs explain the series columns (Columns) and the charts' derived series.
var seriesDocs = []Doc{
	{"dirty_MB", "Page-cache pages dirty and not yet under writeback, in MiB.", "global_page_state(NR_FILE_DIRTY)",
		"account_page_dirtied (up), clear_page_dirty_for_io (down)", "between the background threshold and the limit, near the setpoint (v3.2+)",
		"pinned at the limit (writers throttled hard) or sawing between 0 and the limit (writeback in bursts)"},
	{"writeback_MB", "Pages under writeback: submitted to the block layer, IO not yet complete.", "global_page_state(NR_WRITEBACK)",
		"set_page_writeback (up), test_clear_page_writeback at end_page_writeback (down)", "about what the device queue holds (nr_requests × request size)",
		"growing towards the dirty level: the device is slower than submission, or requests wait on a lock"},
	{"dirty+writeback", "dirty + writeback: what balance_dirty_pages compares with the limits.", "nr_reclaimable + nr_writeback",
		"balance_dirty_pages", "below the limit", "at the limit: every dirtier pauses"},
	{"bg_thresh_MB", "Background threshold: above it the flusher starts background writeback.", "background_thresh",
		"global_dirty_limits (vm.dirty_background_ratio or _bytes of dirtyable memory); over_bground_thresh", "a flat line", ""},
	{"thresh_MB", "Dirty threshold from vm.dirty_ratio or vm.dirty_bytes.", "dirty_thresh", "global_dirty_limits", "a flat line", ""},
	{"limit_MB", "The hard dirty limit balance_dirty_pages throttles at (v3.2: follows thresh slowly).", "global_dirty_limit / hard_dirty_limit",
		"update_dirty_limit (v3.2), global_dirty_limits", "flat, at or above thresh", "dirty+writeback touching it often"},
	{"setpoint_MB", "The dirty level IO-less throttling steers to: pos_ratio is 1 here (v3.2+ only).", "setpoint in bdi_position_ratio",
		"bdi_position_ratio: (freerun + limit) / 2", "dirty pages oscillating closely around it", "dirty far from it for long"},
	{"dirty_ratelimit_MBps", "The base rate each dirtier may write at (v3.2+ IO-less balance_dirty_pages).", "bdi->dirty_ratelimit",
		"bdi_update_dirty_ratelimit, every 200 ms", "about write_bw divided by the number of dd", "oscillating by orders of magnitude, or collapsing to the floor"},
	{"balanced_ratelimit_MBps", "The rate that would balance dirtying with writeback; dirty_ratelimit steps towards it.", "balanced_dirty_ratelimit",
		"bdi_update_dirty_ratelimit: task_ratelimit × write_bw / dirty_rate", "close to dirty_ratelimit", "noisy spikes far from it"},
	{"task_ratelimit_MBps", "The rate the last throttled dirtier got: dirty_ratelimit × pos_ratio.", "task_ratelimit in balance_dirty_pages",
		"balance_dirty_pages (v3.2+)", "near dirty_ratelimit", "near 0: dirty above the setpoint, long pauses"},
	{"write_bw_MBps", "The kernel's estimate of the device's writeback rate.", "bdi->write_bandwidth",
		"bdi_update_write_bandwidth (wb_update_bandwidth in v6), smoothed over 3 s", "flat at the disk's rate", "well below iostat wMB/s (a bad estimate skews throttling)"},
	{"avg_write_bw_MBps", "write_bw smoothed again (used for the writeback chunk size).", "bdi->avg_write_bandwidth",
		"bdi_update_write_bandwidth", "flat", ""},
	{"iostat_r_s", "Read requests completed per second (iostat -x r/s).", "diskstats reads", "part_stat_inc at request completion", "", ""},
	{"iostat_w_s", "Write requests completed per second (iostat -x w/s).", "diskstats writes", "part_stat_inc at request completion",
		"bw / request size", "high with small avgrq-sz: fragmented writeback"},
	{"iostat_rMBps", "MiB read per second (iostat -x rMB/s).", "diskstats sectors read", "", "", ""},
	{"iostat_wMBps", "MiB written per second by the disk (iostat -x wMB/s).", "diskstats sectors written", "", "at the disk's sequential rate", "well below it: seeks between files, small requests"},
	{"iostat_avgrq_sz", "Mean request size in 512-byte sectors (iostat -x avgrq-sz).", "sectors / requests", "",
		"max_sectors_kb (1024 sectors for 512 KiB)", "small: writeback interleaving files or pages"},
	{"iostat_avgqu_sz", "Mean number of requests queued or in service over the interval (iostat -x avgqu-sz): the time-weighted average.", "diskstats time_in_queue / interval",
		"part_round_stats", "about the device's queue depth while writing", "far above it: requests wait in the elevator"},
	{"iostat_await_ms", "Mean time a request took from queueing to completion, ms (iostat -x await).", "diskstats ticks / requests", "",
		"a few ms for a disk", "hundreds of ms: queued writeback starving reads"},
	{"iostat_util_pct", "Share of the interval with a request in service (iostat -x %util).", "diskstats io_ticks", "", "~100 % while writing", "below 100 % while dirty pages wait: writeback not keeping the disk busy"},
	{"device_queue", "Requests in the elevator and the device at the sample instant (\"in queue\"; avgqu-sz is the interval's average of the same count).", "request_queue in-flight + queued",
		"", "steady", "saw-tooth from 0: submission in bursts"},
	{"wbt_step", "blk-wbt's scale step: 0 default, positive throttled harder after missed read latency, negative more depth.", "rwb->scale_step",
		"scale_up / scale_down in blk-wbt.c", "0", "large positive: reads miss their latency target"},
	{"wbt_max", "blk-wbt's depth limit for high-priority writes (sync, O_DIRECT).", "rwb->wb_max", "calc_wb_limits", "", ""},
	{"wbt_normal", "blk-wbt's limit for ordinary writes.", "rwb->wb_normal", "calc_wb_limits", "", ""},
	{"wbt_background", "blk-wbt's limit for background writeback (the flusher).", "rwb->wb_background", "calc_wb_limits",
		"a few requests", "1: writeback crawls (Kara 2016 at QD 1)"},
	{"wbt_inflight", "Writes blk-wbt counts in flight.", "rwb->inflight", "wbt_wait / wbt_done", "at most the class limit", ""},
	{"wsi_wrote_MB", "Pages written per writeback_single_inode call (Wu's graph), MiB; empty samples had no call.", "tracepoint writeback_single_inode: wrote=",
		"writeback_single_inode → do_writepages", "the chunk size (nr_to_write) each call", "far below the chunk: calls giving up early (locks, congestion), many calls per MiB"},
	{"wsi_nr_to_write_MB", "The chunk each inode is given per call, MiB.", "tracepoint writeback_single_inode: nr_to_write=",
		"writeback_chunk_size (4 MiB before v3.1; scaled with write_bw after)", "steady", ""},
	{"inode_dirty_age_max_s", "now - dirtied_when of the oldest dirty inode. An inode kept dirty by a writer keeps its dirtied_when, so this grows for the whole run without any data being old; see the per-inode view's oldest dirty data.", "inode->dirtied_when",
		"__mark_inode_dirty (set), redirty_tail (reset)", "below dirty_expire_centisecs for inodes that become clean", "growing while the inode's data age also grows: starvation"},
	{"bdp_pause_ms", "Mean length of balance_dirty_pages pauses in the interval, ms; empty samples had no pause.", "tracepoint balance_dirty_pages: paused=",
		"balance_dirty_pages: io_schedule_timeout(pause)", "steady, 10-200 ms", "stuck at MAX_PAUSE (200 ms) or many 1-jiffy pauses"},
	{"b_dirty_inodes", "Inodes on b_dirty: dirtied, waiting for writeback, oldest at the tail.", "wb->b_dirty", "__mark_inode_dirty, redirty_tail",
		"the dd inodes between passes", ""},
	{"b_io_inodes", "Inodes on b_io: queued for the current writeback pass.", "wb->b_io", "queue_io → move_expired_inodes", "filled and drained every pass", ""},
	{"b_more_io_inodes", "Inodes on b_more_io: written a chunk, more left, requeued.", "wb->b_more_io", "requeue_io", "short visits",
		"inodes parked here for long: busy-looping writeback"},
	{"b_more_io_wait_inodes", "Inodes on b_more_io_wait (Wu 2011 patch 1): could not be written now (locked, blocked), retried later.", "wb->b_more_io_wait",
		"requeue_io_wait", "empty or short visits", "many inodes for long"},
	{"dirtied_MB", "Pages dirtied since the run began, MiB (the counter Wu's harness differentiates into the dirty rate).", "NR_DIRTIED (global_dirty_state dirtied=)",
		"account_page_dirtied", "rising at the writers' rate", "flat while writers run: every dirtier is paused"},
	{"written_MB", "Pages written back since the run began, MiB (the counter write_bw is computed from).", "NR_WRITTEN (global_dirty_state written=)",
		"test_clear_page_writeback at end_page_writeback", "rising at the disk's rate", "steps with long flat stretches: writeback in bursts"},
}

// cardDocs explain the summary figures the page shows as cards (by card ID).
var cardDocs = []Doc{
	{"write_bw", "Write bandwidth as Wu's compare script computes it: from the flusher's global_dirty_state trace lines (written pages over time), MiB/s.", "tracepoint global_dirty_state: written=",
		"global_dirty_state in balance_dirty_pages / the flusher", "the disk's sequential rate", "well below it"},
	{"written", "MiB written back to the disk over the run (MB = MiB).", "NR_WRITTEN", "test_clear_page_writeback", "", ""},
	{"cpu", "CPU seconds of every simulated thread (dd, flusher, journal, IO completion).", "", "", "", "the flusher's share growing with no more MiB: busy loops"},
	{"runtime", "Simulated seconds (the run ends early once every count-limited dd exited and all pages are clean).", "", "", "", ""},
	{"wall", "Milliseconds your browser took for the run.", "", "", "", ""},
	{"data_age", "The oldest dirty data: the largest age any inode's oldest dirty page reached, sampled at each series row. This is what kupdate's dirty_expire_centisecs is meant to bound.", "page dirtying time (not kept by the kernel; the model records it)",
		"Inode.OldestDirtyDataAge (model)", "below dirty_expire_centisecs + dirty_writeback_centisecs (35 s by default)", "minutes: an inode starved by others"},
	{"age", "The largest now - dirtied_when seen when an inode was written. For an inode that never becomes clean (a dd that writes for the whole run) it is the whole run, without any page being old: compare the oldest dirty data.", "inode->dirtied_when",
		"writeback_single_inode", "", "large together with a large oldest dirty data"},
	{"busy", "wb_writeback loops that made no progress and retried at once.", "", "wb_writeback", "0", "many: the flusher spins (CPU without IO)"},
	{"dd_time", "When the last count-limited dd exited (with conv=fsync, after its fsync), s.", "", "", "", ""},
	{"full", "When the disk's filesystem filled: the first write() that found no free block (ENOSPC), s. Its dd exit then (\"No space left on device\"), editors' saves fail; the run goes on and the flusher writes what was dirtied.",
		"the filesystem's free-block count (ext4 s_freeblocks_counter - s_dirtyblocks_counter, xfs sb_fdblocks, btrfs data space_info)",
		"ext3_new_blocks, ext4_da_reserve_space, xfs_iomap_write_delay, btrfs_check_data_free_space (v3.1)", "absent: the run never filled its disk",
		"early in a long run: the partition is smaller than runtime × write bandwidth"},
	{"read_p99", "99th percentile latency of the readers' synchronous reads, ms.", "", "", "a few ms", "hundreds of ms: writeback starving reads (what blk-wbt fixes)"},
	{"read_mean", "Mean latency of the readers' reads, ms.", "", "", "", ""},
	{"kernel", "The kernel preset and any switches set on top of it.", "", "", "", ""},
	{"device", "The device preset and its overrides.", "", "", "", ""},
	{"fs", "The filesystem model.", "", "", "", ""},
	{"fs-", "A counter of the filesystem model (journal commits, XFS ioends, xfsdatad requeues …).", "", "", "", ""},
}

func lookupDoc(docs []Doc, name string) (Doc, bool) {
	for _, d := range docs {
		if d.Name == name {
			return d, true
		}
	}
	return Doc{}, false
}

// LookupSeriesDoc is the entry of seriesDocs for a series column or a chart's derived
// series (engine.SeriesDoc also reads the columns' own docs).
func LookupSeriesDoc(col string) (Doc, bool) { return lookupDoc(seriesDocs, col) }

// SeriesDocNames lists the series with an entry in seriesDocs.
func SeriesDocNames() []string {
	out := make([]string, len(seriesDocs))
	for i, d := range seriesDocs {
		out[i] = d.Name
	}
	return out
}

// CardDoc explains a summary figure ("fs-NAME" for a filesystem counter).
func CardDoc(id string) (Doc, bool) {
	if d, ok := lookupDoc(cardDocs, id); ok {
		return d, true
	}
	if len(id) > 3 && id[:3] == "fs-" {
		d, ok := lookupDoc(cardDocs, "fs-")
		d.Name = id
		return d, ok
	}
	return Doc{}, false
}
