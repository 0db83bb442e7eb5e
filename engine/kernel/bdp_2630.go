package kernel

import "github.com/wblab/wblab/engine/sim"

// This file is balance_dirty_pages of 2.6.30 (mm/page-writeback.c), the IO-full
// throttle the dirtier runs itself: over its task-scaled bdi limit it writes
// back sync_writeback_pages() pages and waits in congestion_wait; the design of
// 2.6.30-3.1 (switch io_full_throttle), whose 2.6.35 loop is bdp_2635.go.

// swIOFullThrottle is balance_dirty_pages before Wu's IO-less throttling (v3.2):
// the dirtier writes back pages itself until the bdi is below its limit
// (2.6.30-3.1). Off: the IO-less balance_dirty_pages.
var swIOFullThrottle = declare(Switch{Name: "io_full_throttle", Order: 150,
	Doc:    "pre-3.2 balance_dirty_pages: the dirtier writes back pages itself (off: IO-less throttling)",
	Models: "balance_dirty_pages, mm/page-writeback.c v2.6.30-v3.1",
	Source: "replaced by Wu's IO-less throttling (v3.2), " + threadWu})

var pathBdpIOFull = swIOFullThrottle.path("balance_dirty_pages.io_full",
	"balance_dirty_pages calls where the dirtier writes back itself (IO-full)", swIOFullPauseBackoff)

// bdp2630 is the IO-full balance_dirty_pages of 2.6.30.
type bdp2630 struct{ *Kernel }

// balance is balance_dirty_pages of 2.6.30 (mm/page-writeback.c): over the bdi limit
// the dirtier writes write_chunk pages itself, then waits in congestion_wait until
// it is under the limit or its chunk is done. The returned time is the longest the
// task may stay asleep: when the dirtier's writeback blocked (a full request pool)
// or it entered congestion_wait, th already waits on a queue and the caller's
// sleep turns into a wait with that timeout.
func (k bdp2630) balance(th *Thread, resume bool) sim.Time {
	if !resume {
		k.Fired(pathBdpIOFull)
	}
	s := &th.bdp
	b := k.mappingBDI(th)
	writeChunk := k.ratelimitPages + k.ratelimitPages/2 // sync_writeback_pages()
	th.noYield = true
	defer func() { th.noYield = false }()
	if !resume {
		*s = bdpState{active: true}
		th.Stats.BdpCalls++
	}
	if s.waiting { // back from congestion_wait: the pause's length
		d := k.W.Now() - s.waitFrom
		th.Stats.notePause(d)
		s.waiting = false
	}
	for {
		if s.ioFullStage == 1 { // writeback_inodes(&wbc) in the dirtier's context
			if k.writebackInodes(th, &s.m) {
				return k.W.JiffiesToTime(k.W.HZ()) // blocked in get_request_wait
			}
			s.pagesDirtied += writeChunk - s.m.wbc.NrToWrite // pages_written
			s.ioFullStage = 2
		}
		// get_dirty_limits and the global/bdi counters, at the top of each pass
		// and again after the dirtier's writeback
		th.Charge(k.P.Costs.BalanceDirty)
		bg, thresh := k.globalDirtyLimits(th)
		bdiThresh := k.taskDirtyLimit(th, k.bdiDirtyLimit(b, thresh))
		s.bdiThresh = bdiThresh
		bdiDirty := b.Stats.Reclaimable + b.Stats.Writeback
		if s.ioFullStage == 0 {
			s.bg = bg
			if bdiDirty <= bdiThresh {
				break
			}
			if k.G.NrFileDirty+k.G.NrWriteback < (bg+thresh)/2 {
				break // throttle only when background writeback cannot catch up
			}
			b.DirtyExceeded = true
			if b.Stats.Reclaimable > 0 {
				s.m = wbInodesM{bdi: b, wbc: WritebackControl{SyncMode: WBSyncNone, NrToWrite: writeChunk, RangeCyclic: true, RangeEnd: longMax}}
				s.ioFullStage = 1
				continue
			}
			s.ioFullStage = 2
		}
		// stage 2: after the dirtier's writeback
		if bdiDirty <= bdiThresh || s.pagesDirtied >= writeChunk {
			break
		}
		s.ioFullStage = 0
		th.Stats.Pauses++
		s.waiting, s.waitFrom = true, k.W.Now()
		k.congestionWait(th)
		return k.W.JiffiesToTime(max(k.W.HZ()/10, 1))
	}
	if b.Stats.Reclaimable+b.Stats.Writeback < s.bdiThresh && b.DirtyExceeded {
		b.DirtyExceeded = false
	}
	s.active = false
	if b.writebackRunning {
		return 0 // pdflush / the flusher is already working this queue
	}
	if bg, _ := k.dirtyLimits(); k.G.NrFileDirty > bg {
		k.StartBackgroundWriteback(b)
	}
	return 0
}

