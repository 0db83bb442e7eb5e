package kernel

import (
	"fmt"
	"strings"
	"sync"
)

// The source threads (../shared/threads/).
const (
	threadChinner = "chinner-2010-write_cache_pages-nr_to_write.txt"
	threadWu      = "wu-2011-more_io_wait-thread.txt"
	threadAxboe   = "axboe-2009-per-bdi-flusher-threads.txt"
	threadKara    = "kara-2016-wbt-ext3-discussion.txt"
	notesV6       = "kernel-notes.md (v6.x paragraphs); Linux 6.1 sources"
	notesV612     = "docs/linux-6.12-notes.md; Linux 6.12.118 sources"
)

// Preset is a named kernel: its switches and where it comes from.
type Preset struct {
	Name     string
	Doc      string
	Variants Variants
}

// DefaultPreset is the kernel of the Wu 2011 baseline (v3.2 writeback semantics).
const DefaultPreset = "3.1.0-rc9-ioless-full"

// v32 is the v3.2 writeback code the Wu 2011 series was written against (its
// filesystems' switches: fsV32).
var v32 = Variants{}.With(SwWCPTerminateLE0, swScaledChunk, swWaitIffCongested)

// The filesystems' switches (declared in engine/fs, so named here): the 2.6.32-3.x
// ext4 and the XFS of 2.6.30-3.1, which the 4.x kernels do not have.
const (
	fsExt4Bump = "ext4_writeback_bump"
	fsXFSFlush = "xfs_write_inode_flush"
)

var (
	fsV32 = []string{fsExt4Bump, fsXFSFlush}
	fsV4  = []string{fsExt4Bump}
	// fsV61 are 6.1's: jbd2's fsync and commit waits, XFS's fsync log force
	// (docs/linux-6.12-notes.md, read against the 6.1.192 sources) and XFS's iomap
	// buffered write (4.8)
	fsV61 = append(append([]string(nil), fsV4...), "jbd2_complete_transaction", "jbd2_wait_updates", "jbd2_req_idle", "ext4_write_handle_wait", "xfs_fsync_log_force", "xfs_iomap_write")
)

// v46 is v4.6's base: v3.2's writeback with the reclaim and dirtyable-memory
// rules of 3.14 and 4.6.
func v46() Variants { return v32.With(swDirtyableNoAnon, swWatermarkScale) }

// wu2011 composes the Wu 2011 series on top of the baseline: patches by number
// (1-7), plus Kara's I_SYNC patch, "remove redirty_tail() on pages_skipped" and the
// removal of b_more_io_wait.
func wu2011(patches []int, iSync, noRedirtySkipped, removeList bool) Variants {
	byNumber := [...]SwitchID{1: swMoreIOWait, 2: swWriteInodeRequeueWait, 3: swLastActiveProgress,
		4: swKupdateRetryEarly, 5: swPagesSkippedRequeueWait, 6: swBlockedRequeueWait, 7: swGrabSuperRequeueWait}
	v := v32
	for _, p := range patches {
		v.Set(byNumber[p], true)
	}
	v.Set(swISyncRequeueWait, iSync)
	v.Set(swNoRedirtyOnPagesSkipped, noRedirtySkipped)
	v.Set(swRemoveMoreIOWait, removeList)
	return v
}

// wu2011Prefix is the release string prefix of the Wu 2011 kernels; the harness
// prints them as PREFIX-NAME-next-20111014+.
const wu2011Prefix = "3.1.0-rc9-ioless-full"

// presetDef is a preset with its filesystems' switches by name.
type presetDef struct {
	Name, Doc string
	Variants  Variants // the kernel package's switches and block numbers
	fs        []string // switches declared in engine/fs, by name
}

