package kernel

import "sort"

// Switch activity: every code path whose behaviour a kernel switch decides counts
// how often it ran, so a comparison can tell a change that made no difference
// from a change that never ran. Counters are kept for both kernels of a
// comparison: a path counts each time its decision point is reached, whichever
// way the switch sends it.

// Cause is why writeback_single_inode / writeback_sb_inodes put an inode back on
// a list.
type Cause uint8

// Requeue causes.
const (
	CauseSliceUsed    Cause = iota // dirty pages left, nr_to_write used up
	CauseBlocked                   // dirty pages left although nr_to_write was not used up
	CauseInodeDirty                // the inode is dirty again (->write_inode failed, fs redirtied it)
	CauseISync                     // someone else holds I_SYNC (WB_SYNC_NONE)
	CausePagesSkipped              // ->writepage redirtied pages (pages_skipped)
	CauseNewFreeing                // I_NEW / I_FREEING / I_WILL_FREE
	numCauses
)

var causeNames = [numCauses]string{"slice_used", "blocked", "inode_dirty", "i_sync", "pages_skipped", "new_or_freeing"}

// requeue operations
const (
	opRedirtyTail = iota
	opRequeueIO
	opRequeueIOWait
	numOps
)

var opNames = [numOps]string{"redirty_tail", "requeue_io", "requeue_io_wait"}

// ActivityID is one counted path other than the requeues.
type ActivityID uint8

// Counted paths.
const (
	ActPagesSkipped         ActivityID = iota // writeback_single_inode calls that left pages_skipped > 0
	ActWriteInodeFailed                       // ->write_inode returned an error
	ActISyncSkip                              // WB_SYNC_NONE writeback found the inode under I_SYNC
	ActNoProgressMoreIO                       // wb_writeback pass without progress, b_more_io not empty
	ActInodeWaitWriteback                     // wb_writeback slept in inode_wait_for_writeback
	ActBusyLoop                               // wb_writeback retried at once without progress
	ActMoreIOWaitOnly                         // pass without progress, only b_more_io_wait left: loop ends
	ActGrabSuperFailed                        // grab_super_passive failed
	ActWCPNrToWriteLE0                        // ->writepage calls write_cache_pages' check found nr_to_write <= 0
	ActChunkScaled                            // writeback_chunk_size calls where the scaled chunk is not 4 MB
	ActKupdateEarly                           // kupdate runs started early for b_more_io_wait, and retry sleeps
	ActLastActiveDiffers                      // flusher passes whose progress differs from pages written
	ActBdpIOFull                              // balance_dirty_pages calls in the IO-full design (dirtier writes back)
	ActBdpIOLess                              // balance_dirty_pages calls in the IO-less design
	ActLockBlocking                           // WB_SYNC_NONE ->writepage lock decisions that block (no wbc->nonblocking)
	ActLockTrylock                            // WB_SYNC_NONE ->writepage lock decisions that trylock
	ActMarkDirtyLeftQueued                    // __mark_inode_dirty left an I_SYNC_QUEUED inode in place
	ActMarkDirtyLeftISync                     // __mark_inode_dirty left an inode under I_SYNC in place
	ActBackgroundCutoff                       // background wb_writeback loops after the work's first jiffy
	ActWakeupDelayedKept                      // delayed flusher wakeups left pending (queue_delayed_work)
	ActExt4NrToWriteRaise                     // ext4_da_writepages calls that raised nr_to_write
	ActCongestionWait                         // congestion_wait sleeps (2.6.30 pdflush and balance_dirty_pages)
	ActDomainLimitsDiffer                     // global_dirty_limits calls where domain_dirty_limits' rounding differs
	ActPosRatioDiffers                        // position-ratio calls where the v6 clamp and | 1 divisors differ
	ActMaxPauseDiffers                        // max-pause calls where wb_max_pause differs from bdi_max_pause
	ActDirtyExceededDiffers                   // dirty_exceeded decisions where && (v6) and || (v3.2) differ
	ActBalancedAboveWriteBW                   // ratelimit updates whose balanced rate exceeds write_bw (the v6 cap)
	ActBandwidthUpdate                        // write-bandwidth updates (where the switch puts them)
	ActBdpStrictLimit                         // IO-less balance_dirty_pages calls on a strictlimit bdi
	ActWriteoutSeveralBdis                    // completions counted into the writeout fraction of one of several bdis
	ActFlusherIdle                            // flusher runs that ended idle (how it sleeps and is woken is switched)
	ActBdpLoopExitDiffers                     // balance_dirty_pages loop exits where the hard-throttle and global rules differ
	ActDirtyableAnon                          // dirty-limit computations of the page-reclaim model with anonymous memory
	ActZoneWatermarks                         // zone watermarks set up (page-reclaim model)
	ActReclaimPassEnd                         // reclaim priority passes whose end decides a throttle (page-reclaim model)
	ActXFSWriteInodeBusy                      // XFS ->write_inode calls that found the inode pinned or flush-locked
	ActExt3KjournaldBuffers                   // ext3 ->writepage runs on buffers kjournald wrote (skipped or ended without IO)
	numActivities
)

