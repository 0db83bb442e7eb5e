package devices

import (
	"math"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// blk-wbt constants (kernel-notes §3.2).
const (
	rwbWindow          = 100 * sim.Millisecond // RWB_WINDOW_NSEC
	rwbMinWriteSamples = 3                     // RWB_MIN_WRITE_SAMPLES
	rwbUnknownBump     = 5                     // RWB_UNKNOWN_BUMP
	wbtLatRotational   = 75 * sim.Millisecond  // wbt_default_latency_nsec, rotational
	wbtLatNonRot       = 2 * sim.Millisecond   // wbt_default_latency_nsec, non-rotational
	wbtCloseIO         = 100 * sim.Millisecond // close_io: HZ/10
	wbtRecentWait      = sim.Second            // wb_recent_wait: HZ
)

// Latency window outcomes (enum LAT_*): merged kernels start at 1; the 2016 draft
// had only OK/UNKNOWN/EXCEEDED starting at 0.
const (
	LatOK            = 1
	LatUnknown       = 2
	LatUnknownWrites = 3
	LatExceeded      = 4
)

// wakeMode is a pending wake-up of wbt waiters.
type wakeMode uint8

const (
	wakeNone wakeMode = iota
	wakeOne           // 2016 draft wbt_done: wake_up_nr(1)
	wakeAll           // wake_up_all / rq_qos_wake_function walk
)

// latStat is one direction of a blk-stat window: sample count, min, max, sum (ns).
type latStat struct {
	n, min, max, sum int64
}

func (s *latStat) add(v int64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
}

func (s *latStat) mean() int64 {
	if s.n == 0 {
		return 0
	}
	return s.sum / s.n
}

// wbt is block/blk-wbt.c: write throttling by queue-depth limits scaled on read
// latency. Three kernel versions are selected by Spec: the 2016 drafts (WBTDraft),
// v4.10 (default) and v6.x rq_depth (WBTV6); the QD=1 special case by WBTQD1.
type wbt struct {
	q                  *Queue
	enabled            bool
	draft, v6, qd1     bool
	wc                 bool
	queueDepth         int
	defDepth           int
	minLat             int64
	step               int
	scaledMax          bool
	unknownCnt         int
	max, normal, bg    int
	inflight           int
	curWin             int64
	rd, wr             latStat
	syncIssue          sim.Time
	syncCookie         *Request
	lastIssue          sim.Time
	lastComp           sim.Time
	haveIssue          bool
	haveComp           bool
	dirtySleep         sim.Time
	haveDirtySleep     bool
	timer              sim.Timer
	waiters            waitList
	wake               wakeMode // wake-up decided and not yet delivered
	steps, exceeded    int64
	timerFires, scales int64
	throttled          [3]int64 // writes that had to wait in wbt_wait, by limit class
}

// wbt limit classes (get_limit): which of wb_max, wb_normal, wb_background applied.
const (
	wbtClassMax = iota
	wbtClassNormal
	wbtClassBackground
)

// limitClass is the class of get_limit's choice for a write with flags f.
func (b *wbt) limitClass(f Flags) int {
	now := b.q.w.Now()
	switch {
	case f&(FlagSync|FlagMeta|FlagPrio|FlagKswapd) != 0 || b.recentWait(now):
		return wbtClassMax
	case f&FlagBackground != 0 || b.closeIO(now):
		return wbtClassBackground
	}
	return wbtClassNormal
}

func (b *wbt) init(q *Queue) {
	s, k := q.spec, q.blk
	b.q = q
	b.draft, b.v6, b.qd1 = k.WBTDraft, k.WBTV6, k.WBTQD1
	b.wc = s.WriteCacheBytes > 0
	b.queueDepth = q.qd
	b.defDepth = k.WBTDepth
	if b.defDepth <= 0 {
		b.defDepth = 16
	}
	b.minLat = k.WBTLatNs
	if b.minLat == 0 {
		b.minLat = int64(wbtLatNonRot)
		if s.Rotational {
			b.minLat = int64(wbtLatRotational)
		}
	}
	b.enabled = k.WBT
	b.curWin = int64(rwbWindow)
	b.timer.Fn = b.timerFn
	b.scaledMax = false // wbt_update_limits ignores calc_wb_limits' result
	b.calcLimits()
}

// WBTState is wbt's state, readable at any time (time series, UI).
type WBTState struct {
	Enabled    bool  `json:"enabled"`
	Step       int   `json:"step"`       // scale_step
	Max        int   `json:"max"`        // wb_max (rq_depth.max_depth)
	Normal     int   `json:"normal"`     // wb_normal
	Background int   `json:"background"` // wb_background
	Inflight   int   `json:"inflight"`   // tracked writes allocated and not completed
	Waiters    int   `json:"waiters"`    // submitters blocked in wbt_wait
	MinLatNs   int64 `json:"min_lat_ns"`
	WindowNs   int64 `json:"window_ns"` // cur_win_nsec
	ScaledMax  bool  `json:"scaled_max"`
	Scales     int64 `json:"scales"`      // scale up/down events so far
	Exceeded   int64 `json:"exceeded"`    // windows with LAT_EXCEEDED so far
	TimerFires int64 `json:"timer_fires"` // wb_timer_fn calls so far
	// Throttled counts writes that waited in wbt_wait, by the limit that held them:
	// wb_max (sync, meta, recent wait), wb_normal, wb_background (background
	// writeback or recent other IO).
	ThrottledMax        int64 `json:"throttled_max"`
	ThrottledNormal     int64 `json:"throttled_normal"`
	ThrottledBackground int64 `json:"throttled_background"`
}

// WBT returns blk-wbt's current state.
func (q *Queue) WBT() WBTState {
	b := &q.wbt
	return WBTState{Enabled: b.enabled, Step: b.step, Max: b.max, Normal: b.normal, Background: b.bg,
		Inflight: b.inflight, Waiters: b.waiters.n, MinLatNs: b.minLat, WindowNs: b.curWin,
		ScaledMax: b.scaledMax, Scales: b.scales, Exceeded: b.exceeded, TimerFires: b.timerFires,
		ThrottledMax: b.throttled[wbtClassMax], ThrottledNormal: b.throttled[wbtClassNormal],
		ThrottledBackground: b.throttled[wbtClassBackground]}
}

// WBTLimits computes (wb_max, wb_normal, wb_background) and scaled_max for a queue
// depth and scale_step as calc_wb_limits does (v4.10; v6 with the max_depth <= 2
// rule; qd1 selects the 2016 QD=1 special case; defDepth is RWB_DEF_DEPTH).
func WBTLimits(queueDepth, step, defDepth int, qd1, v6 bool) (max, normal, bg int, scaledMax bool) {
	if queueDepth == 1 && qd1 {
		if step > 0 {
			max = 1
		} else {
			max, scaledMax = 2, true
		}
		return max, max, 1, scaledMax
	}
	depth := min(defDepth, queueDepth)
	if step > 0 {
		depth = 1 + ((depth - 1) >> min(31, step))
	} else if step < 0 {
		maxd := 3 * queueDepth / 4
		depth = 1 + ((depth - 1) << -step)
		if depth > maxd {
			depth, scaledMax = maxd, true
		}
	}
	max = depth
	if v6 && max <= 2 {
		return max, max, 1, scaledMax
	}
	return max, (max + 1) / 2, (max + 3) / 4, scaledMax
}

// calcLimits is calc_wb_limits (v4.10 block/blk-wbt.c): it sets the limits and
// returns whether the step reached the cap. Only scale_up stores that in
// scaled_max; wbt_update_limits (init, queue depth change) and scale_down clear it.
func (b *wbt) calcLimits() (scaledMax bool) {
	if !b.enabled || b.minLat == 0 {
		b.max, b.normal, b.bg = 0, 0, 0
		return false
	}
	b.max, b.normal, b.bg, scaledMax = WBTLimits(b.queueDepth, b.step, b.defDepth, b.qd1, b.v6)
	return scaledMax
}

// throttles is wbt_should_throttle: writes, except O_DIRECT (REQ_SYNC|REQ_IDLE).
func (b *wbt) throttles(bio *Bio) bool {
	return b.enabled && b.normal > 0 && bio.Op == Write && bio.Flags&(FlagSync|FlagIdle) != FlagSync|FlagIdle
}

func (b *wbt) recentWait(now sim.Time) bool {
	return b.haveDirtySleep && now < b.dirtySleep+wbtRecentWait
}

// closeIO: a read was issued or completed less than HZ/10 ago.
func (b *wbt) closeIO(now sim.Time) bool {
	return (b.haveIssue && now < b.lastIssue+wbtCloseIO) || (b.haveComp && now < b.lastComp+wbtCloseIO)
}

// limit is get_limit for a write with flags f.
func (b *wbt) limit(f Flags) int {
	switch b.limitClass(f) {
	case wbtClassMax:
		return b.max
	case wbtClassBackground:
		return b.bg
	}
	return b.normal
}

// canAcquire reports whether a write with flags f fits under its limit now.
func (b *wbt) canAcquire(f Flags) bool { return b.inflight < b.limit(f) }

// acquire is may_queue: take a slot if inflight is below the limit. With fair set
// (a new arrival) a merged kernel also waits when others are already waiting; the
// 2016 draft has no such check.
func (b *wbt) acquire(f Flags, fair bool) bool {
	if fair && !b.draft && b.waiters.head != nil {
		return false
	}
	if !b.canAcquire(f) {
		return false
	}
	b.inflight++
	if !b.timer.Pending() {
		b.armTimer()
	}
	return true
}

// slots is how many new requests a fresh write with flags f may take without waiting.
func (b *wbt) slots(f Flags) int {
	if !b.draft && b.waiters.head != nil {
		return 0
	}
	return max(0, b.limit(f)-b.inflight)
}

func (b *wbt) noteReadIssue() {
	if b.enabled {
		b.lastIssue, b.haveIssue = b.q.w.Now(), true
	}
}

func (b *wbt) noteDirtySleep(now sim.Time) { b.dirtySleep, b.haveDirtySleep = now, true }

// issue is wbt_issue: remember the oldest issued read (sync_issue / sync_cookie).
func (b *wbt) issue(r *Request) {
	if b.enabled && r.Op == Read && b.syncCookie == nil {
		b.syncIssue, b.syncCookie = r.Dispatch, r
	}
}

// done is wbt_done plus the blk-stat sample: latency issue -> completion.
func (b *wbt) done(r *Request, now sim.Time) {
	if !b.enabled {
		return
	}
	if b.timer.Pending() {
		lat := int64(now - r.Dispatch)
		if r.Op == Read {
			b.rd.add(lat)
		} else {
			b.wr.add(lat)
		}
	}
	if !r.wbt {
		if b.syncCookie == r {
			b.syncCookie, b.syncIssue = nil, 0
		}
		if r.Op == Read {
			b.lastComp, b.haveComp = now, true
		}
		return
	}
	// wbt_rqw_done
	b.inflight--
	limit := b.normal
	if b.wc && !b.recentWait(now) {
		limit = 0
	}
	if b.inflight > 0 && b.inflight >= limit {
		return
	}
	if b.waiters.head != nil {
		if diff := limit - b.inflight; b.inflight == 0 || diff >= b.bg/2 {
			if b.draft {
				b.wake = max(b.wake, wakeOne) // wake_up_nr(1)
			} else {
				b.wake = wakeAll
			}
		}
	}
}

// IntSqrt is lib/int_sqrt.c's int_sqrt (the kernel's one integer square root, used
// by blk-wbt, the disk's seek curve and min_free_kbytes).
func IntSqrt(x uint64) uint64 {
	// floor(sqrt(x)), exactly: the float root (IEEE sqrt is correctly rounded on
	// every platform, wasm included) is within one of the answer for any uint64, and
	// the integer corrections below make it exact. Nothing but the exact integer
	// leaves this function, so no floating point reaches the model's state; it
	// equals int_sqrt (Newton's method on integers), only faster.
	r := uint64(math.Sqrt(float64(x)))
	if r > 1<<32-1 {
		r = 1<<32 - 1
	}
	for r*r > x {
		r--
	}
	for r < 1<<32-1 && (r+1)*(r+1) <= x {
		r++
	}
	return r
}

// armTimer is rwb_arm_timer: pick the window for the current step and start a new
// blk-stat window.
func (b *wbt) armTimer() {
	if b.step > 0 {
		// (win << 4) / int_sqrt((step + 1) << 8) = win / sqrt(step + 1)
		b.curWin = (int64(rwbWindow) << 4) / int64(IntSqrt(uint64(b.step+1)<<8))
	} else {
		b.curWin = int64(rwbWindow)
	}
	b.rd, b.wr = latStat{}, latStat{}
	b.q.w.After(&b.timer, sim.Time(b.curWin))
}

func (b *wbt) status(code int) int {
	if !b.draft {
		return code
	}
	switch code { // 2016 draft enum: LAT_OK=0, LAT_UNKNOWN=1, LAT_EXCEEDED=2
	case LatOK:
		return 0
	case LatExceeded:
		return 2
	}
	return 1
}

// latencyExceeded classifies the window that just ended.
func (b *wbt) latencyExceeded(now sim.Time) int {
	thislat := int64(0)
	if b.syncCookie != nil {
		thislat = int64(now - b.syncIssue)
	}
	if thislat > b.curWin || (thislat > b.minLat && b.rd.n == 0) {
		b.traceLat(thislat)
		return LatExceeded
	}
	if !(b.rd.n >= 1 && b.wr.n >= rwbMinWriteSamples) {
		if !b.draft && (b.wr.n > 0 || b.recentWait(now) || b.inflight > 0) {
			return LatUnknownWrites
		}
		return LatUnknown
	}
	if b.rd.min > b.minLat {
		b.traceLat(b.rd.min)
		b.traceStat()
		return LatExceeded
	}
	if b.step != 0 {
		b.traceStat()
	}
	return LatOK
}

// timerFn is wb_timer_fn.
func (b *wbt) timerFn() {
	q := b.q
	q.account()
	now := q.w.Now()
	b.timerFires++
	inflight := b.inflight
	st := b.latencyExceeded(now)
	if q.tracer != nil {
		b.trace(tracepoint.WbtTimerTick{Dev: q.devName, Status: b.status(st), Step: b.step, Inflight: inflight})
	}
	switch st {
	case LatExceeded:
		b.exceeded++
		b.scaleDown(true)
	case LatOK, LatUnknownWrites:
		b.scaleUp()
	case LatUnknown:
		b.unknownCnt++
		if b.unknownCnt < rwbUnknownBump {
			break
		}
		if b.step > 0 || b.draft {
			b.scaleUp()
		} else if b.step < 0 {
			b.scaleDown(false)
		}
	}
	if b.step != 0 || inflight > 0 {
		b.armTimer()
	}
	q.kick()
	q.dispatch()
}

func (b *wbt) scaleUp() {
	if b.draft {
		if b.step == 0 {
			return
		}
	} else if b.scaledMax {
		return
	}
	b.step--
	b.unknownCnt = 0
	b.scaledMax = b.calcLimits()
	b.scales++
	b.wake = wakeAll // rwb_wake_all
	b.traceStep("up")
}

func (b *wbt) scaleDown(hard bool) {
	if b.max == 1 {
		return
	}
	if b.step < 0 && hard {
		b.step = 0
	} else {
		b.step++
	}
	b.scaledMax = false
	b.unknownCnt = 0
	b.calcLimits()
	b.scales++
	b.traceStep("down")
}

func (b *wbt) trace(ev tracepoint.Event) {
	if t := b.q.tracer; t != nil {
		t.Emit(b.q.w.Now(), nil, ev)
	}
}

// traceStep emits wbt_step; the message is "step up/down" before v6, "scale up/down" in v6.
func (b *wbt) traceStep(dir string) {
	if b.q.tracer != nil {
		msg := "step " + dir
		if b.v6 {
			msg = "scale " + dir
		}
		b.trace(tracepoint.WbtScaleStep{Dev: b.q.devName, Msg: msg, Step: b.step, Window: b.curWin / 1000,
			Bg: b.bg, Normal: b.normal, Max: b.max})
	}
}

func (b *wbt) traceLat(lat int64) {
	if b.q.tracer != nil {
		b.trace(tracepoint.WbtLatency{Dev: b.q.devName, Lat: lat / 1000})
	}
}

func (b *wbt) traceStat() {
	if b.q.tracer != nil {
		b.trace(tracepoint.WbtStats{Dev: b.q.devName, RMean: b.rd.mean(), RMin: b.rd.min, RMax: b.rd.max, RSamples: b.rd.n,
			WMean: b.wr.mean(), WMin: b.wr.min, WMax: b.wr.max, WSamples: b.wr.n})
	}
}