var presetDefs = []presetDef{
	{Name: wu2011Prefix, Doc: "Wu 2011 baseline: v3.2 writeback with IO-less balance_dirty_pages",
		Variants: v32, fs: fsV32},
	// The compositions below are from Wu's result mail of 2011-10-2x in the thread:
	// "Overall throughput increases +1.2% if applying only patches 1-4"
	// (ioless-full vs more_io_wait-5); "after the patchset ... replacing patch 5 with
	// another patch to remove redirty_tail() on pages_skipped" (more_io_wait vs
	// more_io_wait-7); "patches 1-4 VS patches 1-4 plus requeue_io_wait() on I_SYNC"
	// (-5 vs -9); "patches 1-4 VS patches 1-4,7 and remove redirty_tail() on
	// pages_skipped" (-5 vs -8); "patches 1-4 VS patches 1-4,6 and remove ..." (-5 vs
	// -6); "patches 1-4 VS patches 1-4,6,7 and remove ..." (-5 vs -7).
	{Name: wu2011Prefix + "-more_io_wait-5", Doc: "Wu 2011 patches 1-4 (the part pushed to linux-next)",
		Variants: wu2011([]int{1, 2, 3, 4}, false, false, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait", Doc: "Wu 2011 patches 1-7 (the posted series)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, false, false, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait-6", Doc: "Wu 2011 patches 1-4, 6 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 6}, false, true, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait-7", Doc: "Wu 2011 patches 1-4, 6, 7 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 6, 7}, false, true, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait-8", Doc: "Wu 2011 patches 1-4, 7 and remove redirty_tail() on pages_skipped",
		Variants: wu2011([]int{1, 2, 3, 4, 7}, false, true, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait-9", Doc: "Wu 2011 patches 1-4 plus Kara's requeue_io_wait() on I_SYNC",
		Variants: wu2011([]int{1, 2, 3, 4}, true, false, false), fs: fsV32},
	// -x and -x2 are the kernels of the b_more_io_wait removal experiment, whose
	// result mails are omitted from the thread copy; their composition is
	// reconstructed from the mails before them: -x is the whole series with Kara's
	// I_SYNC patch ("with the I_SYNC case converted, it's actually no longer
	// necessary to keep a standalone b_more_io_wait"), -x2 the same with Wu's diff
	// applied (requeue_io_wait ≡ requeue_io, exit on no progress).
	{Name: wu2011Prefix + "-more_io_wait-x", Doc: "Wu 2011 patches 1-7 plus Kara's I_SYNC patch (reconstructed)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, false), fs: fsV32},
	{Name: wu2011Prefix + "-more_io_wait-x2", Doc: "-x with b_more_io_wait removed again (Wu's diff; reconstructed)",
		Variants: wu2011([]int{1, 2, 3, 4, 5, 6, 7}, true, false, true), fs: fsV32},

	// Chinner 2010 (../threads/chinner-2010-write_cache_pages-nr_to_write.txt):
	// 2.6.36-rc1 has per-bdi flushers, IO-full balance_dirty_pages,
	// MAX_WRITEBACK_PAGES chunks and the old termination rule.
	{Name: "2.6.36-rc1", Doc: "Chinner 2010: write_cache_pages never stops once ->writepage drove nr_to_write ≤ 0",
		Variants: Variants{}.With(swIOFullThrottle, swIOFullPauseBackoff, swWbcNonblocking), fs: fsV32},
	{Name: "2.6.36-rc1+fix", Doc: "Chinner 2010: 2.6.36-rc1 with commit 546a1924 (stop at --nr_to_write <= 0)",
		Variants: Variants{}.With(SwWCPTerminateLE0, swIOFullThrottle, swIOFullPauseBackoff, swWbcNonblocking), fs: fsV32},

	// Axboe 2009 (../threads/axboe-2009-per-bdi-flusher-threads.txt): 2.6.30-rc6 with
	// pdflush, and with the per-bdi flusher threads and their work list (the v3.2
	// flusher stands in for the patch set's; both keep IO-full throttling,
	// MAX_WRITEBACK_PAGES chunks and the old write_cache_pages rule). The per-bdi
	// kernel has the switches of 2.6.36-rc1: the model does not tell them apart,
	// and PresetFor names the earlier one.
	{Name: "2.6.30-rc6", Doc: "Axboe 2009 baseline: pdflush pool, background_writeout/wb_kupdate, congestion waits, IO-full throttling",
		Variants: Variants{}.With(swPdflush, swIOFullThrottle, swWbcNonblocking, swDirtyableLRUAnon), fs: []string{fsXFSFlush}},
	{Name: "2.6.30-rc6+per-bdi", Doc: "Axboe 2009: per-bdi flusher threads with a work list (IO-full throttling)",
		Variants: Variants{}.With(swIOFullThrottle, swWbcNonblocking, swDirtyableLRUAnon), fs: []string{fsXFSFlush}},

	// Kara/Axboe 2016 (../threads/kara-2016-wbt-ext3-discussion.txt): v4.6 with the
	// wb-buf-throttle drafts (RWB_DEF_DEPTH 64) and the QD=1 limits patch.
	{Name: "4.6", Doc: "Kara 2016: v4.6 without blk-wbt",
		Variants: withWBT(v46(), false, false, 0), fs: fsV4},
	{Name: "4.6+wbt", Doc: "Kara 2016: v4.6 with the 2016 blk-wbt draft (depth 64)",
		Variants: withWBT(v46(), true, false, 64), fs: fsV4},
	{Name: "4.6+wbt+qd1", Doc: "Kara 2016: v4.6 with blk-wbt and Axboe's QD=1 limits patch (2/2/1, 1/1/1)",
		Variants: withWBT(v46(), true, true, 64), fs: fsV4},

	// Linux 6.1 (kernel-notes "v6.x" paragraphs of §1-§3, §6.3).
	{Name: "6.1", Doc: "Linux 6.1: dirtied_before per loop, requeue_inode, I_SYNC_QUEUED, wb_workfn, v6 bandwidth and throttling",
		Variants: v61(), fs: fsV61},
	// Linux 6.12 (docs/linux-6.12-notes.md, read against the 6.12.118 sources).
	{Name: "6.12", Doc: "Linux 6.12.118: 6.1 plus requeue_inode's dirtied_before, wb_writeback's queued, the 6.2 bdi knobs, XFS large folios and one-bio ioends",
		Variants: v612(), fs: fsV612},
}

// fsV612 are 6.12's filesystem switches: 6.1's, XFS's large folios (6.6) and
// one-bio ioends (6.8).
var fsV612 = append(append([]string(nil), fsV61...), "xfs_large_folios", "xfs_ioend_one_bio")

// v612 is Linux 6.12's writeback (6.12.118): 6.1's switches, with requeue_inode's
// dirtied_before and wb_writeback's queued exit (Kemeng Shi, 6.10) and the bdi
// knobs of 6.2. Unchanged from 6.1 where the notes found no difference the model
// can see: balance_dirty_pages' decisions (restructured in helpers),
// wb_over_bg_thresh, writeback_chunk_size, blk-wbt's limits; blk-wbt's
// bdi->last_bdp_sleep (6.8) equals 6.1's root-wb dirty_sleep without cgroups.
func v612() Variants {
	return v61().With(swRequeueDirtiedBefore, swWbWritebackQueued, swBdiKnobsV62)
}

// v61 is Linux 6.1's writeback: the v3.2 code (no Wu 2011 RFC lists) with the
// v6.x rules of kernel-notes §1-§3 switched on.
func v61() Variants {
	v := v32.With(swDirtiedBeforeEachLoop, swISyncQueued, swRequeueInode, swSbInodesISyncCheck,
		swWorkqueueFlusher, swBandwidthFromWritepages, swWroteMinusSkipped,
		swDomainDirtyLimits, swPosRatioClamp, swBdpThinkTime,
		swWbMaxPause, swDirtyExceededV6, swBalancedRateCap,
		swFpropCompletions, swStrictLimitCap,
		swDirtyableNoAnon, swWatermarkScale, swReclaimThrottle)
	v.Set(swWaitIffCongested, false)
	// blk-wbt on by default with the merged RWB_DEF_DEPTH 16, the QD=1 rule and
	// the v6 limits; blk-mq block layer
	v = withWBT(v, true, true, 16)
	v.Set(swWBTDraft, false)
	return v.With(swWBTV6, swBlockV6, SwTraceV66)
}

// withWBT is v with the 2016 block layer of the 4.6 presets: 1280 KiB requests
// (BLK_DEF_MAX_SECTORS since v4.4) and blk-wbt on or off with its draft rules.
func withWBT(v Variants, on, qd1 bool, depth int) Variants {
	v.Set(swWBT, on)
	v.Set(swWBTDraft, on)
	v.Set(swWBTQD1, qd1)
	v.WBTDepth, v.MaxSectorsKB = depth, 1280
	return v // the 4.x XFS logs inode changes and has no ->write_inode: fsV4
}

// presets are presetDefs with the filesystems' switches set. They are resolved
// on first use, and again if a switch was declared since (a package's init
// asking before engine/fs declared its switches).
func presets() []Preset {
	presetsMu.Lock()
	defer presetsMu.Unlock()
	if presetsCache == nil || presetsSeen != len(switchByID) {
		presetsCache = make([]Preset, len(presetDefs))
		for i, d := range presetDefs {
			presetsCache[i] = Preset{Name: d.Name, Doc: d.Doc, Variants: d.Variants}
			for _, name := range d.fs {
				if sw, ok := LookupSwitch(name); ok {
					presetsCache[i].Variants.Set(sw.ID, true)
				}
			}
		}
		presetsSeen = len(switchByID)
	}
	return presetsCache
}

var (
	presetsMu    sync.Mutex
	presetsCache []Preset
	presetsSeen  int // len(switchByID) when presetsCache was resolved
)

// UndeclaredPresetSwitches lists the switches presets name that no package
// declared (engine's tests check it is empty once engine/fs is linked in).
func UndeclaredPresetSwitches() []string {
	var out []string
	for _, d := range presetDefs {
		for _, name := range d.fs {
			if _, ok := LookupSwitch(name); !ok {
				out = append(out, d.Name+": "+name)
			}
		}
	}
	return out
}

// Presets lists the kernel presets.
func Presets() []Preset { return append([]Preset(nil), presets()...) }

// LookupPreset finds a preset by name; a trailing '+' (a locally built kernel, as in
// the harness's release strings) and the Wu 2011 "-next-20111014" suffix are
// ignored, and the Wu 2011 kernels may be named by their short form as the thread's
// tables do ("ioless-full", "more_io_wait-5").
func LookupPreset(name string) (Preset, error) {
	n := strings.TrimSuffix(name, "+")
	n = strings.TrimSuffix(n, "-next-20111014") // the Wu 2011 harness's release strings
	for _, cand := range []string{n, wu2011Prefix + "-" + n, "3.1.0-rc9-" + n} {
		for _, p := range presets() {
			if p.Name == cand {
				return p, nil
			}
		}
	}
	names := make([]string, len(presetDefs))
	for i, p := range presetDefs {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("%q is not a kernel preset (presets: %s)", name, strings.Join(names, ", "))
}

// PresetFor reports the preset whose switches equal v, if any (the first in the
// list when several kernels have the same switches).
func PresetFor(v Variants) (string, bool) {
	for _, p := range presets() {
		if p.Variants == v {
			return p.Name, true
		}
	}
	return "", false
}
