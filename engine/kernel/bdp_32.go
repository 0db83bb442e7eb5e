package kernel

import "github.com/wblab/wblab/engine/sim"

// This file is Wu's IO-less balance_dirty_pages of v3.2 (mm/page-writeback.c):
// the dirtier never writes back itself; it sleeps at the rate the position
// ratio and the bdi's dirty_ratelimit give it (switch io_full_throttle off).

var pathBdpIOLess = swIOFullThrottle.path("balance_dirty_pages.io_less",
	"balance_dirty_pages calls of the IO-less design (the v3.2 or the v3.3+/v6 think-time loop)", swBdpThinkTime)

// bdp32 is the IO-less balance_dirty_pages of v3.2.
type bdp32 struct{ *Kernel }

// ioLessEnter counts an IO-less balance_dirty_pages call (and one on a
// strictlimit bdi).
func (k bdp32) ioLessEnter(th *Thread) {
	k.Fired(pathBdpIOLess)
	if k.mappingBDI(th).Knobs.StrictLimit {
		k.Fired(pathBdpStrictLimit)
	}
}

// ratelimited is balance_dirty_pages_ratelimited_nr of v3.2: the task's
// nr_dirtied against nr_dirtied_pause (32 KiB while the bdi is over its
// limit), and the per-CPU bdp_ratelimits catching tasks that never reach theirs.
func (k bdp32) ratelimited(th *Thread, nr int64) bool {
	ratelimit := th.NrDirtiedPause
	if k.mappingBDI(th).DirtyExceeded {
		ratelimit = min(ratelimit, 32>>(PageShift-10))
	}
	th.NrDirtied += nr
	th.Stats.Dirtied += nr
	cpu := max(th.Task.CPU, 0) % len(k.bdpRatelimits)
	p := &k.bdpRatelimits[cpu]
	if th.NrDirtied >= ratelimit {
		*p = 0
	} else {
		*p += nr
		if *p >= k.ratelimitPages {
			*p = 0
			ratelimit = 0
		}
	}
	return th.NrDirtied >= ratelimit
}

// room is RatelimitRoom for the IO-less kernels: the task's nr_dirtied_pause
// less what it dirtied, and the per-CPU bdp_ratelimits' room.
func (k bdp32) room(th *Thread) int64 {
	ratelimit := th.NrDirtiedPause
	if k.mappingBDI(th).DirtyExceeded {
		ratelimit = min(ratelimit, 32>>(PageShift-10))
	}
	room := ratelimit - th.NrDirtied
	cpu := max(th.Task.CPU, 0) % len(k.bdpRatelimits)
	room = min(room, k.ratelimitPages-k.bdpRatelimits[cpu])
	return max(room, 1)
}

// balance is the IO-less balance_dirty_pages of v3.2 (mm/page-writeback.c):
// the dirtier sleeps pages_dirtied / task_ratelimit, task_ratelimit being the
// bdi's dirty_ratelimit scaled by the position ratio, up to max_pause.
func (k bdp32) balance(th *Thread, resume bool) sim.Time {
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
			if k.bdpLoopExit(s) {
				break
			}
		}
		s.nrReclaimable = k.G.NrFileDirty
		s.nrDirty = s.nrReclaimable + k.G.NrWriteback
		s.bg, s.thresh = k.globalDirtyLimits(th)
		freerun := (s.thresh + s.bg) / 2
		if s.nrDirty <= freerun {
			s.pause = 0
			break
		}
		if !b.writebackRunning {
			k.StartBackgroundWriteback(b)
		}
		bdiThresh := k.bdiDirtyLimit(b, s.thresh)
		s.bdiDirty = b.Stats.Reclaimable + b.Stats.Writeback
		s.dirtyExceeded = k.dirtyExceeded(b, s.bdiDirty, bdiThresh, s.nrDirty, s.thresh)
		if s.dirtyExceeded && !b.DirtyExceeded {
			b.DirtyExceeded = true
		}
		if now, due := k.bandwidthDue(b); due { // bdiUpdateBandwidth, its test inline
			k.updateBandwidth(b, now, s.thresh, s.bg, s.nrDirty, bdiThresh, s.bdiDirty, s.startTime)
		}
		s.maxPause = k.bdiMaxPause(b, s.bdiDirty)
		s.dirtyRatelimit = b.DirtyRatelimit
		pos := k.bdiPositionRatio(b, s.thresh, s.bg, s.nrDirty, bdiThresh, s.bdiDirty)
		s.taskRatelimit = s.dirtyRatelimit * pos >> ratelimitCalcShift
		th.Stats.LastTaskBW = s.taskRatelimit
		var pause int64
		if s.taskRatelimit == 0 {
			pause = s.maxPause
		} else {
			pause = hz * s.pagesDirtied / s.taskRatelimit
			if pause <= 0 {
				k.traceBdp(th, b, s, bdiThresh, 0)
				s.pause = 1 // avoid resetting nr_dirtied_pause below
				break
			}
			pause = min(pause, s.maxPause)
		}
		k.traceBdp(th, b, s, bdiThresh, pause)
		s.pause = pause
		s.slept = true
		th.Stats.Pauses++
		d := k.W.JiffiesToTime(pause)
		b.Q.NoteDirtySleep(k.W.Now()) // bdi->wb.dirty_sleep, read by blk-wbt
		th.Stats.notePause(d)
		return d
	}
	// after the loop
	if !s.dirtyExceeded && b.DirtyExceeded {
		b.DirtyExceeded = false
	}
	th.NrDirtied = 0
	dr := s.dirtyRatelimit
	switch {
	case s.pause == 0: // freerun
		th.NrDirtiedPause = dirtyPollInterval(s.nrDirty, s.thresh)
	case s.pause <= s.maxPause/4 && s.pagesDirtied >= th.NrDirtiedPause:
		th.NrDirtiedPause = min(max(dr*(s.maxPause/2)/hz, s.pagesDirtied+s.pagesDirtied/8), s.pagesDirtied*4)
	case s.pause >= s.maxPause:
		th.NrDirtiedPause = 1 | min(max(dr*(s.maxPause/2)/hz, s.pagesDirtied/4), s.pagesDirtied-s.pagesDirtied/8)
	}
	s.active = false
	if b.writebackRunning {
		return 0
	}
	if s.nrReclaimable > s.bg {
		k.StartBackgroundWriteback(b)
	}
	return 0
}