// ActivityPath describes one counted path: its name in switch_activity, what it
// counts and the switches that decide what it does.
type ActivityPath struct {
	Name     string
	Doc      string
	Switches []string
}

var requeueSwitches = [numCauses][]string{
	CauseSliceUsed:    {"requeue_inode"},
	CauseBlocked:      {"blocked_requeue_wait", "requeue_inode", "more_io_wait", "remove_more_io_wait"},
	CauseInodeDirty:   {"write_inode_requeue_wait", "requeue_inode", "more_io_wait", "remove_more_io_wait"},
	CauseISync:        {"i_sync_requeue_wait", "sb_inodes_i_sync_check", "more_io_wait", "remove_more_io_wait"},
	CausePagesSkipped: {"pages_skipped_requeue_wait", "no_redirty_on_pages_skipped", "requeue_inode", "more_io_wait", "remove_more_io_wait"},
	CauseNewFreeing:   nil,
}

var requeueDocs = [numCauses]string{
	CauseSliceUsed:    "dirty pages left after the slice (nr_to_write <= 0)",
	CauseBlocked:      "dirty pages left although the slice was not used up",
	CauseInodeDirty:   "the inode was dirty again after writeback (->write_inode failed, fs redirtied it)",
	CauseISync:        "the inode was under I_SYNC (another writer)",
	CausePagesSkipped: "->writepage redirtied pages (pages_skipped)",
	CauseNewFreeing:   "I_NEW, I_FREEING or I_WILL_FREE",
}

