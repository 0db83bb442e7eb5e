package kernel

import "github.com/wblab/wblab/engine/sim"

// This file is balance_dirty_pages of 2.6.35-3.1 (mm/page-writeback.c of
// 2.6.36-rc1): the IO-full loop with io_schedule_timeout pauses backing off
// (switch io_full_pause_backoff); its ratelimiting is 2.6.30's.

// swIOFullPauseBackoff is the IO-full balance_dirty_pages loop of 2.6.35-3.1 (with
// IOFullThrottle): the dirtier writes back only while the bdi's reclaimable pages
// exceed its limit, dirty_exceeded also at the global limit, and it sleeps
// io_schedule_timeout(pause) doubling from 1 jiffy to HZ/10. Off: 2.6.30's loop
// (writeback whenever the bdi has reclaimable pages, congestion_wait(HZ/10)).
var swIOFullPauseBackoff = declare(Switch{Name: "io_full_pause_backoff", Order: 160,
	Doc:    "2.6.35-3.1 IO-full loop: write back only above the bdi limit, io_schedule_timeout pauses 1 jiffy..HZ/10 (off: 2.6.30)",
	Models: "balance_dirty_pages, mm/page-writeback.c v2.6.35-v3.1",
	Source: "2.6.35 balance_dirty_pages; on in the 2.6.36 presets of " + threadChinner})

// bdp2635 is the IO-full balance_dirty_pages of 2.6.35-3.1.
type bdp2635 struct{ bdp2630 }

// balance is balance_dirty_pages of 2.6.36 (the IO-full loop
// of 2.6.35-3.1, mm/page-writeback.c of 2.6.36-rc1): throttle only above
// (background + dirty)/2; dirty_exceeded when the bdi is at its task-scaled limit or
// the system at the dirty limit; the dirtier writes write_chunk pages itself only
// while the bdi's reclaimable pages exceed its limit, and otherwise sleeps
// io_schedule_timeout(pause), the pause doubling from one jiffy to HZ/10.
func (k bdp2635) balance(th *Thread, resume bool) sim.Time {
	if !resume {
		k.Fired(pathBdpIOFull)
	}
	s := &th.bdp
	b := k.mappingBDI(th)
	writeChunk := k.ratelimitPages + k.ratelimitPages/2 // sync_writeback_pages(ratelimit)
	th.noYield = true
	defer func() { th.noYield = false }()
	if !resume {
		*s = bdpState{active: true, pause: 1}
		th.Stats.BdpCalls++
	}
	if s.waiting { // back from io_schedule_timeout: the pause's length
		d := k.W.Now() - s.waitFrom
		th.Stats.notePause(d)
		s.waiting = false
	}
	exceeded := false
	for {
		if s.ioFullStage == 1 { // writeback_inodes_wb(&bdi->wb, &wbc) in the dirtier's context
			if k.writebackInodes(th, &s.m) {
				return k.W.JiffiesToTime(k.W.HZ()) // blocked in get_request_wait
			}
			s.pagesDirtied += writeChunk - s.m.wbc.NrToWrite // pages_written
			s.ioFullStage = 0
			if s.pagesDirtied >= writeChunk {
				exceeded = true
				break // we've done our duty
			}
		} else {
			th.Charge(k.P.Costs.BalanceDirty)
			bg, thresh := k.globalDirtyLimits(th)
			s.bg = bg
			global := k.G.NrFileDirty + k.G.NrWriteback
			if global < (bg+thresh)/2 {
				break // throttle only when background writeback cannot catch up
			}
			s.bdiThresh = k.taskDirtyLimit(th, k.bdiDirtyLimit(b, thresh))
			exceeded = b.Stats.Reclaimable+b.Stats.Writeback >= s.bdiThresh || global >= thresh
			if !exceeded {
				break
			}
			b.DirtyExceeded = true
			if b.Stats.Reclaimable > s.bdiThresh {
				s.m = wbInodesM{bdi: b, wbc: WritebackControl{SyncMode: WBSyncNone, NrToWrite: writeChunk, RangeCyclic: true, RangeEnd: longMax}}
				s.ioFullStage = 1
				continue
			}
		}
		// __set_current_state(TASK_INTERRUPTIBLE); io_schedule_timeout(pause)
		th.Stats.Pauses++
		d := k.W.JiffiesToTime(s.pause)
		s.pause = min(s.pause*2, max(k.W.HZ()/10, 1))
		s.waiting, s.waitFrom = true, k.W.Now()
		th.Charge(k.P.Costs.SleepWake)
		return d
	}
	if !exceeded && b.DirtyExceeded {
		b.DirtyExceeded = false
	}
	s.active = false
	if b.writebackRunning {
		return 0
	}
	if bg, _ := k.dirtyLimits(); k.G.NrFileDirty > bg {
		k.StartBackgroundWriteback(b)
	}
	return 0
}
