package devices

import "github.com/wblab/wblab/engine/sim"

// Iostat are cumulative /proc/diskstats-style counters, plus the queue's state at
// the snapshot time. Two snapshots give iostat's numbers (Rates).
type Iostat struct {
	At                sim.Time    // snapshot time
	IOs               [2]int64    // completed requests per direction (r_ios, w_ios)
	Merges            [2]int64    // bios (pages) merged into an existing request (rrqm, wrqm)
	Sectors           [2]int64    // sectors transferred
	Ticks             [2]sim.Time // sum of allocation -> completion times (r_ticks, w_ticks)
	ServiceTicks      [2]sim.Time // sum of dispatch -> completion times (device service)
	Busy              sim.Time    // time with at least one request allocated (io_ticks)
	DeviceBusy        sim.Time    // time with at least one request at the device
	TimeInQueue       sim.Time    // integral of allocated requests over time (time_in_queue)
	DeviceTimeInQueue sim.Time    // integral of requests at the device over time
	InFlight          int         // at At: allocated, not completed (in_flight)
	Issued            int         // at At: at the device
}

// IostatRates are `iostat -x -m`'s columns over an interval. Floats: reports only.
type IostatRates struct {
	Seconds float64 // interval
	RPS     float64 // r/s: completed reads per second
	WPS     float64 // w/s
	RMergeS float64 // rrqm/s
	WMergeS float64 // wrqm/s
	RMBps   float64 // rMB/s (MB = 2^20 bytes, as iostat -m)
	WMBps   float64 // wMB/s
	AvgRqSz float64 // avgrq-sz: sectors per completed request
	AvgQuSz float64 // avgqu-sz: time_in_queue / interval (requests allocated on average)
	Await   float64 // await: ms from allocation to completion per request
	RAwait  float64 // r_await, ms
	WAwait  float64 // w_await, ms
	Svctm   float64 // ms at the device per request (dispatch -> completion)
	Util    float64 // %util: io_ticks / interval * 100
	DevQu   float64 // average requests at the device (device queue depth in use)
}

// Rates computes iostat's numbers between snapshots prev and cur. interval 0 means
// cur.At - prev.At.
func Rates(prev, cur Iostat, interval sim.Time) IostatRates {
	if interval <= 0 {
		interval = cur.At - prev.At
	}
	var r IostatRates
	if interval <= 0 {
		return r
	}
	sec := interval.Seconds()
	r.Seconds = sec
	dr, dw := float64(cur.IOs[Read]-prev.IOs[Read]), float64(cur.IOs[Write]-prev.IOs[Write])
	r.RPS, r.WPS = dr/sec, dw/sec
	r.RMergeS = float64(cur.Merges[Read]-prev.Merges[Read]) / sec
	r.WMergeS = float64(cur.Merges[Write]-prev.Merges[Write]) / sec
	ds := [2]float64{float64(cur.Sectors[Read] - prev.Sectors[Read]), float64(cur.Sectors[Write] - prev.Sectors[Write])}
	r.RMBps, r.WMBps = ds[Read]/2048/sec, ds[Write]/2048/sec
	ms := func(t sim.Time) float64 { return float64(t) / float64(sim.Millisecond) }
	tr, tw := cur.Ticks[Read]-prev.Ticks[Read], cur.Ticks[Write]-prev.Ticks[Write]
	if n := dr + dw; n > 0 {
		r.AvgRqSz = (ds[Read] + ds[Write]) / n
		r.Await = ms(tr+tw) / n
		r.Svctm = ms(cur.ServiceTicks[Read]-prev.ServiceTicks[Read]+cur.ServiceTicks[Write]-prev.ServiceTicks[Write]) / n
	}
	if dr > 0 {
		r.RAwait = ms(tr) / dr
	}
	if dw > 0 {
		r.WAwait = ms(tw) / dw
	}
	r.AvgQuSz = float64(cur.TimeInQueue-prev.TimeInQueue) / float64(interval)
	r.DevQu = float64(cur.DeviceTimeInQueue-prev.DeviceTimeInQueue) / float64(interval)
	r.Util = 100 * float64(cur.Busy-prev.Busy) / float64(interval)
	return r
}