// ratelimited is balance_dirty_pages_ratelimited_nr
// (2.6.30): a per-CPU count of dirtied pages; ratelimit_pages, or 8 pages while the
// bdi is over its limit.
func (k bdp2630) ratelimited(th *Thread, nr int64) bool {
	ratelimit := k.ratelimitPages
	if k.mappingBDI(th).DirtyExceeded {
		ratelimit = 8
	}
	th.Stats.Dirtied += nr
	cpu := max(th.Task.CPU, 0) % len(k.bdpRatelimits)
	p := &k.bdpRatelimits[cpu]
	*p += nr
	if *p >= ratelimit {
		*p = 0
		return true
	}
	return false
}

// room is RatelimitRoom for 2.6.30-3.1's per-CPU count: ratelimit_pages, or
// 8 pages while the bdi is over its limit.
func (k bdp2630) room(th *Thread) int64 {
	ratelimit := k.ratelimitPages
	if k.mappingBDI(th).DirtyExceeded {
		ratelimit = 8
	}
	cpu := max(th.Task.CPU, 0) % len(k.bdpRatelimits)
	return max(ratelimit-k.bdpRatelimits[cpu], 1)
}

// propSingle is a prop_local_single (lib/proportions.c, 2.6.24-3.1): a task's
// recent events, halved for every half-period of global events it missed.
type propSingle = propLocal

// vmDirtiesShift is calc_period_shift() (2.6.30/2.6.36 mm/page-writeback.c):
// 2 + ilog2(dirty_total - 1), dirty_total the dirty threshold in pages.
func (k *Kernel) vmDirtiesShift() int64 {
	_, dirty := k.dirtyLimits()
	return 2 + ilog2(max(dirty-1, 1))
}

// propNormSingle is prop_norm_single: catch the task's count up with the global
// period, halving it once per missed half-period.
func (k *Kernel) propNormSingle(pl *propSingle) { pl.norm(k.vmDirties, k.vmDirtiesShift()) }

// taskDirtyInc is task_dirty_inc once per page for n pages (account_page_dirtied,
// 2.6.24-3.1): the pages are counted in runs that end at half-period boundaries, so
// the normalisation happens where per-page calls would do it.
func (k *Kernel) taskDirtyInc(th *Thread, n int64) {
	period2 := int64(1) << (k.vmDirtiesShift() - 1)
	for n > 0 {
		k.propNormSingle(&th.dirties)
		c := min(n, period2-k.vmDirties&(period2-1))
		th.dirties.events += c
		k.vmDirties += c
		n -= c
	}
}

// taskDirtyLimit is task_dirty_limit (2.6.30/2.6.36): the bdi limit lowered by up
// to 1/8 by the task's share of recent dirtying (prop_fraction_single:
// events / (period/2 + global % period/2)), never below half.
func (k *Kernel) taskDirtyLimit(th *Thread, bdiDirty int64) int64 {
	k.propNormSingle(&th.dirties)
	period2 := int64(1) << (k.vmDirtiesShift() - 1)
	den := period2 + k.vmDirties&(period2-1)
	inv := (bdiDirty >> 3) * th.dirties.events / den
	return max(bdiDirty-inv, bdiDirty/2)
}
