package kernel

import (
	"math/bits"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// swBandwidthFromWritepages moves the write-bandwidth update out of wb_writeback
// into do_writepages (every BANDWIDTH_INTERVAL, after wb_bandwidth_estimate_start)
// and IO completion (bw_dwork BANDWIDTH_INTERVAL after an inode's writeback
// ends); __wb_update_bandwidth has no idle skip (elapsed >= 1).
var swBandwidthFromWritepages = declare(Switch{Name: "bandwidth_from_writepages", Order: 280,
	Doc:    "v6: write bandwidth updated from do_writepages and IO completion, not wb_writeback",
	Models: "do_writepages, wb_update_bandwidth, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathBandwidthUpdate = swBandwidthFromWritepages.path("write_bandwidth.updates",
	"write-bandwidth updates: from wb_writeback and balance_dirty_pages (v3.2), or do_writepages, IO completion and balance_dirty_pages (v6)")

// swDomainDirtyLimits is domain_dirty_limits(): ratios are converted per
// PAGE_SIZE first ((ratio*PAGE_SIZE/100)*avail/PAGE_SIZE). The _bytes forms and
// the bg >= thresh rule are unchanged (no real-time dirtiers in the model).
var swDomainDirtyLimits = declare(Switch{Name: "domain_dirty_limits", Order: 300,
	Doc:    "v6: domain_dirty_limits converts dirty ratios per PAGE_SIZE before scaling available memory",
	Models: "domain_dirty_limits, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathDomainLimitsDiffer = swDomainDirtyLimits.path("domain_dirty_limits.rounding_differs",
	"global_dirty_limits calls where converting the ratios per PAGE_SIZE (v6) gives other thresholds than ratio * avail / 100")

// swPosRatioClamp is v6 pos_ratio_polynom(): the cubic is clamped to [0, 2.0] and
// divisions use (limit - setpoint) | 1, (x_intercept - wb_setpoint) | 1.
var swPosRatioClamp = declare(Switch{Name: "pos_ratio_clamp", Order: 310,
	Doc:    "v6: pos_ratio_polynom clamped to [0, 2.0], divisions by (x | 1)",
	Models: "pos_ratio_polynom, wb_position_ratio, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathPosRatioDiffers = swPosRatioClamp.path("pos_ratio.v6_differs",
	"balance_dirty_pages and ratelimit-update position ratios that the v6 clamp to [0, 2] and the | 1 divisors change")

// swWbMaxPause is v6 wb_max_pause(): min(wb_dirty / (1 + bw/roundup_pow_of_two(1+HZ/8)) + 1,
// MAX_PAUSE), replacing bdi_max_pause's 20 ms + N-dd term.
var swWbMaxPause = declare(Switch{Name: "wb_max_pause", Order: 330,
	Doc:    "v6: wb_max_pause = min(wb_dirty / (1 + bw/roundup_pow_of_two(1+HZ/8)) + 1, 200 ms)",
	Models: "wb_max_pause, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathMaxPauseDiffers = swWbMaxPause.path("max_pause.v6_differs",
	"balance_dirty_pages max-pause computations where wb_max_pause (v6) and bdi_max_pause (v3.2) differ")

// swDirtyExceededV6 is dirty_exceeded = wb_dirty > wb_thresh && dirty > thresh
// (v3.2: ||).
var swDirtyExceededV6 = declare(Switch{Name: "dirty_exceeded_v6", Order: 340,
	Doc:    "v6: dirty_exceeded = wb_dirty > wb_thresh && dirty > thresh (v3.2: ||)",
	Models: "balance_dirty_pages, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathDirtyExceededDiffers = swDirtyExceededV6.path("dirty_exceeded.v6_differs",
	"balance_dirty_pages dirty_exceeded decisions where v6's && and v3.2's || differ")

// swBalancedRateCap caps balanced_dirty_ratelimit at write_bw (v6).
var swBalancedRateCap = declare(Switch{Name: "balanced_rate_cap", Order: 350,
	Doc:    "v6: balanced_dirty_ratelimit capped at write_bw",
	Models: "wb_update_dirty_ratelimit, mm/page-writeback.c v6.1",
	Source: notesV6})

var pathBalancedAboveWriteBW = swBalancedRateCap.path("balanced_dirty_ratelimit.above_write_bw",
	"dirty-ratelimit updates whose balanced rate is above write_bw (v6 caps it there)")

// swBdpGlobalExit is the IO-less balance_dirty_pages of 3.2-rc before Wu's
// "writeback: hard throttle 1000+ dd on a slow USB stick" (commit
// 1df647197c5b): after a pause the loop ends once the global dirty count is
// under the hard limit, so dirtiers whose task_ratelimit is at its minimum
// still dirty a page per max_pause each. Off: the loop goes on while
// task_ratelimit is 0 and the bdi has dirty pages (bdpLoopExit).
var swBdpGlobalExit = declare(Switch{Name: "bdp_global_exit", Order: 380,
	Doc:    "3.2-rc before Wu's hard throttle (1df647197c5b): balance_dirty_pages leaves its loop under the global hard limit, even at task_ratelimit 0",
	Models: "balance_dirty_pages, mm/page-writeback.c v3.2-rc (before 1df647197c5b)",
	Source: "commit 1df647197c5b (v3.2), \"writeback: hard throttle 1000+ dd on a slow USB stick\""})

var pathBdpLoopExitDiffers = swBdpGlobalExit.path("balance_dirty_pages.loop_exit_differs",
	"decisions after a balance_dirty_pages pause where the hard-throttle exit (task_ratelimit != 0) and the 3.2-rc global exit (dirty < hard limit) differ")

func ilog2(x int64) int64 {
	if x <= 0 {
		return 0
	}
	return int64(63 - bits.LeadingZeros64(uint64(x)))
}

func roundupPow2(x int64) int64 {
	if x <= 1 {
		return 1
	}
	return 1 << (64 - bits.LeadingZeros64(uint64(x-1)))
}

// dirtyLimits computes global_dirty_limits (v3.2) without tracing: background and
// dirty thresholds in pages.
func (k *Kernel) dirtyLimits() (background, dirty int64) {
	return k.dirtyLimitsWith(k.on(swDomainDirtyLimits))
}

// dirtyLimitsWith is dirtyLimits with the ratio conversion chosen: domain true is
// domain_dirty_limits (v6), false global_dirty_limits (v3.2).
func (k *Kernel) dirtyLimitsWith(domain bool) (background, dirty int64) {
	avail := k.dirtyableMem
	if k.mm != nil {
		avail = k.dirtyableReclaim()
	}
	m := k.limitsFor(avail)
	if domain {
		return m.bg6, m.dirty6
	}
	return m.bg32, m.dirty32
}

// dirtyLimitsMemo is limitsFrom's thresholds under both ratio conversions for the
// dirtyable memory and sysctls they were computed from: without the reclaim model
// the dirtyable memory never changes, so they are computed once per run instead of
// at every balance_dirty_pages.
type dirtyLimitsMemo struct {
	avail, dirtyBytes, bgBytes int64
	dirtyRatio, bgRatio        int
	ok                         bool
	bg32, dirty32              int64 // global_dirty_limits (v3.2)
	bg6, dirty6                int64 // domain_dirty_limits (v6)
}

// limitsFor returns the thresholds for avail dirtyable pages, computing them when
// avail or a dirty sysctl changed.
func (k *Kernel) limitsFor(avail int64) *dirtyLimitsMemo {
	m, p := &k.dlMemo, &k.P
	if !m.ok || m.avail != avail || m.dirtyBytes != p.DirtyBytes || m.bgBytes != p.DirtyBackgroundBytes ||
		m.dirtyRatio != p.DirtyRatio || m.bgRatio != p.DirtyBackgroundRatio {
		m.avail, m.dirtyBytes, m.bgBytes = avail, p.DirtyBytes, p.DirtyBackgroundBytes
		m.dirtyRatio, m.bgRatio, m.ok = p.DirtyRatio, p.DirtyBackgroundRatio, true
		m.bg32, m.dirty32 = k.limitsFrom(avail, false)
		m.bg6, m.dirty6 = k.limitsFrom(avail, true)
	}
	return m
}

// limitsFrom is the ratio conversion of dirtyLimitsWith for avail dirtyable pages
// (a plain function: no closure call per ratio).
func (k *Kernel) limitsFrom(avail int64, domain bool) (background, dirty int64) {
	if k.P.DirtyBytes > 0 {
		dirty = (k.P.DirtyBytes + PageSize - 1) / PageSize
	} else {
		dirty = dirtyRatioPages(k.P.DirtyRatio, avail, domain)
	}
	if k.P.DirtyBackgroundBytes > 0 {
		background = (k.P.DirtyBackgroundBytes + PageSize - 1) / PageSize
	} else {
		background = dirtyRatioPages(k.P.DirtyBackgroundRatio, avail, domain)
	}
	if background >= dirty {
		background = dirty / 2
	}
	return background, dirty
}

// dirtyRatioPages is r percent of avail pages: v3.2's ratio * avail / 100, or
// domain_dirty_limits' (v6) per-PAGE_SIZE ratio for precision.
func dirtyRatioPages(r int, avail int64, domain bool) int64 {
	if domain {
		return int64(r) * PageSize / 100 * avail / PageSize
	}
	return int64(r) * avail / 100
}

// globalDirtyLimits is global_dirty_limits (v3.2), which emits global_dirty_state.
// The other ratio conversion is looked up beside it to count the calls where the
// two differ.
func (k *Kernel) globalDirtyLimits(th *Thread) (background, dirty int64) {
	domain := k.on(swDomainDirtyLimits)
	var b, d int64
	if k.mm == nil {
		m := k.limitsFor(k.dirtyableMem)
		background, dirty, b, d = m.bg32, m.dirty32, m.bg6, m.dirty6
		if domain {
			background, dirty, b, d = b, d, background, dirty
		}
	} else {
		background, dirty = k.dirtyLimitsWith(domain)
		b, d = k.dirtyLimitsWith(!domain) // reads the dirtyable memory again
	}
	if b != background || d != dirty {
		k.Fired(pathDomainLimitsDiffer)
	}
	if th == k.flusher.th {
		k.flusherGDS.add(gdsSample{k.W.Now(), k.G.NrWritten})
	}
	if k.Tracing() {
		k.trace(th, tracepoint.GlobalDirty{Dirty: k.G.NrFileDirty, Writeback: k.G.NrWriteback, BgThresh: background,
			Thresh: dirty, Limit: k.globalDirtyLimit, Dirtied: k.G.NrDirtied, Written: k.G.NrWritten})
	}
	return background, dirty
}

// writebackSetRatelimit is writeback_set_ratelimit (v3.2).
func (k *Kernel) writebackSetRatelimit(dirty int64) {
	if k.on(swIOFullThrottle) {
		// writeback_set_ratelimit (2.6.30): vm_total_pages / (cpus * 32), at least
		// 16 pages and at most 4 MB
		total := k.P.MemoryMB << (20 - PageShift)
		k.ratelimitPages = min(max(total/(int64(k.P.CPUs)*32), 16), (4<<20)/PageSize)
		return
	}
	k.ratelimitPages = max(dirty/(int64(k.P.CPUs)*32), 16)
}

// DirtyLimits reports (bg_thresh, thresh, limit, setpoint) in pages as the tracepoints
// compute them.
func (k *Kernel) DirtyLimits() (bg, thresh, limit, setpoint int64) {
	bg, thresh = k.dirtyLimits()
	limit = max(thresh, k.globalDirtyLimit)
	freerun := (thresh + bg) / 2
	return bg, thresh, limit, (freerun + limit) / 2
}

// overBgroundThresh is over_bground_thresh (v3.2).
func (k *Kernel) overBgroundThresh(b *BDI, th *Thread) bool {
	bg, _ := k.globalDirtyLimits(th)
	if k.G.NrFileDirty > bg {
		return true
	}
	return b.Stats.Reclaimable > k.bdiDirtyLimit(b, bg)
}

// bdiStatError is bdi_stat_error(): nr_cpu_ids * BDI_STAT_BATCH.
func (k *Kernel) bdiStatError() int64 {
	n := int64(k.P.CPUs)
	return n * 8 * (1 + ilog2(n))
}

// posRatioPolynom is the global part of bdi_position_ratio (v3.2):
// 1 + ((setpoint - dirty) / (limit - setpoint))^3 in units of 1/1024.
func posRatioPolynom(setpoint, dirty, limit int64) int64 {
	x := ((setpoint - dirty) << ratelimitCalcShift) / (limit - setpoint + 1)
	p := x
	p = p * x >> ratelimitCalcShift
	p = p * x >> ratelimitCalcShift
	return p + 1<<ratelimitCalcShift
}

// posRatioPolynomV6 is pos_ratio_polynom (v6): the same cubic, divided by
// (limit - setpoint) | 1 and clamped to [0, 2.0].
func posRatioPolynomV6(setpoint, dirty, limit int64) int64 {
	x := ((setpoint - dirty) << ratelimitCalcShift) / ((limit - setpoint) | 1)
	p := x
	p = p * x >> ratelimitCalcShift
	p = p * x >> ratelimitCalcShift
	p += 1 << ratelimitCalcShift
	return min(max(p, 0), 2<<ratelimitCalcShift)
}

// bdiPositionRatio is the position ratio of balance_dirty_pages and the ratelimit
// update (positionRatio), counting the calls where the other setting of
// PosRatioClamp gives another value.
func (k *Kernel) bdiPositionRatio(b *BDI, thresh, bg, dirty, bdiThresh, bdiDirty int64) int64 {
	p32, p6 := k.positionRatios(b, thresh, bg, dirty, bdiThresh, bdiDirty)
	if p32 != p6 {
		k.Fired(pathPosRatioDiffers)
	}
	if k.on(swPosRatioClamp) {
		return p6
	}
	return p32
}

// posRatioCube is posRatioPolynom's cubic: x^3 in units of 1/1024 (x likewise).
func posRatioCube(x int64) int64 {
	return (x * x >> ratelimitCalcShift) * x >> ratelimitCalcShift
}

// posShare is positionRatios' bdi share of thresh, (bt << 16) / (thresh + 1) for
// v3.2 and / (thresh | 1) for v6, for the bt and thresh it was computed for (both
// stay the same from call to call while the threshold does).
type posShare struct {
	bt, thresh, xs, xs6 int64
	ok                  bool
}

// positionRatios is positionRatio without and with v6 in one pass (the same
// numbers as two calls, TestPositionRatiosIsPositionRatio): the parts the two
// share are computed once, and a division of v6 ("| 1" divisors) is done only
// where its divisor is odd, i.e. differs from v3.2's "+ 1".
func (k *Kernel) positionRatios(b *BDI, thresh, bg, dirty, bdiThresh, bdiDirty int64) (p32, p6 int64) {
	if b.Knobs.StrictLimit {
		return k.positionRatio(b, thresh, bg, dirty, bdiThresh, bdiDirty, false),
			k.positionRatio(b, thresh, bg, dirty, bdiThresh, bdiDirty, true)
	}
	freerun := (thresh + bg) / 2
	limit := max(thresh, k.globalDirtyLimit)
	if dirty >= limit {
		return 0, 0
	}
	setpoint := (freerun + limit) / 2
	// the global control line: (setpoint - dirty) / (limit - setpoint + 1) for
	// v3.2, / ((limit - setpoint) | 1) for v6
	d := limit - setpoint
	n := (setpoint - dirty) << ratelimitCalcShift
	x := n / (d + 1)
	p32 = posRatioCube(x) + 1<<ratelimitCalcShift
	p6 = p32
	if d&1 != 0 {
		if x6 := n / d; x6 != x {
			p6 = posRatioCube(x6) + 1<<ratelimitCalcShift
		}
	}
	p6 = min(max(p6, 0), 2<<ratelimitCalcShift)

	// the bdi's line: its share x of thresh, (thresh + 1) for v3.2, thresh | 1 for v6
	writeBW := b.AvgWriteBandwidth
	bt := max(min(bdiThresh, thresh), (limit-dirty)/8)
	ps := &k.posShare
	if !ps.ok || ps.bt != bt || ps.thresh != thresh {
		ps.bt, ps.thresh, ps.ok = bt, thresh, true
		ps.xs = (bt << 16) / (thresh + 1)
		ps.xs6 = ps.xs
		if thresh&1 != 0 {
			ps.xs6 = (bt << 16) / thresh
		}
	}
	xs, xs6 := ps.xs, ps.xs6
	bs := setpoint * xs >> 16
	span := (thresh - bt + 8*writeBW) * xs >> 16
	xi := bs + span
	q32 := p32 / 4
	if bdiDirty < xi-span/4 {
		q32 = p32 * (xi - bdiDirty) / (xi - bs + 1)
	}
	q6 := q32
	switch {
	case xs6 == xs && p6 == p32:
		// the same line; v6's divisor (xi - bs) | 1 differs when xi - bs is odd
		if bdiDirty < xi-span/4 && (xi-bs)&1 != 0 {
			q6 = p6 * (xi - bdiDirty) / (xi - bs)
		}
	default:
		bs6 := setpoint * xs6 >> 16
		span6 := (thresh - bt + 8*writeBW) * xs6 >> 16
		xi6 := bs6 + span6
		q6 = p6 / 4
		if bdiDirty < xi6-span6/4 {
			q6 = p6 * (xi6 - bdiDirty) / ((xi6 - bs6) | 1)
		}
	}
	// the bdi reserve area
	if r := bt / 2; bdiDirty < r {
		if bdiDirty > r/8 {
			q32 = q32 * r / bdiDirty
			q6 = q6 * r / bdiDirty
		} else {
			q32 *= 8
			q6 *= 8
		}
	}
	return q32, q6
}

// positionRatio is bdi_position_ratio (v3.2): the global control line times the
// bdi's linear line (slope 1/(8*write_bw)) and the bdi reserve area. With v6 it is
// wb_position_ratio (v6.1): clamped polynom, "| 1" divisors.
func (k *Kernel) positionRatio(b *BDI, thresh, bg, dirty, bdiThresh, bdiDirty int64, v6 bool) int64 {
	writeBW := b.AvgWriteBandwidth
	freerun := (thresh + bg) / 2
	limit := max(thresh, k.globalDirtyLimit)
	if dirty >= limit {
		return 0
	}
	setpoint := (freerun + limit) / 2
	var pos int64
	if v6 {
		pos = posRatioPolynomV6(setpoint, dirty, limit)
	} else {
		pos = posRatioPolynom(setpoint, dirty, limit)
	}
	if b.Knobs.StrictLimit {
		// BDI_CAP_STRICTLIMIT (3.12+): the bdi's own control line, from its
		// free-run ceiling (setpoint) to its limit
		if bdiDirty < 8 {
			return min(pos*2, 2<<ratelimitCalcShift)
		}
		if bdiDirty >= bdiThresh {
			return 0
		}
		wbSetpoint := (bdiThresh + wbBgThresh(bdiThresh, bg, thresh)) / 2
		if wbSetpoint == 0 || wbSetpoint == bdiThresh {
			return 0
		}
		return min(pos, posRatioPolynomV6(wbSetpoint, bdiDirty, bdiThresh))
	}

	bdiThresh = min(bdiThresh, thresh)
	bdiThresh = max(bdiThresh, (limit-dirty)/8)
	x := (bdiThresh << 16) / (thresh + 1)
	if v6 {
		x = (bdiThresh << 16) / (thresh | 1)
	}
	bdiSetpoint := setpoint * x >> 16
	span := (thresh - bdiThresh + 8*writeBW) * x >> 16
	xIntercept := bdiSetpoint + span
	if bdiDirty < xIntercept-span/4 {
		if v6 {
			pos = pos * (xIntercept - bdiDirty) / ((xIntercept - bdiSetpoint) | 1)
		} else {
			pos = pos * (xIntercept - bdiDirty) / (xIntercept - bdiSetpoint + 1)
		}
	} else {
		pos /= 4
	}
	xIntercept = bdiThresh / 2
	if bdiDirty < xIntercept {
		if bdiDirty > xIntercept/8 {
			pos = pos * xIntercept / bdiDirty
		} else {
			pos *= 8
		}
	}
	return pos
}

// maxPauseDivs are maxPause's divisors for one write bandwidth: v6's 1 + bw /
// roundup_pow_of_two(1 + HZ/8) and v3.2's 8 * bw + 1, and the bdi_dirty from
// which each quotient reaches its cap (so min(quotient, cap) is the cap without
// dividing); lim6 and lim32 are -1 (never) where that product could overflow.
type maxPauseDivs struct {
	bw, hz     int64
	div6, lim6 int64 // lim6 = (ceil - 1) * div6: bdi_dirty / div6 + 1 >= ceil
	div32      int64
	t32        int64 // v3.2's cap before the bdi_dirty term (from bw and dirty_ratelimit)
	ratelimit  int64 // the dirty_ratelimit t32 is for
	lim32      int64 // t32 * div32: bdi_dirty * HZ / div32 >= t32
	ok         bool  // computed at least once
}

// maxPauseDivsFor returns b's maxPause divisors for bw, hz and dirty_ratelimit,
// recomputing them when one changed.
func (b *BDI) maxPauseDivsFor(bw, hz, ratelimit int64) *maxPauseDivs {
	m := &b.mp
	if m.bw == bw && m.hz == hz && m.ratelimit == ratelimit && m.ok {
		return m
	}
	ceil := max(hz/5, 1)
	m.bw, m.hz, m.ratelimit = bw, hz, ratelimit
	m.div6 = 1 + bw/roundupPow2(1+hz/8)
	m.div32 = 8*bw + 1
	hi, lo := ilog2(bw), ilog2(ratelimit)
	m.t32 = hz / 50
	if hi > lo {
		m.t32 += (hi - lo) * (20 * hz) / 1024
	}
	m.lim6, m.lim32 = -1, -1
	if bw >= 0 && bw < 1<<40 && hz > 0 && hz < 1<<20 {
		// no overflow: ceil, t32 < 2^21 and div6, div32 < 2^44
		if m.div6 > 0 {
			m.lim6 = (ceil - 1) * m.div6
		}
		if m.t32 >= 0 {
			m.lim32 = m.t32 * m.div32
		}
	}
	m.ok = true
	return m
}

// bdiMaxPause is balance_dirty_pages' max pause (maxPause), counting the calls
// where the other setting of WbMaxPause gives another value. Both are computed in
// one pass from divisors kept per bandwidth (the same numbers as maxPause's,
// TestMaxPausesIsMaxPause); a quotient is only computed when bdi_dirty is below
// the point where it reaches its cap.
func (k *Kernel) bdiMaxPause(b *BDI, bdiDirty int64) int64 {
	hz := k.W.HZ()
	bw := b.AvgWriteBandwidth
	ceil := max(hz/5, 1)
	m := b.maxPauseDivsFor(bw, hz, b.DirtyRatelimit)
	// v6 wb_max_pause: min(bdi_dirty / div6 + 1, ceil)
	t6 := ceil
	if m.lim6 < 0 || bdiDirty < m.lim6 {
		t6 = min(bdiDirty/m.div6+1, ceil)
	}
	// v3.2 bdi_max_pause: min(t32, bdi_dirty * HZ / div32), at least 4, at most ceil
	t := m.t32
	if p := bdiDirty * hz; m.lim32 < 0 || p < m.lim32 {
		t = min(t, p/m.div32)
	}
	t32 := min(max(t, 4), ceil)
	if t32 != t6 {
		k.Fired(pathMaxPauseDiffers)
	}
	if k.on(swWbMaxPause) {
		return t6
	}
	return t32
}

// maxPause is bdi_max_pause (v3.2), in jiffies; with v6 it is wb_max_pause
// (v6.1): wb_dirty / (1 + bw/roundup_pow_of_two(1+HZ/8)) + 1, at most MAX_PAUSE
// (the pool would drain in 1/8 of the pause).
func (k *Kernel) maxPause(b *BDI, bdiDirty int64, v6 bool) int64 {
	hz := k.W.HZ()
	bw := b.AvgWriteBandwidth
	if v6 {
		t := bdiDirty/(1+bw/roundupPow2(1+hz/8)) + 1
		return min(t, max(hz/5, 1))
	}
	hi, lo := ilog2(bw), ilog2(b.DirtyRatelimit)
	t := hz / 50
	if hi > lo {
		t += (hi - lo) * (20 * hz) / 1024
	}
	t = min(t, bdiDirty*hz/(8*bw+1))
	return min(max(t, 4), max(hz/5, 1))
}

// dirtyPollThresh is DIRTY_POLL_THRESH: 128 KB in pages.
const dirtyPollThresh = 128 >> (PageShift - 10)

// wbMinPause is wb_min_pause (v3.3+/v6): the smallest pause worth sleeping, in
// jiffies, and the nr_dirtied_pause that aims at it: 10 ms for one dd, +10 ms per
// doubling of dirtiers, at most 1 + max_pause/2; at least DIRTY_POLL_THRESH pages
// between pauses; pages trimmed so the next pause does not exceed max_pause.
func (k *Kernel) wbMinPause(b *BDI, maxPause, taskRatelimit, dirtyRatelimit int64) (minPause, nrDirtiedPause int64) {
	hz := k.W.HZ()
	hi, lo := ilog2(b.AvgWriteBandwidth), ilog2(b.DirtyRatelimit)
	t := max(1, hz/100)
	if hi > lo {
		t += (hi - lo) * (10 * hz) / 1024
	}
	t = min(t, 1+maxPause/2)
	pages := dirtyRatelimit * t / roundupPow2(hz)
	if pages < dirtyPollThresh {
		t = maxPause
		pages = dirtyRatelimit * t / roundupPow2(hz)
		if pages > dirtyPollThresh {
			pages = dirtyPollThresh
			t = hz * dirtyPollThresh / max(dirtyRatelimit, 1)
		}
	}
	if pause := hz * pages / (taskRatelimit + 1); pause > maxPause {
		t = maxPause
		pages = taskRatelimit * t / roundupPow2(hz)
	}
	if pages >= dirtyPollThresh {
		return 1 + t/2, pages
	}
	return t, pages
}

// dirtyPollInterval is dirty_poll_interval (v3.2): ~sqrt of the headroom.
func dirtyPollInterval(dirty, thresh int64) int64 {
	if thresh > dirty {
		return 1 << (ilog2(thresh-dirty) >> 1)
	}
	return 1
}

// globalUpdateBandwidth is global_update_bandwidth + update_dirty_limit (v3.2):
// the hard limit follows thresh up at once and down by 1/32 per 200 ms.
func (k *Kernel) globalUpdateBandwidth(thresh, dirty int64) {
	now := k.W.Jiffies()
	interval := max(k.W.HZ()/5, 1)
	if now < k.updateTime+interval {
		return
	}
	limit := k.globalDirtyLimit
	if limit < thresh {
		limit = thresh
	} else if t := max(thresh, dirty); limit > t {
		limit -= (limit - t) >> 5
	}
	k.globalDirtyLimit = limit
	k.updateTime = now
}

// bdiUpdateWriteBandwidth is bdi_update_write_bandwidth (v3.2).
func (k *Kernel) bdiUpdateWriteBandwidth(b *BDI, elapsed, written int64) {
	period := roundupPow2(3 * k.W.HZ())
	avg, old := b.AvgWriteBandwidth, b.WriteBandwidth
	bw := (written - b.writtenStamp) * k.W.HZ()
	if elapsed > period {
		bw /= elapsed
		avg = bw
	} else {
		bw += old * (period - elapsed)
		bw >>= ilog2(period)
		if avg > old && old >= bw {
			avg -= (avg - old) >> 3
		}
		if avg < old && old <= bw {
			avg += (old - avg) >> 3
		}
	}
	b.WriteBandwidth, b.AvgWriteBandwidth = bw, avg
}

// bdiUpdateDirtyRatelimit is bdi_update_dirty_ratelimit (v3.2).
func (k *Kernel) bdiUpdateDirtyRatelimit(b *BDI, thresh, bg, dirty, bdiThresh, bdiDirty, dirtied, elapsed int64) {
	freerun := (thresh + bg) / 2
	limit := max(thresh, k.globalDirtyLimit)
	setpoint := (freerun + limit) / 2
	writeBW := b.AvgWriteBandwidth
	dirtyRatelimit := b.DirtyRatelimit

	dirtyRate := (dirtied - b.dirtiedStamp) * k.W.HZ() / elapsed
	pos := k.bdiPositionRatio(b, thresh, bg, dirty, bdiThresh, bdiDirty)
	taskRatelimit := dirtyRatelimit*pos>>ratelimitCalcShift + 1
	balanced := taskRatelimit * writeBW / (dirtyRate | 1)
	if balanced > writeBW {
		k.Fired(pathBalancedAboveWriteBW)
	}
	if k.on(swBalancedRateCap) {
		balanced = min(balanced, writeBW) // v6: never above the write bandwidth
	}

	var step int64
	if dirty < setpoint {
		x := min(b.BalancedDirtyRatelimit, balanced, taskRatelimit)
		if dirtyRatelimit < x {
			step = x - dirtyRatelimit
		}
	} else {
		x := max(b.BalancedDirtyRatelimit, balanced, taskRatelimit)
		if dirtyRatelimit > x {
			step = dirtyRatelimit - x
		}
	}
	if sh := dirtyRatelimit / (2*step + 1); sh < 64 {
		step >>= uint(sh)
	} else {
		step = 0
	}
	step = (step + 7) / 8
	if dirtyRatelimit < balanced {
		dirtyRatelimit += step
	} else {
		dirtyRatelimit -= step
	}
	b.DirtyRatelimit = max(dirtyRatelimit, 1)
	b.BalancedDirtyRatelimit = balanced
	if k.Tracing() {
		kb := func(p int64) int64 { return p << (PageShift - 10) }
		k.trace(nil, tracepoint.Ratelimit{Bdi: b.Name, WriteBW: kb(b.WriteBandwidth), AvgWriteBW: kb(b.AvgWriteBandwidth),
			DirtyRate: kb(dirtyRate), DirtyRatelimit: kb(b.DirtyRatelimit), TaskRatelimit: kb(taskRatelimit),
			BalancedDirtyRatelimit: kb(b.BalancedDirtyRatelimit)})
	}
}

// bdiUpdateBandwidth is __bdi_update_bandwidth (v3.2), run at most every 200 ms.
// thresh == 0 (the flusher's wb_update_bandwidth) updates the write bandwidth only.
func (k *Kernel) bdiUpdateBandwidth(b *BDI, thresh, bg, dirty, bdiThresh, bdiDirty, startTime int64) {
	if now, due := k.bandwidthDue(b); due {
		k.updateBandwidth(b, now, thresh, bg, dirty, bdiThresh, bdiDirty, startTime)
	}
}

// bandwidthDue is bdiUpdateBandwidth's test (BANDWIDTH_INTERVAL has passed since
// the last update) and the jiffies it read, for callers that test inline.
func (k *Kernel) bandwidthDue(b *BDI) (now int64, due bool) {
	now = k.W.Jiffies()
	return now, now > b.bwTimeStamp+max(k.W.HZ()/5, 1)
}

// updateBandwidth is bdiUpdateBandwidth's update, once its interval has passed.
func (k *Kernel) updateBandwidth(b *BDI, now, thresh, bg, dirty, bdiThresh, bdiDirty, startTime int64) {
	elapsed := now - b.bwTimeStamp
	dirtied, written := b.Stats.Dirtied, b.Stats.Written
	// skip quiet periods: at least 1 s idle between two flusher runs
	if k.on(swBandwidthFromWritepages) || !(elapsed > k.W.HZ() && b.bwTimeStamp < startTime) {
		k.Fired(pathBandwidthUpdate)
		if thresh != 0 {
			k.globalUpdateBandwidth(thresh, dirty)
			k.bdiUpdateDirtyRatelimit(b, thresh, bg, dirty, bdiThresh, bdiDirty, dirtied, elapsed)
		}
		k.bdiUpdateWriteBandwidth(b, elapsed, written)
	}
	b.dirtiedStamp, b.writtenStamp, b.bwTimeStamp = dirtied, written, now
}

// wbBandwidthEstimateStart is wb_bandwidth_estimate_start (v5.14+, called by
// do_writepages): after more than WB_BANDWIDTH_IDLE_JIF (HZ) without an update and
// with no inode under writeback, re-snapshot the counters so the idle time does not
// count as a period of zero bandwidth.
func (k *Kernel) wbBandwidthEstimateStart(b *BDI) {
	now := k.W.Jiffies()
	if now-b.bwTimeStamp > k.W.HZ() && b.Stats.Writeback == 0 {
		b.dirtiedStamp, b.writtenStamp, b.bwTimeStamp = b.Stats.Dirtied, b.Stats.Written, now
	}
}

// wbUpdateBandwidthV6 is __wb_update_bandwidth(gdtc, NULL, false) (v6): the write
// bandwidth only, elapsed >= 1, no idle skip (the callers check BANDWIDTH_INTERVAL
// where they do: do_writepages does, the delayed work after IO completion does not).
func (k *Kernel) wbUpdateBandwidthV6(b *BDI) {
	k.Fired(pathBandwidthUpdate)
	now := k.W.Jiffies()
	elapsed := max(now-b.bwTimeStamp, 1)
	k.bdiUpdateWriteBandwidth(b, elapsed, b.Stats.Written)
	b.AvgWriteBandwidth = max(b.AvgWriteBandwidth, 1)
	b.dirtiedStamp, b.writtenStamp, b.bwTimeStamp = b.Stats.Dirtied, b.Stats.Written, now
}

// wbUpdateBandwidthWorkfn is wb_update_bandwidth_workfn (v6), the bw_dwork queued
// BANDWIDTH_INTERVAL after an inode's writeback ended.
func (k *Kernel) wbUpdateBandwidthWorkfn(b *BDI) { k.wbUpdateBandwidthV6(b) }

// wbInodeWritebackEnd is wb_inode_writeback_end (v6): the inode has no page under
// writeback any more; queue the bandwidth update BANDWIDTH_INTERVAL later (a
// pending one is not moved, so inodes ending together share one update).
func (k *Kernel) wbInodeWritebackEnd(b *BDI) {
	f := b.flusher
	if f == nil || f.bwDwork.Pending() {
		return
	}
	k.W.After(&f.bwDwork, k.W.JiffiesToTime(max(k.W.HZ()/5, 1)))
}

// wbUpdateBandwidth is wb_update_bandwidth (v3.2), called by the flusher.
func (k *Kernel) wbUpdateBandwidth(b *BDI, startTime int64) {
	k.bdiUpdateBandwidth(b, 0, 0, 0, 0, 0, startTime)
}

// mappingBDI is the bdi of the file th last dirtied (the first disk before any).
func (k *Kernel) mappingBDI(th *Thread) *BDI {
	if th.mapping != nil {
		return th.mapping
	}
	return k.BDI
}

// bdpState holds balance_dirty_pages' locals across its sleep.
type bdpState struct {
	active        bool
	slept         bool
	startTime     int64
	pagesDirtied  int64
	pause         int64
	taskRatelimit int64
	// dirtyRatelimit is the loop's local dirty_ratelimit (bdi->dirty_ratelimit
	// read before the pause); the pause sizing after the loop uses it (v3.2)
	dirtyRatelimit int64
	dirtyExceeded  bool
	nrReclaimable  int64
	nrDirty        int64
	bg, thresh     int64
	maxPause       int64
	bdiDirty       int64
	// v6 loop (switch bdp_think_time)
	now            int64 // the (possibly advanced) now of the pause
	period, think  int64
	nrDirtiedPause int64 // from wb_min_pause
	noSleep        bool
	// IO-full balance_dirty_pages (2.6.30-3.1)
	bdiThresh   int64 // the task-scaled bdi limit of the last evaluation
	ioFullStage int
	waiting     bool // in congestion_wait since waitFrom
	waitFrom    sim.Time
	m           wbInodesM
}

// balancer is one era's balance_dirty_pages with its ratelimiting, chosen once
// by New (newBalancer): bdp_2630.go, bdp_2635.go, bdp_32.go, bdp_33.go.
type balancer interface {
	// ratelimited is balance_dirty_pages_ratelimited_nr: account nr pages dirtied
	// by th and report whether balance_dirty_pages must run.
	ratelimited(th *Thread, nr int64) bool
	// room is how many more pages th can dirty before ratelimited says so.
	room(th *Thread) int64
	// balance is balance_dirty_pages (see BalanceDirtyPages).
	balance(th *Thread, resume bool) sim.Time
}

// newBalancer picks the kernel's balance_dirty_pages: IO-full (2.6.30, or the
// 2.6.35-3.1 loop), IO-less (v3.2) or with think time (v3.3+/v6).
func newBalancer(k *Kernel) balancer {
	switch {
	case k.on(swIOFullThrottle) && k.on(swIOFullPauseBackoff):
		return bdp2635{bdp2630{k}}
	case k.on(swIOFullThrottle):
		return bdp2630{k}
	case k.on(swBdpThinkTime):
		return bdp33{bdp32{k}}
	}
	return bdp32{k}
}

// BalanceDirtyPagesRatelimited is balance_dirty_pages_ratelimited_nr: account nr
// page-chunks dirtied by th and report whether balance_dirty_pages must run.
func (k *Kernel) BalanceDirtyPagesRatelimited(th *Thread, nr int64) bool {
	return k.balancer.ratelimited(th, nr)
}

// RatelimitRoom is how many more page-chunks th can dirty before
// BalanceDirtyPagesRatelimited asks for balance_dirty_pages (≥ 1).
func (k *Kernel) RatelimitRoom(th *Thread) int64 { return k.balancer.room(th) }

// BalanceDirtyPages is balance_dirty_pages of the kernel's era. Call it with
// resume=false after BalanceDirtyPagesRatelimited asked for it; it returns a
// pause the task must sleep (TASK_KILLABLE) before calling it again with
// resume=true, or 0 when it is done.
func (k *Kernel) BalanceDirtyPages(th *Thread, resume bool) sim.Time {
	return k.balancer.balance(th, resume)
}

// wbBgThresh is wb_dirty_limits' wb_bg_thresh (v3.12+): the bdi's share of the
// background threshold, in the proportion of its limit to the global one.
func wbBgThresh(bdiThresh, bg, thresh int64) int64 {
	if thresh == 0 {
		return 0
	}
	return bdiThresh * bg / thresh
}

// dirtyExceeded is balance_dirty_pages' dirty_exceeded: v3.2 bdi_dirty > bdi_thresh
// || nr_dirty > thresh; v6 (dirty_exceeded_v6) wb_dirty > wb_thresh && (dirty >
// thresh || strictlimit).
func (k *Kernel) dirtyExceeded(b *BDI, bdiDirty, bdiThresh, dirty, thresh int64) bool {
	v6 := bdiDirty > bdiThresh && (dirty > thresh || b.Knobs.StrictLimit)
	v32 := bdiDirty > bdiThresh || dirty > thresh
	if v6 != v32 {
		k.Fired(pathDirtyExceededDiffers)
	}
	if k.on(swDirtyExceededV6) {
		return v6
	}
	return v32
}

// bdpEnter starts a balance_dirty_pages call: fresh locals, its CPU cost.
func (k *Kernel) bdpEnter(th *Thread) {
	th.bdp = bdpState{active: true, startTime: k.W.Jiffies(), pagesDirtied: th.NrDirtied}
	th.Charge(k.P.Costs.BalanceDirty)
	th.Stats.BdpCalls++
}

func (k *Kernel) think(th *Thread, now int64) int64 {
	if th.DirtyPausedWhen == 0 {
		return 0
	}
	return now - th.DirtyPausedWhen
}

func (k *Kernel) traceBdp(th *Thread, b *BDI, s *bdpState, bdiThresh, pause int64) {
	if k.Tracing() { // inlined check: no call per balance_dirty_pages when off
		k.emitBdp(th, b, s, bdiThresh, pause)
	}
}

// emitBdp writes traceBdp's balance_dirty_pages line.
func (k *Kernel) emitBdp(th *Thread, b *BDI, s *bdpState, bdiThresh, pause int64) {
	freerun := (s.thresh + s.bg) / 2
	limit := max(s.thresh, k.globalDirtyLimit)
	setpoint := (limit + freerun) / 2
	bdiSetpoint := setpoint * bdiThresh / (s.thresh + 1)
	kb := func(p int64) int64 { return p << (PageShift - 10) }
	hz := k.W.HZ()
	k.trace(th, tracepoint.Balance{Bdi: b.Name, Limit: limit, Setpoint: setpoint, Dirty: s.nrDirty,
		BdiSetpoint: bdiSetpoint, BdiDirty: s.bdiDirty, DirtyRatelimit: kb(b.DirtyRatelimit), TaskRatelimit: kb(s.taskRatelimit),
		Dirtied: s.pagesDirtied, DirtiedPause: th.NrDirtiedPause, Paused: (k.W.Jiffies() - s.startTime) * 1000 / hz,
		Pause: pause * 1000 / hz, Period: s.period * 1000 / hz, Think: s.think * 1000 / hz,
		PeriodThink: k.on(swBdpThinkTime)}) // v3.3+
}

// bdpLoopExit is balance_dirty_pages' decision after a pause (v3.2, commit
// 1df647197c5b "writeback: hard throttle 1000+ dd on a slow USB stick"): the loop
// ends when task_ratelimit is not 0, "typically equal to (nr_dirty < dirty_thresh)",
// or when the bdi's dirty pages are within bdi_stat_error (a dead bdi's pipe);
// so a task whose task_ratelimit rounded to 0 (dirty_ratelimit at its floor of 1
// page/s, pos_ratio below 1) sleeps max_pause again without dirtying. With
// switch bdp_global_exit (3.2-rc before that commit) the loop ends once the
// global dirty count is under the hard limit, whatever the bdi.
func (k *Kernel) bdpLoopExit(s *bdpState) bool {
	hard := s.taskRatelimit != 0 || s.bdiDirty <= k.bdiStatError()
	global := s.nrDirty < max(s.thresh, k.globalDirtyLimit) // hard_dirty_limit
	if hard != global {
		k.Fired(pathBdpLoopExitDiffers)
	}
	if k.on(swBdpGlobalExit) {
		return global
	}
	return hard
}

// TaskRatelimitNow is the task_ratelimit balance_dirty_pages would compute now for
// a writer to the first disk (pages/s), for time series.
func (k *Kernel) TaskRatelimitNow() int64 { return k.TaskRatelimitOn(k.BDI) }

// TaskRatelimitOn is TaskRatelimitNow for a writer to b.
func (k *Kernel) TaskRatelimitOn(b *BDI) int64 {
	nrDirty := k.G.NrFileDirty + k.G.NrWriteback
	bg, thresh := k.dirtyLimits()
	if nrDirty <= (thresh+bg)/2 && !b.Knobs.StrictLimit {
		return 0
	}
	bdiDirty := b.Stats.Reclaimable + b.Stats.Writeback
	pos := k.positionRatio(b, thresh, bg, nrDirty, k.bdiDirtyLimit(b, thresh), bdiDirty, k.on(swPosRatioClamp))
	return b.DirtyRatelimit * pos >> ratelimitCalcShift
}