var activityPaths = [numActivities]ActivityPath{
	ActPagesSkipped:         {"pages_skipped", "writeback_single_inode calls that ended with pages_skipped > 0", []string{"pages_skipped_requeue_wait", "no_redirty_on_pages_skipped", "requeue_inode", "wrote_minus_skipped"}},
	ActWriteInodeFailed:     {"write_inode_failed", "->write_inode calls that failed (XFS EAGAIN: ILOCK busy, inode pinned or flush-locked)", []string{"write_inode_requeue_wait"}},
	ActISyncSkip:            {"i_sync_skip", "WB_SYNC_NONE writebacks that found the inode under I_SYNC", []string{"i_sync_requeue_wait", "sb_inodes_i_sync_check"}},
	ActNoProgressMoreIO:     {"wb_writeback.no_progress_more_io", "wb_writeback passes without progress with b_more_io not empty (wait, busy loop or exit)", []string{"i_sync_requeue_wait", "remove_more_io_wait"}},
	ActInodeWaitWriteback:   {"inode_wait_for_writeback", "wb_writeback sleeps on the I_SYNC of b_more_io's tail", []string{"i_sync_requeue_wait", "remove_more_io_wait"}},
	ActBusyLoop:             {"wb_writeback.busy_loop", "wb_writeback passes retried at once without progress", []string{"i_sync_requeue_wait", "remove_more_io_wait"}},
	ActMoreIOWaitOnly:       {"wb_writeback.more_io_wait_only", "passes without progress that end with only b_more_io_wait inodes left", []string{"more_io_wait"}},
	ActGrabSuperFailed:      {"grab_super_failed", "grab_super_passive failures (one superblock, never unmounted: cannot fire)", []string{"grab_super_requeue_wait"}},
	ActWCPNrToWriteLE0:      {"write_cache_pages.nr_to_write_le0", "->writepage calls after which write_cache_pages found nr_to_write <= 0 (2.6.36-rc1 continues, the fix stops)", []string{"wcp_terminate_le0"}},
	ActChunkScaled:          {"writeback_chunk_size.scaled", "writeback_chunk_size calls where the scaled chunk is not MAX_WRITEBACK_PAGES", []string{"scaled_chunk"}},
	ActKupdateEarly:         {"kupdate.retry_early", "kupdate runs started early while b_more_io_wait is not empty, and the short retry sleeps", []string{"kupdate_retry_early"}},
	ActLastActiveDiffers:    {"last_active.progress_differs", "flusher passes whose progress (pages plus inodes cleaned) differs from pages written", []string{"last_active_progress"}},
	ActBdpIOFull:            {"balance_dirty_pages.io_full", "balance_dirty_pages calls where the dirtier writes back itself (IO-full)", []string{"io_full_throttle", "io_full_pause_backoff"}},
	ActBdpIOLess:            {"balance_dirty_pages.io_less", "balance_dirty_pages calls of the IO-less design (the v3.2 or the v3.3+/v6 think-time loop)", []string{"io_full_throttle", "bdp_think_time"}},
	ActLockBlocking:         {"writepage_lock.blocking", "WB_SYNC_NONE ->writepage lock decisions that wait (no wbc->nonblocking)", []string{"wbc_nonblocking"}},
	ActLockTrylock:          {"writepage_lock.trylock", "WB_SYNC_NONE ->writepage lock decisions that trylock", []string{"wbc_nonblocking"}},
	ActMarkDirtyLeftQueued:  {"mark_inode_dirty.left_queued", "__mark_inode_dirty calls that left an I_SYNC_QUEUED inode in place", []string{"i_sync_queued"}},
	ActMarkDirtyLeftISync:   {"mark_inode_dirty.left_i_sync", "__mark_inode_dirty calls that left an inode under I_SYNC in place", []string{"i_sync_queued"}},
	ActBackgroundCutoff:     {"background.later_loops", "background wb_writeback loops after the work's first jiffy (start-of-work vs per-loop cut-off)", []string{"dirtied_before_each_loop"}},
	ActWakeupDelayedKept:    {"wb_wakeup_delayed.kept_pending", "delayed flusher wakeups that left a pending timer alone", []string{"workqueue_flusher"}},
	ActExt4NrToWriteRaise:   {"ext4_da_writepages.nr_to_write_raise", "ext4_da_writepages calls that raised nr_to_write (the 128 MB bump, or 2.6.30's s_mb_stream_request)", []string{"ext4_writeback_bump"}},
	ActCongestionWait:       {"congestion_wait", "congestion_wait(WRITE, HZ/10) sleeps of 2.6.30's pdflush and balance_dirty_pages", []string{"pdflush", "io_full_throttle", "io_full_pause_backoff"}},
	ActDomainLimitsDiffer:   {"domain_dirty_limits.rounding_differs", "global_dirty_limits calls where converting the ratios per PAGE_SIZE (v6) gives other thresholds than ratio * avail / 100", []string{"domain_dirty_limits"}},
	ActPosRatioDiffers:      {"pos_ratio.v6_differs", "balance_dirty_pages and ratelimit-update position ratios that the v6 clamp to [0, 2] and the | 1 divisors change", []string{"pos_ratio_clamp"}},
	ActMaxPauseDiffers:      {"max_pause.v6_differs", "balance_dirty_pages max-pause computations where wb_max_pause (v6) and bdi_max_pause (v3.2) differ", []string{"wb_max_pause"}},
	ActDirtyExceededDiffers: {"dirty_exceeded.v6_differs", "balance_dirty_pages dirty_exceeded decisions where v6's && and v3.2's || differ", []string{"dirty_exceeded_v6"}},
	ActBalancedAboveWriteBW: {"balanced_dirty_ratelimit.above_write_bw", "dirty-ratelimit updates whose balanced rate is above write_bw (v6 caps it there)", []string{"balanced_rate_cap"}},
	ActBandwidthUpdate:      {"write_bandwidth.updates", "write-bandwidth updates: from wb_writeback and balance_dirty_pages (v3.2), or do_writepages, IO completion and balance_dirty_pages (v6)", []string{"bandwidth_from_writepages"}},
	ActBdpStrictLimit:       {"balance_dirty_pages.strictlimit", "IO-less balance_dirty_pages calls on a BDI_CAP_STRICTLIMIT bdi", []string{"strictlimit_cap"}},
	ActBdpLoopExitDiffers:   {"balance_dirty_pages.loop_exit_differs", "decisions after a balance_dirty_pages pause where the hard-throttle exit (task_ratelimit != 0) and the 3.2-rc global exit (dirty < hard limit) differ", []string{"bdp_global_exit"}},
	ActDirtyableAnon:        {"dirtyable_memory.anon", "dirty-limit computations of the page-reclaim model on a machine with anonymous memory (whether it counts as dirtyable)", []string{"dirtyable_lru_anon", "dirtyable_no_anon"}},
	ActZoneWatermarks:       {"zone_watermarks.setup", "zone watermark setups of the page-reclaim model (min + min/4 or watermark_scale_factor spacing)", []string{"watermark_scale"}},
	ActReclaimPassEnd:       {"vmscan.pass_end", "kswapd and direct-reclaim priority passes whose end decides the throttle (congestion_wait, wait_iff_congested or reclaim_throttle)", []string{"wait_iff_congested", "reclaim_throttle"}},
	ActXFSWriteInodeBusy:    {"xfs_write_inode.pinned_or_flush_locked", "XFS ->write_inode (WB_SYNC_NONE, not kupdate) calls that found the inode pinned in the log or flush-locked (EAGAIN with xfs_iflush, 2.6.30-3.1)", []string{"xfs_write_inode_flush"}},
	ActExt3KjournaldBuffers: {"ext3_writepage.kjournald_buffers", "ext3 ->writepage runs on pages whose buffers kjournald wrote by buffer: still locked (skipped, pages_skipped) or clean (ended under writeback without IO)", []string{"ext3_jbd_buffers"}},
	ActWriteoutSeveralBdis:  {"writeout_fraction.completions", "completions counted into a bdi's writeout fraction on a machine with several disks (one disk: the fraction is 1)", []string{"fprop_completions"}},
	ActFlusherIdle:          {"flusher.idle", "flusher runs that ended with no work left: v6 wb_workfn returns after wb_wakeup_delayed, v3.2 bdi_writeback_thread sleeps dirty_writeback_interval", []string{"workqueue_flusher"}},
}

