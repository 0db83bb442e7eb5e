package kernel

import (
	"fmt"
	"sort"
	"strings"
)

// Variants are the kernel behaviours the source threads change. A kernel is a named
// set of switches (a preset); the model branches on switches, never on version strings.
type Variants struct {
	// WCPTerminateLE0 is Chinner's 2.6.36 fix (commit 546a1924): write_cache_pages stops
	// when --nr_to_write <= 0. Off: the 2.6.36-rc1 rule, which only decrements and
	// stops while nr_to_write > 0 and so never stops once ->writepage drove it ≤ 0.
	WCPTerminateLE0 bool
	// ScaledChunk is writeback_chunk_size() of v3.1+ (bw/2, limit/8, 4 MB rounding);
	// off: the fixed MAX_WRITEBACK_PAGES = 1024 of 2.6.32-3.0.
	ScaledChunk bool
	// Ext4WritebackBump is ext4_da_writepages' nr_to_write bump of 2.6.32-3.x
	// (s_max_writeback_mb_bump: up to 128 MB of contiguous dirty pages, given back at
	// exit). Off: 2.6.30's ext4_da_writepages, which only raises nr_to_write to
	// s_mb_stream_request (16 pages) and keeps the bump (fs/ext4/inode.c of 2.6.30).
	Ext4WritebackBump bool

	// Wu 2011 "writeback: avoid touching dirtied_when on blocked inodes" series
	// (../threads/wu-2011-more_io_wait-thread.txt). requeue_io_wait() exists only
	// with MoreIOWait; a switch that calls it without MoreIOWait (a combination no
	// kernel had) falls back to requeue_io().

	// MoreIOWait is patch 1/7: the b_more_io_wait list and requeue_io_wait(); queue_io
	// splices it into b_io after b_more_io, wb_writeback does not loop on it (it only
	// keeps going while b_more_io is non-empty) and wb_has_dirty_io counts it.
	MoreIOWait bool
	// WriteInodeRequeueWait is patch 2/7 (Hellwig): an inode the filesystem left
	// I_DIRTY after writeback (->write_inode failed, e.g. XFS EAGAIN on the ILOCK) is
	// requeue_io_wait()ed instead of redirty_tail()ed.
	WriteInodeRequeueWait bool
	// LastActiveProgress is patch 3/7 (Kara): wb_writeback returns its progress
	// (pages plus inodes cleaned) and wb->last_active moves on that progress.
	LastActiveProgress bool
	// KupdateRetryEarly is patch 4/7 (Kara): kupdate runs early while b_more_io_wait
	// is non-empty and the flusher sleeps 1, 2, 4 ... jiffies (reset on progress) up
	// to dirty_writeback_interval instead of the full interval.
	KupdateRetryEarly bool
	// PagesSkippedRequeueWait is patch 5/7: writeback_sb_inodes requeue_io_wait()s an
	// inode with pages_skipped instead of redirty_tail().
	PagesSkippedRequeueWait bool
	// BlockedRequeueWait is patch 6/7: writeback_single_inode requeue_io_wait()s an
	// inode with dirty pages left although nr_to_write was not used up ("blocked by
	// something other than congestion") instead of redirty_tail().
	BlockedRequeueWait bool
	// GrabSuperRequeueWait is patch 7/7: __writeback_inodes_wb requeue_io_wait()s an
	// inode whose superblock grab_super_passive() cannot take (s_umount held for
	// write by umount/remount) instead of redirty_tail(). The model has one mounted
	// superblock that is never unmounted or remounted during a run, so the grab never
	// fails and the switch changes nothing here; it is kept so presets name the
	// thread's kernels exactly.
	GrabSuperRequeueWait bool
	// ISyncRequeueWait is Kara's "writeback: requeue_io_wait() when I_SYNC is set":
	// a WB_SYNC_NONE writeback that finds the inode under I_SYNC requeue_io_wait()s it,
	// and wb_writeback no longer waits on the tail of b_more_io when nothing was
	// written: it warns "Possible busyloop in data writeback" (counted in BusyLoops)
	// and loops.
	ISyncRequeueWait bool
	// NoRedirtyOnPagesSkipped is the thread's "remove redirty_tail() on
	// pages_skipped": writeback_sb_inodes leaves an inode with pages_skipped on the
	// list writeback_single_inode chose.
	NoRedirtyOnPagesSkipped bool
	// RemoveMoreIOWait is Wu's follow-up diff: requeue_io_wait ≡ requeue_io (no
	// separate list) and wb_writeback leaves its loop as soon as a pass makes no
	// progress.
	RemoveMoreIOWait bool

	// Pdflush is the design before Axboe's per-bdi flusher threads (2.6.30): a pool
	// of pdflush threads running background_writeout and wb_kupdate with congestion
	// waits (pdflush.go). Off: the per-bdi flush-MAJ:MIN thread with its work list.
	Pdflush bool
	// IOFullThrottle is balance_dirty_pages before Wu's IO-less throttling (v3.2):
	// the dirtier writes back pages itself until the bdi is below its limit
	// (2.6.30-3.1). Off: the IO-less balance_dirty_pages.
	IOFullThrottle bool
	// IOFullPauseBackoff is the IO-full balance_dirty_pages loop of 2.6.35-3.1 (with
	// IOFullThrottle): the dirtier writes back only while the bdi's reclaimable pages
	// exceed its limit, dirty_exceeded also at the global limit, and it sleeps
	// io_schedule_timeout(pause) doubling from 1 jiffy to HZ/10. Off: 2.6.30's loop
	// (writeback whenever the bdi has reclaimable pages, congestion_wait(HZ/10)).
	IOFullPauseBackoff bool

	// The block layer (Block, block.go): the kernel decides it for every device.

	// WBT is blk-wbt on by default (the 4.6+wbt presets, 6.1).
	WBT bool
	// WBTDraft is the 2016 wb-buf-throttle draft semantics.
	WBTDraft bool
	// WBTQD1 is Axboe's 2016 QD=1 patch: limits 2/2/1, 1/1/1 when scaled down.
	WBTQD1 bool
	// WBTDepth is RWB_DEF_DEPTH (64 in the 2016 drafts, 16 merged; 0 = 16). Not a
	// switch: presets set it.
	WBTDepth int
	// MaxSectorsKB is BLK_DEF_MAX_SECTORS in KiB: 512 (1024 sectors) when 0, 1280
	// from v4.4 (commit d2be537c3ba3, "block: bump BLK_DEF_MAX_SECTORS to 2560").
	// Not a switch: presets set it.
	MaxSectorsKB int

	// v6.x writeback semantics (kernel-notes §1, "v6.x" paragraphs; the 6.1 preset).
	// b_dirty_time and lazytime (I_DIRTY_TIME, dirtytime_expire_interval) are left
	// out: the model has no atime/mtime-only dirtying.

	// DirtiedBeforeEachLoop is v6 wb_writeback's dirtied_before: background work
	// takes jiffies on every loop iteration (all dirty inodes), kupdate
	// jiffies - dirty_expire_interval; other works keep the start-of-work cut-off.
	DirtiedBeforeEachLoop bool
	// ISyncQueued is I_SYNC_QUEUED (v5.9+): move_expired_inodes sets it,
	// __mark_inode_dirty leaves a queued inode where it is (instead of testing
	// I_SYNC), redirty_tail and the move off the lists clear it.
	ISyncQueued bool
	// RequeueInode is requeue_inode() (v3.5+): pages_skipped is decided first
	// (redirty_tail a dirty inode, drop a clean one) inside the decision tree,
	// not by writeback_sb_inodes after it.
	RequeueInode bool
	// SbInodesISyncCheck moves the I_SYNC test into writeback_sb_inodes (v6):
	// WB_SYNC_NONE requeue_io()s the busy inode with writeback_sb_inodes_requeue
	// (no writeback_single_inode call), WB_SYNC_ALL sleeps on it and re-examines.
	SbInodesISyncCheck bool
	// WorkqueueFlusher is the v6 flusher as a work item (wb_workfn): loops while
	// works are queued, then wb_wakeup (immediate) for new works or
	// wb_wakeup_delayed (queue_delayed_work: a pending timer is not moved) when
	// dirty IO remains; wb_do_writeback runs wb_check_start_all before kupdate.
	WorkqueueFlusher bool
	// BandwidthFromWritepages moves the write-bandwidth update out of wb_writeback
	// into do_writepages (every BANDWIDTH_INTERVAL, after wb_bandwidth_estimate_start)
	// and IO completion (bw_dwork BANDWIDTH_INTERVAL after an inode's writeback
	// ends); __wb_update_bandwidth has no idle skip (elapsed >= 1).
	BandwidthFromWritepages bool
	// WroteMinusSkipped is v6 writeback_sb_inodes' total_wrote: write_chunk -
	// nr_to_write - pages_skipped, floored at 0 (+1 for an inode made clean).
	WroteMinusSkipped bool

	// v6.x throttling (kernel-notes §2, "v6.x" paragraphs).

	// DomainDirtyLimits is domain_dirty_limits(): ratios are converted per
	// PAGE_SIZE first ((ratio*PAGE_SIZE/100)*avail/PAGE_SIZE). The _bytes forms and
	// the bg >= thresh rule are unchanged (no real-time dirtiers in the model).
	DomainDirtyLimits bool
	// PosRatioClamp is v6 pos_ratio_polynom(): the cubic is clamped to [0, 2.0] and
	// divisions use (limit - setpoint) | 1, (x_intercept - wb_setpoint) | 1.
	PosRatioClamp bool
	// BdpThinkTime is the v3.3+/v6 balance_dirty_pages loop: think-time
	// compensation (pause = period - (now - dirty_paused_when)), no sleep below
	// wb_min_pause() (virtual time advanced instead), pauses over max_pause
	// trimmed with the excess carried in dirty_paused_when, nr_dirtied_pause from
	// wb_min_pause(), and the background kick before the freerun test.
	BdpThinkTime bool
	// WbMaxPause is v6 wb_max_pause(): min(wb_dirty / (1 + bw/roundup_pow_of_two(1+HZ/8)) + 1,
	// MAX_PAUSE), replacing bdi_max_pause's 20 ms + N-dd term.
	WbMaxPause bool
	// DirtyExceededV6 is dirty_exceeded = wb_dirty > wb_thresh && dirty > thresh
	// (v3.2: ||).
	DirtyExceededV6 bool
	// BalancedRateCap caps balanced_dirty_ratelimit at write_bw (v6).
	BalancedRateCap bool
	// FpropCompletions is the v3.5+ writeout fraction (lib/flex_proportions:
	// fprop_fraction_percpu on writeout_completions, halved every
	// VM_COMPLETIONS_PERIOD_LEN = 3*HZ by the writeout_period timer); off: the
	// 2.6.24-3.4 prop_local_percpu on vm_completions, halved every half-period of
	// 2^calc_period_shift() completions. Only matters with several disks.
	FpropCompletions bool
	// StrictLimitCap is BDI_CAP_STRICTLIMIT support in balance_dirty_pages and
	// wb_position_ratio (3.12+): a bdi with strictlimit set is throttled against
	// its own limit, also below the global free-run ceiling.
	StrictLimitCap bool
	// BdpGlobalExit is the IO-less balance_dirty_pages of 3.2-rc before Wu's
	// "writeback: hard throttle 1000+ dd on a slow USB stick" (commit
	// 1df647197c5b): after a pause the loop ends once the global dirty count is
	// under the hard limit, so dirtiers whose task_ratelimit is at its minimum
	// still dirty a page per max_pause each. Off: the loop goes on while
	// task_ratelimit is 0 and the bdi has dirty pages (bdpLoopExit).
	BdpGlobalExit bool
	// BdiKnobsV63 is Linux 6.3's /sys/class/bdi knobs (Stefan Roesch's series,
	// sysfs-class-bdi "Date: October 2022"): strict_limit, min_bytes and
	// max_bytes, and min/max ratios in parts per million. Off: only min_ratio and
	// max_ratio, and strictlimit only on FUSE mounts. No preset has it.
	BdiKnobsV63 bool

	// Page reclaim (vmscan.go; only with Params.Reclaim).

	// DirtyableLRUAnon is 2.6.28-2.6.31 determine_dirtyable_memory: free pages plus
	// global_lru_pages(), anonymous pages included with or without swap. Off:
	// global_reclaimable_pages() (anonymous pages only with swap).
	DirtyableLRUAnon bool
	// DirtyableNoAnon is 3.14's global_dirtyable_memory (commit a1c3bfb2, "do not
	// count anon pages as dirtyable memory"): free pages less totalreserve_pages,
	// plus the file LRU.
	DirtyableNoAnon bool
	// WatermarkScale is v4.6's __setup_per_zone_wmarks with
	// watermark_scale_factor 10: low and high are min + max(min/4, 0.1 % of the
	// zone) and twice that. Off: min + min/4 and min + min/2.
	WatermarkScale bool
	// WaitIffCongested is 2.6.37-5.15 reclaim (commit 0e093d99): direct reclaim's
	// nap in do_try_to_free_pages is wait_iff_congested(HZ/10), which sleeps only
	// while a bdi is congested and the zone is marked ZONE_CONGESTED (every dirty
	// page reclaim met sat on a congested queue). Off (and ReclaimThrottle off):
	// 2.6.30's unconditional congestion_wait(WRITE, HZ/10) below priority
	// DEF_PRIORITY-2.
	WaitIffCongested bool
	// ReclaimThrottle is v5.16+ reclaim_throttle: kswapd sleeps up to HZ/10 when it
	// meets PG_reclaim pages still under writeback (VMSCAN_THROTTLE_WRITEBACK,
	// woken after SWAP_CLUSTER_MAX pages per sleeper complete), direct reclaim
	// sleeps one jiffy on a congested lruvec or no progress, unless at most half of
	// the reclaimable pages wait for writeback (skip_throttle_noprogress).
	ReclaimThrottle bool

	// v6.x block layer (kernel-notes §3, §7.1).

	// WBTV6 selects the v6 rq_depth limits for blk-wbt:
	// max_depth <= 2 gives normal = max_depth, background = 1, and negative scale
	// steps when only writes are seen.
	WBTV6 bool
	// BlockV6 makes the kernel set the device's block layer to v6.x: blk-mq tags
	// (a legacy device's 128-request pools become 2*min(QD, 128) tags under
	// mq-deadline, QD tags under "none"; cfq, gone in v5.0, becomes mq-deadline),
	// max_sectors_kb 1280 (BLK_DEF_MAX_SECTORS_CAP), plug flush at 32 requests or
	// a 128 KiB request.
	BlockV6 bool

	// TraceV66 prints the writeback tracepoints in the v6.6 wording (kernel-notes
	// §6.3): cgroup_ino suffixes, global_dirty_state without unstable=,
	// balance_dirty_pages with period/think, writeback_single_inode_start,
	// writeback_sb_inodes_requeue and writeback_write_inode[_start], no
	// writeback_wake_thread / writeback_single_inode_requeue. Off (the Config
	// variant trace_v66=false on a modern preset) keeps the v3.2 wording the
	// harness's scripts parse.
	TraceV66 bool

	// WbcNonblocking is writeback before 2.6.37 (Wu's "remove wbc->nonblocking"):
	// WB_SYNC_NONE writeback only gives up on a busy lock (XFS's ILOCK in
	// xfs_map_blocks, a locked buffer) when wbc->nonblocking is set, which only
	// 2.6.30's pdflush background writeout did; the per-bdi flusher and the
	// dirtiers block on the lock. Off: every WB_SYNC_NONE writeback uses trylocks.
	WbcNonblocking bool

	// XFSWriteInodeFlush is XFS's ->write_inode of 2.6.30-3.1 (xfs_fs_write_inode,
	// fs/xfs/xfs_super.c): WB_SYNC_NONE writeback, kupdate's included, fails with
	// EAGAIN while the inode is pinned in the log or its flush lock is held, and
	// otherwise flushes the inode, with its cluster's other dirty inodes, into the
	// inode cluster buffer as a delayed write (xfs_iflush), whose flush lock stays
	// held until xfsbufd writes the buffer. Off: an XFS without ->write_inode
	// (4.x and 6.1 log every inode change in a transaction), which never fails.
	XFSWriteInodeFlush bool

	// Ext3JbdBuffers is ext3's own driver with jbd (2.6.x to 4.2; from 4.3 ext3
	// mounts go to ext4 with jbd2) as its sources have it: kjournald writes a
	// data=ordered commit's data by buffer (journal_submit_data_buffers:
	// trylock_buffer, submit_bh, no PG_writeback; the page stays dirty), so
	// ->writepage (__block_write_full_page) meets buffers kjournald holds locked,
	// which WB_SYNC_NONE writeback skips from 2.6.37 on (redirty_page_for_writepage:
	// pages_skipped, NR_DIRTIED again), and buffers it already wrote, which it ends
	// under writeback without IO; both count in NR_WRITTEN. No preset has it: with
	// it the model's flusher passes over kjournald's locked buffers about once per
	// page per commit (many times with Wu 2011's patches 4 and 5), and ext3's
	// harness write_bw runs 15-60 % above the thread's (README, "ext3's ordered
	// data"). Off: kjournald writes the transaction's data as page writeback.
	Ext3JbdBuffers bool
}

