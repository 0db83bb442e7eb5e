package kernel

import "github.com/wblab/wblab/engine/sim"

// This file is balance_dirty_pages of v3.3+ and v6.1 (mm/page-writeback.c):
// the IO-less loop with think-time compensation and wb_min_pause (switch
// bdp_think_time); its ratelimiting is v3.2's.

// swBdpThinkTime is the v3.3+/v6 balance_dirty_pages loop: think-time
// compensation (pause = period - (now - dirty_paused_when)), no sleep below
// wb_min_pause() (virtual time advanced instead), pauses over max_pause
// trimmed with the excess carried in dirty_paused_when, nr_dirtied_pause from
// wb_min_pause(), and the background kick before the freerun test.
var swBdpThinkTime = declare(Switch{Name: "bdp_think_time", Order: 320,
	Doc:    "v6: balance_dirty_pages think-time compensation (dirty_paused_when), wb_min_pause, kick before freerun",
	Models: "balance_dirty_pages, wb_min_pause, mm/page-writeback.c v3.3+ / v6.1",
	Source: notesV6})

// bdp33 is the IO-less balance_dirty_pages of v3.3+/v6.1.
type bdp33 struct{ bdp32 }

// balance is balance_dirty_pages of v3.3+/v6.1 (mm/page-writeback.c): the
// dirtier's pause is its period (pages_dirtied / task_ratelimit) less the time it
// spent outside since its last pause (dirty_paused_when); pauses below
// wb_min_pause are not slept but carried as virtual time.
func (k bdp33) balance(th *Thread, resume bool) sim.Time {
	if !resume {
		k.ioLessEnter(th)
		k.bdpEnter(th)
	}
	s := &th.bdp
	b := k.mappingBDI(th)
	hz := k.W.HZ()
	for {
		if s.slept {
			s.slept = false
			th.DirtyPausedWhen = s.now + s.pause
			th.NrDirtied = 0
			th.NrDirtiedPause = s.nrDirtiedPause
			if k.bdpLoopExit(s) {
				break
			}
		}
		now := k.W.Jiffies()
		s.nrReclaimable = k.G.NrFileDirty
		s.nrDirty = s.nrReclaimable + k.G.NrWriteback
		s.bg, s.thresh = k.globalDirtyLimits(th)
		if s.nrReclaimable > s.bg && !b.writebackRunning {
			k.StartBackgroundWriteback(b)
		}
		// strictlimit (3.12+): the free-run test on the bdi's own counts
		dirty, thresh, bg := s.nrDirty, s.thresh, s.bg
		var bdiThresh int64
		if b.Knobs.StrictLimit {
			bdiThresh = k.bdiDirtyLimit(b, s.thresh)
			s.bdiDirty = b.Stats.Reclaimable + b.Stats.Writeback
			dirty, thresh, bg = s.bdiDirty, bdiThresh, wbBgThresh(bdiThresh, s.bg, s.thresh)
		}
		if dirty <= (thresh+bg)/2 { // free run
			th.DirtyPausedWhen = now
			th.NrDirtied = 0
			th.NrDirtiedPause = dirtyPollInterval(dirty, thresh)
			break
		}
		if !b.writebackRunning {
			k.StartBackgroundWriteback(b)
		}
		if !b.Knobs.StrictLimit {
			bdiThresh = k.bdiDirtyLimit(b, s.thresh)
			s.bdiDirty = b.Stats.Reclaimable + b.Stats.Writeback
		}
		s.dirtyExceeded = k.dirtyExceeded(b, s.bdiDirty, bdiThresh, s.nrDirty, s.thresh)
		pos := k.bdiPositionRatio(b, s.thresh, s.bg, s.nrDirty, bdiThresh, s.bdiDirty)
		if s.dirtyExceeded && !b.DirtyExceeded {
			b.DirtyExceeded = true
		}
		if now, due := k.bandwidthDue(b); due { // bdiUpdateBandwidth, its test inline
			k.updateBandwidth(b, now, s.thresh, s.bg, s.nrDirty, bdiThresh, s.bdiDirty, s.startTime)
		}
		dirtyRatelimit := b.DirtyRatelimit
		s.taskRatelimit = dirtyRatelimit * pos >> ratelimitCalcShift
		th.Stats.LastTaskBW = s.taskRatelimit
		s.maxPause = k.bdiMaxPause(b, s.bdiDirty)
		minPause, nrDirtiedPause := k.wbMinPause(b, s.maxPause, s.taskRatelimit, dirtyRatelimit)
		s.nrDirtiedPause = nrDirtiedPause
		var period, pause int64
		if s.taskRatelimit == 0 {
			period, pause = s.maxPause, s.maxPause
		} else {
			period = hz * s.pagesDirtied / s.taskRatelimit
			pause = period
			if th.DirtyPausedWhen != 0 {
				pause -= now - th.DirtyPausedWhen // think time
			}
			if pause < minPause {
				s.period, s.think = period, k.think(th, now)
				k.traceBdp(th, b, s, bdiThresh, min(pause, 0))
				switch {
				case pause < -hz:
					th.DirtyPausedWhen, th.NrDirtied = now, 0
				case period != 0:
					th.DirtyPausedWhen += period
					th.NrDirtied = 0
				case th.NrDirtiedPause <= s.pagesDirtied:
					th.NrDirtiedPause += s.pagesDirtied
				}
				s.noSleep = true
				break
			}
			if pause > s.maxPause {
				now += min(pause-s.maxPause, s.maxPause) // for occasional dropped task_ratelimit
				pause = s.maxPause
			}
		}
		s.period, s.think = period, k.think(th, now)
		k.traceBdp(th, b, s, bdiThresh, pause)
		s.now, s.pause = now, pause
		s.slept = true
		th.Stats.Pauses++
		d := k.W.JiffiesToTime(pause)
		b.Q.NoteDirtySleep(k.W.Now()) // wb->dirty_sleep, read by blk-wbt
		th.Stats.notePause(d)
		return d
	}
	if !s.dirtyExceeded && b.DirtyExceeded {
		b.DirtyExceeded = false
	}
	s.active = false
	if !b.writebackRunning && s.nrReclaimable > s.bg {
		k.StartBackgroundWriteback(b)
	}
	return 0
}