// UncountedSwitches names the switches with no counted path and why: compare
// cannot say of them that they never ran. TestEverySwitchCounted keeps this list
// and ActivityPaths covering every switch.
var UncountedSwitches = map[string]string{
	"block_v6": "decided once when the machine is built (the block layer of every disk: blk-mq tags, " +
		"max_sectors_kb, plugging); every request goes through it, so it runs whenever there is IO",
	"bdi_knobs_v63": "decides which bdi knobs the machine accepts and converts max_bytes/min_bytes once when it is built; " +
		"the knobs' effect is counted by their own paths (balance_dirty_pages.strictlimit, writeout_fraction.completions)",
	"trace_v66": "changes only the wording of trace lines, never the simulated run",
}

// pathsOutsideKernel are counted elsewhere (the pdflush pool, blk-wbt) and read
// into SwitchActivity.
var pathsOutsideKernel = []ActivityPath{
	{"pdflush.thread_start", "pdflush threads started at run time (beyond MIN_PDFLUSH_THREADS)", []string{"pdflush"}},
	{"pdflush.thread_exit", "pdflush threads that exited after a second idle", []string{"pdflush"}},
	{"pdflush.operations", "pdflush_operation calls (wb_kupdate from wb_timer, background_writeout from balance_dirty_pages), with or without an idle thread", []string{"pdflush"}},
	{"wbt_throttle.max", "writes that waited in wbt_wait under wb_max (sync, meta, recent wait)", []string{"wbt", "wbt_draft", "wbt_qd1", "wbt_v6"}},
	{"wbt_throttle.normal", "writes that waited in wbt_wait under wb_normal", []string{"wbt", "wbt_draft", "wbt_qd1", "wbt_v6"}},
	{"wbt_throttle.background", "writes that waited in wbt_wait under wb_background", []string{"wbt", "wbt_draft", "wbt_qd1", "wbt_v6"}},
}