// Switch is one kernel switch: a behaviour the source threads change, with where
// it comes from. Switches is the one table the CLI's --help, the page's kernel
// controls and the docs read; adding a switch is a Variants field plus one row.
type Switch struct {
	Name   string // the Config "variants" key and the label in the CLI and the page
	Doc    string // one line: what the switch changes
	Models string // the kernel function(s) and version the switched-on behaviour models
	Source string // the commit or thread it comes from
	// Field is the switch's Variants field.
	Field func(*Variants) *bool
}

// The source threads (../shared/threads/).
const (
	threadChinner = "chinner-2010-write_cache_pages-nr_to_write.txt"
	threadWu      = "wu-2011-more_io_wait-thread.txt"
	threadAxboe   = "axboe-2009-per-bdi-flusher-threads.txt"
	threadKara    = "kara-2016-wbt-ext3-discussion.txt"
	notesV6       = "kernel-notes.md (v6.x paragraphs); Linux 6.1 sources"
)

// Switches is the table of kernel switches, in the order the page shows them.
var Switches = []Switch{
	{"wcp_terminate_le0", "write_cache_pages stops at --nr_to_write <= 0 (Chinner's 2.6.36 fix)",
		"write_cache_pages, mm/page-writeback.c v2.6.36", "commit 546a1924, " + threadChinner,
		func(v *Variants) *bool { return &v.WCPTerminateLE0 }},
	{"scaled_chunk", "writeback_chunk_size scales with bandwidth and dirty limit (v3.1+) instead of 4 MB",
		"writeback_chunk_size, fs/fs-writeback.c v3.1", "Wu's IO-less series (v3.1 merge), " + threadWu,
		func(v *Variants) *bool { return &v.ScaledChunk }},
	{"ext4_writeback_bump", "ext4_da_writepages raises nr_to_write to 128 MB of contiguous dirty pages (2.6.32+); off: 16 pages (2.6.30)",
		"ext4_da_writepages, fs/ext4/inode.c v2.6.32+ (off: v2.6.30 s_mb_stream_request raise)",
		"ext4 in 2.6.32 (larger contiguous ext4_da_writepages chunks); off in the 2.6.30 presets of " + threadAxboe,
		func(v *Variants) *bool { return &v.Ext4WritebackBump }},
	{"more_io_wait", "Wu 2011 patch 1: b_more_io_wait list + requeue_io_wait (spliced into b_io, not looped on)",
		"queue_io, requeue_io_wait, wb_writeback, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 1/7, " + threadWu,
		func(v *Variants) *bool { return &v.MoreIOWait }},
	{"write_inode_requeue_wait", "Wu 2011 patch 2: inode left dirty by ->write_inode → requeue_io_wait, not redirty_tail",
		"writeback_single_inode, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 2/7 (Hellwig), " + threadWu,
		func(v *Variants) *bool { return &v.WriteInodeRequeueWait }},
	{"last_active_progress", "Wu 2011 patch 3: wb->last_active moves on pages or inodes written",
		"wb_writeback, wb_do_writeback, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 3/7 (Kara), " + threadWu,
		func(v *Variants) *bool { return &v.LastActiveProgress }},
	{"kupdate_retry_early", "Wu 2011 patch 4: kupdate retries b_more_io_wait early, pause doubling up to dirty_writeback_interval",
		"wb_check_old_data_flush, bdi_writeback_thread, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 4/7 (Kara), " + threadWu,
		func(v *Variants) *bool { return &v.KupdateRetryEarly }},
	{"pages_skipped_requeue_wait", "Wu 2011 patch 5: pages_skipped inode → requeue_io_wait, not redirty_tail",
		"writeback_sb_inodes, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 5/7, " + threadWu,
		func(v *Variants) *bool { return &v.PagesSkippedRequeueWait }},
	{"blocked_requeue_wait", "Wu 2011 patch 6: blocked inode (dirty pages, slice not used up) → requeue_io_wait",
		"writeback_single_inode, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 6/7, " + threadWu,
		func(v *Variants) *bool { return &v.BlockedRequeueWait }},
	{"grab_super_requeue_wait", "Wu 2011 patch 7: failed superblock grab → requeue_io_wait (no effect: one sb, never unmounted)",
		"__writeback_inodes_wb, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu 2011 patch 7/7, " + threadWu,
		func(v *Variants) *bool { return &v.GrabSuperRequeueWait }},
	{"i_sync_requeue_wait", "Kara 2011: inode under I_SYNC → requeue_io_wait; wb_writeback warns (counts) busy loops instead of waiting",
		"writeback_single_inode, wb_writeback, fs/fs-writeback.c (3.1-rc9 + patch)", "Kara, \"writeback: requeue_io_wait() when I_SYNC is set\", " + threadWu,
		func(v *Variants) *bool { return &v.ISyncRequeueWait }},
	{"no_redirty_on_pages_skipped", "Wu 2011: remove redirty_tail() on pages_skipped in writeback_sb_inodes",
		"writeback_sb_inodes, fs/fs-writeback.c (3.1-rc9 + patch)", "Wu, \"remove redirty_tail() on pages_skipped\", " + threadWu,
		func(v *Variants) *bool { return &v.NoRedirtyOnPagesSkipped }},
	{"remove_more_io_wait", "Wu 2011 follow-up: requeue_io_wait ≡ requeue_io, wb_writeback exits on a pass without progress",
		"requeue_io_wait, wb_writeback, fs/fs-writeback.c (3.1-rc9 + diff)", "Wu's follow-up diff, " + threadWu,
		func(v *Variants) *bool { return &v.RemoveMoreIOWait }},
	{"pdflush", "2.6.30: pdflush thread pool, background_writeout/wb_kupdate (off: Axboe's per-bdi flushers)",
		"mm/pdflush.c, background_writeout, wb_kupdate, mm/page-writeback.c v2.6.30", threadAxboe,
		func(v *Variants) *bool { return &v.Pdflush }},
	{"io_full_throttle", "pre-3.2 balance_dirty_pages: the dirtier writes back pages itself (off: IO-less throttling)",
		"balance_dirty_pages, mm/page-writeback.c v2.6.30-v3.1", "replaced by Wu's IO-less throttling (v3.2), " + threadWu,
		func(v *Variants) *bool { return &v.IOFullThrottle }},
	{"io_full_pause_backoff", "2.6.35-3.1 IO-full loop: write back only above the bdi limit, io_schedule_timeout pauses 1 jiffy..HZ/10 (off: 2.6.30)",
		"balance_dirty_pages, mm/page-writeback.c v2.6.35-v3.1", "2.6.35 balance_dirty_pages; on in the 2.6.36 presets of " + threadChinner,
		func(v *Variants) *bool { return &v.IOFullPauseBackoff }},
	{"wbt", "blk-wbt on for every disk (the 4.6+wbt presets, 6.1); a disk's wbt= key still overrides it",
		"blk-wbt, block/blk-wb.c (2016 drafts) / block/blk-wbt.c", threadKara,
		func(v *Variants) *bool { return &v.WBT }},
	{"wbt_draft", "blk-wbt 2016 draft semantics",
		"wb-buf-throttle draft of 2016 (unsigned scale_step, wake one)", threadKara,
		func(v *Variants) *bool { return &v.WBTDraft }},
	{"wbt_qd1", "blk-wbt QD=1 patch (Axboe 2016): limits 2/2/1 and 1/1/1 scaled down",
		"calc_wb_limits, blk-wbt draft 2016 + QD=1 patch", threadKara,
		func(v *Variants) *bool { return &v.WBTQD1 }},
	{"xfs_write_inode_flush", "XFS ->write_inode (2.6.30-3.1): EAGAIN while the inode is pinned in the log or flush-locked; else xfs_iflush into the cluster buffer, flush-locked until xfsbufd writes it (off: no ->write_inode, 4.x/6.1)",
		"xfs_fs_write_inode, xfs_iflush_cluster, fs/xfs/xfs_super.c, xfs_inode.c v3.1; xfs_sync_worker, xfsbufd (xfs_buf_age_centisecs)", "XFS of 2.6.30-3.1; " + threadWu,
		func(v *Variants) *bool { return &v.XFSWriteInodeFlush }},
	{"ext3_jbd_buffers", "ext3's jbd as its sources have it (2.6.x-4.2): kjournald writes ordered data by buffer; ->writepage skips the buffers it holds (pages_skipped) and ends the ones it wrote without IO, both in NR_WRITTEN (no preset: write_bw then runs far above the thread's)",
		"journal_submit_data_buffers, fs/jbd/commit.c; __block_write_full_page, fs/buffer.c; redirty_page_for_writepage, mm/page-writeback.c v3.1",
		"ext3 of 2.6.x-4.2; " + threadWu + " (T2's ext3 cells)",
		func(v *Variants) *bool { return &v.Ext3JbdBuffers }},
	{"wbc_nonblocking", "pre-2.6.37: WB_SYNC_NONE writeback blocks on busy locks unless wbc->nonblocking (2.6.30 pdflush)",
		"wbc->nonblocking users (xfs_map_blocks, write_cache_pages), v2.6.30-v2.6.36", "Wu, \"remove wbc->nonblocking\" (2.6.37)",
		func(v *Variants) *bool { return &v.WbcNonblocking }},
	{"dirtied_before_each_loop", "v6: background work's dirtied_before = jiffies on every wb_writeback loop (picks up newly dirtied inodes)",
		"wb_writeback, fs/fs-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.DirtiedBeforeEachLoop }},
	{"i_sync_queued", "v6: I_SYNC_QUEUED set by move_expired_inodes; __mark_inode_dirty leaves queued inodes in place",
		"move_expired_inodes, __mark_inode_dirty, fs/fs-writeback.c v5.9+", notesV6,
		func(v *Variants) *bool { return &v.ISyncQueued }},
	{"requeue_inode", "v6: requeue_inode() decision tree (pages_skipped decided first: redirty_tail dirty, drop clean)",
		"requeue_inode, fs/fs-writeback.c v3.5+", notesV6,
		func(v *Variants) *bool { return &v.RequeueInode }},
	{"sb_inodes_i_sync_check", "v6: I_SYNC check in writeback_sb_inodes (requeue_io + writeback_sb_inodes_requeue, or sleep for sync)",
		"writeback_sb_inodes, fs/fs-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.SbInodesISyncCheck }},
	{"workqueue_flusher", "v6: wb_workfn work item: immediate/delayed wakeups (pending delayed wakeup not moved), wb_check_start_all",
		"wb_workfn, wb_wakeup_delayed, wb_do_writeback, fs/fs-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.WorkqueueFlusher }},
	{"bandwidth_from_writepages", "v6: write bandwidth updated from do_writepages and IO completion, not wb_writeback",
		"do_writepages, wb_update_bandwidth, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.BandwidthFromWritepages }},
	{"wrote_minus_skipped", "v6: writeback_sb_inodes counts write_chunk - nr_to_write - pages_skipped (floored at 0)",
		"writeback_sb_inodes, fs/fs-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.WroteMinusSkipped }},
	{"domain_dirty_limits", "v6: domain_dirty_limits converts dirty ratios per PAGE_SIZE before scaling available memory",
		"domain_dirty_limits, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.DomainDirtyLimits }},
	{"pos_ratio_clamp", "v6: pos_ratio_polynom clamped to [0, 2.0], divisions by (x | 1)",
		"pos_ratio_polynom, wb_position_ratio, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.PosRatioClamp }},
	{"bdp_think_time", "v6: balance_dirty_pages think-time compensation (dirty_paused_when), wb_min_pause, kick before freerun",
		"balance_dirty_pages, wb_min_pause, mm/page-writeback.c v3.3+ / v6.1", notesV6,
		func(v *Variants) *bool { return &v.BdpThinkTime }},
	{"wb_max_pause", "v6: wb_max_pause = min(wb_dirty / (1 + bw/roundup_pow_of_two(1+HZ/8)) + 1, 200 ms)",
		"wb_max_pause, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.WbMaxPause }},
	{"dirty_exceeded_v6", "v6: dirty_exceeded = wb_dirty > wb_thresh && dirty > thresh (v3.2: ||)",
		"balance_dirty_pages, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.DirtyExceededV6 }},
	{"balanced_rate_cap", "v6: balanced_dirty_ratelimit capped at write_bw",
		"wb_update_dirty_ratelimit, mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.BalancedRateCap }},
	{"fprop_completions", "v3.5+: writeout fraction from flex proportions halved every 3 s (off: prop_local_percpu, 2.6.24-3.4)",
		"__bdi_writeout_inc, bdi_writeout_fraction, writeout_period, mm/page-writeback.c v6.1; lib/flex_proportions.c", notesV6,
		func(v *Variants) *bool { return &v.FpropCompletions }},
	{"strictlimit_cap", "3.12+: BDI_CAP_STRICTLIMIT bdis are throttled against their own limit",
		"balance_dirty_pages, wb_position_ratio (strictlimit branches), mm/page-writeback.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.StrictLimitCap }},
	{"bdp_global_exit", "3.2-rc before Wu's hard throttle (1df647197c5b): balance_dirty_pages leaves its loop under the global hard limit, even at task_ratelimit 0",
		"balance_dirty_pages, mm/page-writeback.c v3.2-rc (before 1df647197c5b)", "commit 1df647197c5b (v3.2), \"writeback: hard throttle 1000+ dd on a slow USB stick\"",
		func(v *Variants) *bool { return &v.BdpGlobalExit }},
	{"bdi_knobs_v63", "6.3+: /sys/class/bdi strict_limit, min_bytes and max_bytes (ratios in parts per million)",
		"bdi_set_strict_limit, bdi_set_max_bytes, bdi_ratio_from_pages, mm/page-writeback.c v6.3", "Stefan Roesch's bdi knob series (v6.3)",
		func(v *Variants) *bool { return &v.BdiKnobsV63 }},
	{"dirtyable_lru_anon", "2.6.28-2.6.31: dirtyable memory counts anonymous pages even without swap (global_lru_pages)",
		"determine_dirtyable_memory, mm/page-writeback.c v2.6.30", "v2.6.32 global_reclaimable_pages replaced global_lru_pages there",
		func(v *Variants) *bool { return &v.DirtyableLRUAnon }},
	{"dirtyable_no_anon", "3.14+: dirtyable memory is free + file LRU - reserve, never anonymous pages",
		"global_dirtyable_memory, mm/page-writeback.c v3.14 / v6.1", "commit a1c3bfb2 (v3.14), \"do not count anon pages as dirtyable memory\"",
		func(v *Variants) *bool { return &v.DirtyableNoAnon }},
	{"watermark_scale", "4.6+: zone watermarks spaced by watermark_scale_factor (0.1 % of memory) instead of min/4",
		"__setup_per_zone_wmarks, mm/page_alloc.c v4.6", "commit 795ae7a0 (v4.6), watermark_scale_factor",
		func(v *Variants) *bool { return &v.WatermarkScale }},
	{"wait_iff_congested", "2.6.37-5.15: direct reclaim naps only while a bdi is congested and the zone is marked congested",
		"wait_iff_congested, mm/backing-dev.c; do_try_to_free_pages, shrink_page_list, mm/vmscan.c v3.1", "commit 0e093d99 (v2.6.37)",
		func(v *Variants) *bool { return &v.WaitIffCongested }},
	{"reclaim_throttle", "5.16+: reclaim_throttle on writeback (kswapd, HZ/10) and congestion/no progress (direct, 1 jiffy)",
		"reclaim_throttle, shrink_node, shrink_folio_list, mm/vmscan.c v6.1", "Mel Gorman's reclaim throttling series (v5.16)",
		func(v *Variants) *bool { return &v.ReclaimThrottle }},
	{"wbt_v6", "blk-wbt v6 limits: max_depth <= 2 → normal = max, background = 1",
		"rq_depth_calc_max_depth, calc_wb_limits, block/blk-wbt.c v6.1", notesV6,
		func(v *Variants) *bool { return &v.WBTV6 }},
	{"block_v6", "v6 block layer set by the kernel: blk-mq tags, max_sectors_kb 1280, plug 32 requests / 128 KiB",
		"blk-mq, BLK_DEF_MAX_SECTORS_CAP, blk_mq_submit_bio plugging, v6.1", notesV6,
		func(v *Variants) *bool { return &v.BlockV6 }},
	{"trace_v66", "trace lines in the v6.6 wording (cgroup_ino, no unstable=, period/think); off: v3.2 wording for old scripts",
		"include/trace/events/writeback.h v6.6", notesV6,
		func(v *Variants) *bool { return &v.TraceV66 }},
}

// LookupSwitch finds a switch by name.
func LookupSwitch(name string) (Switch, bool) {
	for _, sw := range Switches {
		if sw.Name == name {
			return sw, true
		}
	}
	return Switch{}, false
}

// VariantNames lists the switch names, sorted.
func VariantNames() []string {
	out := make([]string, 0, len(Switches))
	for _, sw := range Switches {
		out = append(out, sw.Name)
	}
	sort.Strings(out)
	return out
}

// Get reads a switch by name.
func (v Variants) Get(name string) (bool, bool) {
	sw, ok := LookupSwitch(name)
	if !ok {
		return false, false
	}
	return *sw.Field(&v), true
}

// Overrides set individual switches on top of a preset, by name.
type Overrides map[string]bool

// Validate checks that every name is a switch.
func (o Overrides) Validate() error {
	for _, k := range sortedNames(o) {
		if _, ok := LookupSwitch(k); !ok {
			return fmt.Errorf("%q is not a kernel switch (switches: %s)", k, strings.Join(VariantNames(), ", "))
		}
	}
	return nil
}

// Apply returns v with the overrides set.
func (o Overrides) Apply(v Variants) (Variants, error) {
	if err := o.Validate(); err != nil {
		return v, err
	}
	for k, b := range o {
		sw, _ := LookupSwitch(k)
		*sw.Field(&v) = b
	}
	return v, nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Preset is a named kernel: its switches and where it comes from.
type Preset struct {
	Name     string
	Doc      string
	Variants Variants
}

// DefaultPreset is the kernel of the Wu 2011 baseline (v3.2 writeback semantics).
const DefaultPreset = "3.1.0-rc9-ioless-full"

// v32 is the v3.2 writeback code the Wu 2011 series was written against.
var v32 = Variants{WCPTerminateLE0: true, ScaledChunk: true, Ext4WritebackBump: true, WaitIffCongested: true,
	XFSWriteInodeFlush: true}

// v46 is v4.6's base: v3.2's writeback with the reclaim and dirtyable-memory
// rules of 3.14 and 4.6.
func v46() Variants {
	v := v32
	v.DirtyableNoAnon, v.WatermarkScale = true, true
	return v
}

// wu2011 composes the Wu 2011 series on top of the baseline: patches by number
// (1-7), plus Kara's I_SYNC patch, "remove redirty_tail() on pages_skipped" and the
// removal of b_more_io_wait.
func wu2011(patches []int, iSync, noRedirtySkipped, removeList bool) Variants {
	v := v32
	for _, p := range patches {
		switch p {
		case 1:
			v.MoreIOWait = true
		case 2:
			v.WriteInodeRequeueWait = true
		case 3:
			v.LastActiveProgress = true
		case 4:
			v.KupdateRetryEarly = true
		case 5:
			v.PagesSkippedRequeueWait = true
		case 6:
			v.BlockedRequeueWait = true
		case 7:
			v.GrabSuperRequeueWait = true
		}
	}
	v.ISyncRequeueWait, v.NoRedirtyOnPagesSkipped, v.RemoveMoreIOWait = iSync, noRedirtySkipped, removeList
	return v
}

// wu2011Prefix is the release string prefix of the Wu 2011 kernels; the harness
// prints them as PREFIX-NAME-next-20111014+.
const wu2011Prefix = "3.1.0-rc9-ioless-full"

var presets = []Preset{
	{Name: wu2011Prefix, Doc: "Wu 2011 baseline: v3.2 writeback with IO-less balance_dirty_pages",
		Variants: v32},
	// The compositions below are from Wu's result mail of 2011-10-2x in the thread:
	// "Overall throughput increases +1.2% if applying only patches 1-4"
	// (ioless-full vs more_io_wait-5); "after the patchset ... replacing patch 5 with
	// another patch to remove redirty_tail() on pages_skipped" (more_io_wait vs
	// more_io_wait-7); "patches 1-4 VS patches 1-4 plus requeue_io_wait() on I_SYNC"
	// (-5 vs -9); "patches 1-4 VS patches 1-4,7 and remove redirty_tail() on
	// pages_skipped" (-5 vs -8); "patches 1-4 VS patches 1-4,6 and remove ..." (-5 vs
	// -6); "patches 1-4 VS patches 1-4,6,7 and remove ..." (-5 vs -7).
	{Name: wu2011Prefix + "-more_io_wait-5", Doc: "Wu 2011 patches 1-4 (the part pushed to linux-next)",
		Variants: wu2011([]int{1, 2, 3, 4}, false, false, false)},
	{Name: wu2011Prefix + "-more_io_wait", Doc: "Wu 2011 patches 1-7 (the posted series)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, false, false, false)},
	{Name: wu2011Prefix + "-more_io_wait-6", Doc: "Wu 2011 patches 1-4, 6 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 6}, false, true, false)},
	{Name: wu2011Prefix + "-more_io_wait-7", Doc: "Wu 2011 patches 1-4, 6, 7 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 6, 7}, false, true, false)},
	{Name: wu2011Prefix + "-more_io_wait-8", Doc: "Wu 2011 patches 1-4, 7 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 7}, false, true, false)},
	{Name: wu2011Prefix + "-more_io_wait-9", Doc: "Wu 2011 patches 1-4 plus Kara's requeue_io_wait() on I_SYNC",
		Variants: wu2011([]int{1, 2, 3, 4}, true, false, false)},
	// -x and -x2 are the kernels of the b_more_io_wait removal experiment, whose
	// result mails are omitted from the thread copy; their composition is
	// reconstructed from the mails before them: -x is the whole series with Kara's
	// I_SYNC patch ("with the I_SYNC case converted, it's actually no longer
	// necessary to keep a standalone b_more_io_wait"), -x2 the same with Wu's diff
	// applied (requeue_io_wait ≡ requeue_io, exit on no progress).
	{Name: wu2011Prefix + "-more_io_wait-x", Doc: "Wu 2011 patches 1-7 plus Kara's I_SYNC patch (reconstructed)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, false)},
	{Name: wu2011Prefix + "-more_io_wait-x2", Doc: "-x with b_more_io_wait removed again (Wu's diff; reconstructed)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, true)},

	// Chinner 2010 (../threads/chinner-2010-write_cache_pages-nr_to_write.txt):
	// 2.6.36-rc1 has per-bdi flushers, IO-full balance_dirty_pages,
	// MAX_WRITEBACK_PAGES chunks and the old termination rule.
	{Name: "2.6.36-rc1", Doc: "Chinner 2010: write_cache_pages never stops once ->writepage drove nr_to_write ≤ 0",
		Variants: Variants{IOFullThrottle: true, IOFullPauseBackoff: true, WbcNonblocking: true, Ext4WritebackBump: true, XFSWriteInodeFlush: true}},
	{Name: "2.6.36-rc1+fix", Doc: "Chinner 2010: 2.6.36-rc1 with commit 546a1924 (stop at --nr_to_write <= 0)",
		Variants: Variants{WCPTerminateLE0: true, IOFullThrottle: true, IOFullPauseBackoff: true, WbcNonblocking: true, Ext4WritebackBump: true, XFSWriteInodeFlush: true}},

	// Axboe 2009 (../threads/axboe-2009-per-bdi-flusher-threads.txt): 2.6.30-rc6 with
	// pdflush, and with the per-bdi flusher threads and their work list (the v3.2
	// flusher stands in for the patch set's; both keep IO-full throttling,
	// MAX_WRITEBACK_PAGES chunks and the old write_cache_pages rule). The per-bdi
	// kernel has the switches of 2.6.36-rc1: the model does not tell them apart,
	// and PresetFor names the earlier one.
	{Name: "2.6.30-rc6", Doc: "Axboe 2009 baseline: pdflush pool, background_writeout/wb_kupdate, congestion waits, IO-full throttling",
		Variants: Variants{Pdflush: true, IOFullThrottle: true, WbcNonblocking: true, DirtyableLRUAnon: true, XFSWriteInodeFlush: true}},
	{Name: "2.6.30-rc6+per-bdi", Doc: "Axboe 2009: per-bdi flusher threads with a work list (IO-full throttling)",
		Variants: Variants{IOFullThrottle: true, WbcNonblocking: true, DirtyableLRUAnon: true, XFSWriteInodeFlush: true}},

	// Kara/Axboe 2016 (../threads/kara-2016-wbt-ext3-discussion.txt): v4.6 with the
	// wb-buf-throttle drafts (RWB_DEF_DEPTH 64) and the QD=1 limits patch.
	{Name: "4.6", Doc: "Kara 2016: v4.6 without blk-wbt",
		Variants: withWBT(v46(), false, false, 0)},
	{Name: "4.6+wbt", Doc: "Kara 2016: v4.6 with the 2016 blk-wbt draft (depth 64)",
		Variants: withWBT(v46(), true, false, 64)},
	{Name: "4.6+wbt+qd1", Doc: "Kara 2016: v4.6 with blk-wbt and Axboe's QD=1 limits patch (2/2/1, 1/1/1)",
		Variants: withWBT(v46(), true, true, 64)},

	// Linux 6.1 (kernel-notes "v6.x" paragraphs of §1-§3, §6.3).
	{Name: "6.1", Doc: "Linux 6.1: dirtied_before per loop, requeue_inode, I_SYNC_QUEUED, wb_workfn, v6 bandwidth and throttling",
		Variants: v61()},
}

// v61 is Linux 6.1's writeback: the v3.2 code (no Wu 2011 RFC lists) with the
// v6.x rules of kernel-notes §1-§3 switched on.
func v61() Variants {
	v := v32
	v.DirtiedBeforeEachLoop, v.ISyncQueued, v.RequeueInode, v.SbInodesISyncCheck = true, true, true, true
	v.WorkqueueFlusher, v.BandwidthFromWritepages, v.WroteMinusSkipped = true, true, true
	v.DomainDirtyLimits, v.PosRatioClamp, v.BdpThinkTime = true, true, true
	v.WbMaxPause, v.DirtyExceededV6, v.BalancedRateCap = true, true, true
	v.FpropCompletions, v.StrictLimitCap = true, true
	v.DirtyableNoAnon, v.WatermarkScale, v.WaitIffCongested, v.ReclaimThrottle = true, true, false, true
	// blk-wbt on by default with the merged RWB_DEF_DEPTH 16, the QD=1 rule and
	// the v6 limits; blk-mq block layer
	v = withWBT(v, true, true, 16)
	v.WBTDraft, v.WBTV6, v.BlockV6 = false, true, true
	v.TraceV66 = true
	return v
}

// withWBT is v with the 2016 block layer of the 4.6 presets: 1280 KiB requests
// (BLK_DEF_MAX_SECTORS since v4.4) and blk-wbt on or off with its draft rules.
func withWBT(v Variants, on, qd1 bool, depth int) Variants {
	v.WBT, v.WBTDraft, v.WBTQD1, v.WBTDepth, v.MaxSectorsKB = on, on, qd1, depth, 1280
	v.XFSWriteInodeFlush = false // the 4.x XFS logs inode changes and has no ->write_inode
	return v
}

// Presets lists the kernel presets.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// LookupPreset finds a preset by name; a trailing '+' (a locally built kernel, as in
// the harness's release strings) and the Wu 2011 "-next-20111014" suffix are
// ignored, and the Wu 2011 kernels may be named by their short form as the thread's
// tables do ("ioless-full", "more_io_wait-5").
func LookupPreset(name string) (Preset, error) {
	n := strings.TrimSuffix(name, "+")
	n = strings.TrimSuffix(n, "-next-20111014") // the Wu 2011 harness's release strings
	for _, cand := range []string{n, wu2011Prefix + "-" + n, "3.1.0-rc9-" + n} {
		for _, p := range presets {
			if p.Name == cand {
				return p, nil
			}
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("%q is not a kernel preset (presets: %s)", name, strings.Join(names, ", "))
}

// PresetFor reports the preset whose switches equal v, if any (the first in the
// list when several kernels have the same switches).
func PresetFor(v Variants) (string, bool) {
	for _, p := range presets {
		if p.Variants == v {
			return p.Name, true
		}
	}
	return "", false
}