// activity is the kernel's counters.
type activity struct {
	requeue [numOps][numCauses]int64
	n       [numActivities]int64
}

// fired counts one run of path id.
func (k *Kernel) fired(id ActivityID) { k.act.n[id]++ }

// Fired counts one run of path id from a filesystem's switch-guarded path.
func (k *Kernel) Fired(id ActivityID) { k.fired(id) }

// FiredN counts n runs of path id from a filesystem's switch-guarded path.
func (k *Kernel) FiredN(id ActivityID, n int64) { k.firedN(id, n) }

// firedN counts n runs of path id.
func (k *Kernel) firedN(id ActivityID, n int64) { k.act.n[id] += n }

// requeued counts a requeue operation by cause.
func (k *Kernel) requeued(op int, c Cause) { k.act.requeue[op][c]++ }

// ActivityPaths lists every counted path, sorted by name.
func ActivityPaths() []ActivityPath {
	var out []ActivityPath
	for op := range numOps {
		for c := range numCauses {
			out = append(out, ActivityPath{Name: opNames[op] + "." + causeNames[c],
				Doc: opNames[op] + ": " + requeueDocs[c], Switches: requeueSwitches[c]})
		}
	}
	out = append(out, activityPaths[:]...)
	out = append(out, pathsOutsideKernel...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SwitchActivity reports how often each switch-guarded path ran, by path name
// (every path, zeros included).
func (k *Kernel) SwitchActivity() map[string]int64 {
	m := make(map[string]int64, int(numOps*numCauses)+int(numActivities)+len(pathsOutsideKernel))
	for op := range numOps {
		for c := range numCauses {
			m[opNames[op]+"."+causeNames[c]] = k.act.requeue[op][c]
		}
	}
	for id, p := range activityPaths {
		m[p.Name] = k.act.n[id]
	}
	ps := k.PdflushStats()
	m["pdflush.thread_start"], m["pdflush.thread_exit"] = int64(ps.Started), int64(ps.Exited)
	m["pdflush.operations"] = ps.Operations + ps.Failed
	st := k.Q.WBT()
	m["wbt_throttle.max"], m["wbt_throttle.normal"], m["wbt_throttle.background"] =
		st.ThrottledMax, st.ThrottledNormal, st.ThrottledBackground
	return m
}

// NeverRan lists, of the switches that differ between a and b, those whose
// counted paths ran zero times in both runs' activity (sorted). Switches with no
// counted path are not listed: the model cannot tell.
func NeverRan(a, b Variants, actA, actB map[string]int64) []string {
	var out []string
	for _, name := range VariantNames() {
		va, _ := a.Get(name)
		vb, _ := b.Get(name)
		if va == vb {
			continue
		}
		counted, ran := false, false
		for _, p := range ActivityPaths() {
			for _, s := range p.Switches {
				if s == name {
					counted = true
					ran = ran || actA[p.Name] > 0 || actB[p.Name] > 0
				}
			}
		}
		if counted && !ran {
			out = append(out, name)
		}
	}
	return out
}
