package devices

import "github.com/wblab/wblab/engine/sim"

// parallel is the service model of the simple, ssd, nvme and capped devices: a
// request passes, in order,
//
//  1. (capped) a token bucket: GCRA on bytes at BandwidthBps and on requests at IOPS,
//     with BurstNs of credit, as cloud volumes and QEMU throttling groups delay IO;
//  2. (ssd, nvme) the host link, a serial stage at BandwidthBps (writes) or ReadBps
//     (reads): SATA shares one link for both directions, NVMe has one per direction;
//  3. (ssd) the FTL, a serial stage of FTLNs for a write that does not continue one
//     of the last 8 write streams (small random writes pay flash programming and
//     garbage collection here; sequential streams do not);
//  4. one of Channels servers: RequestNs (ReadRequestNs) + size / ChannelBps
//     (ReadChannelBps).
//
// Stages are reserved at issue (each keeps the time it becomes free), so a request's
// completion time is known when it is issued: one event per request (see completions).
// simple is one server at RequestNs + size / BandwidthBps.
type parallel struct {
	w    *sim.World
	q    *Queue
	spec Spec
	qd   int

	chanFree   []sim.Time
	chanBps    [2]int64
	reqNs      [2]sim.Time
	linkBps    [2]int64
	linkFree   [2]sim.Time
	sharedLink bool
	ftl        sim.Time
	ftlFree    sim.Time
	streams    [8]int64
	streamNext int
	capBps     int64
	capIOPS    int64
	burst      sim.Time
	tatBytes   sim.Time
	tatIOs     sim.Time
	done       completions
}

func newParallel(w *sim.World, s Spec) *parallel {
	d := &parallel{w: w, spec: s, qd: s.QueueDepth}
	or := func(a, b int64) int64 {
		if a > 0 {
			return a
		}
		return b
	}
	switch s.Model {
	case ModelSimple:
		d.chanFree = make([]sim.Time, 1)
		d.chanBps = [2]int64{s.BandwidthBps, s.BandwidthBps}
		d.reqNs = [2]sim.Time{sim.Time(s.RequestNs), sim.Time(s.RequestNs)}
	case ModelCapped:
		d.chanFree = make([]sim.Time, s.Channels)
		d.chanBps = [2]int64{s.ChannelBps, s.ChannelBps}
		d.reqNs = [2]sim.Time{sim.Time(s.RequestNs), sim.Time(s.RequestNs)}
		d.capBps, d.capIOPS, d.burst = s.BandwidthBps, s.IOPS, sim.Time(s.BurstNs)
	default: // ssd, nvme
		d.chanFree = make([]sim.Time, s.Channels)
		d.chanBps = [2]int64{or(s.ReadChannelBps, s.ChannelBps), s.ChannelBps}
		d.reqNs = [2]sim.Time{sim.Time(or(s.ReadRequestNs, s.RequestNs)), sim.Time(s.RequestNs)}
		d.linkBps = [2]int64{or(s.ReadBps, s.BandwidthBps), s.BandwidthBps}
		d.sharedLink = s.Model == ModelSSD
		d.ftl = sim.Time(s.FTLNs)
	}
	for i := range d.streams {
		d.streams[i] = -1
	}
	d.done.init(w, func(r *Request) { d.q.Complete(r) })
	return d
}

func (d *parallel) attach(q *Queue) { d.q = q }
func (d *parallel) QueueDepth() int { return d.qd }

// xfer is the time to move bytes at bps.
func xfer(bytes, bps int64) sim.Time {
	if bps <= 0 {
		return 0
	}
	return sim.Time(bytes * int64(sim.Second) / bps)
}

// sequential reports whether a write at sector continues a recent write stream, and
// records its end as the stream's new position.
func (d *parallel) sequential(r *Request) bool {
	for i, e := range d.streams {
		if e == r.Sector {
			d.streams[i] = r.EndSector()
			return true
		}
	}
	d.streams[d.streamNext] = r.EndSector()
	d.streamNext = (d.streamNext + 1) % len(d.streams)
	return false
}

func (d *parallel) Issue(r *Request) {
	t := d.w.Now()
	op := r.Op
	bytes := r.Bytes()
	if d.capBps > 0 || d.capIOPS > 0 {
		// GCRA: a request conforms at TAT - burst; TAT advances by its cost
		if d.capBps > 0 {
			t = max(t, d.tatBytes-d.burst)
		}
		if d.capIOPS > 0 {
			t = max(t, d.tatIOs-d.burst)
		}
		if d.capBps > 0 {
			d.tatBytes = max(d.tatBytes, t) + xfer(bytes, d.capBps)
		}
		if d.capIOPS > 0 {
			d.tatIOs = max(d.tatIOs, t) + sim.Second/sim.Time(d.capIOPS)
		}
	}
	if bps := d.linkBps[op]; bps > 0 {
		l := int(op)
		if d.sharedLink {
			l = 0
		}
		t = max(t, d.linkFree[l]) + xfer(bytes, bps)
		d.linkFree[l] = t
	}
	if d.ftl > 0 && op == Write && !d.sequential(r) {
		t = max(t, d.ftlFree) + d.ftl
		d.ftlFree = t
	}
	// chanFree is a min-heap of server free times: take the earliest free server
	t = max(t, d.chanFree[0]) + d.reqNs[op] + xfer(bytes, d.chanBps[op])
	d.chanFree[0] = t
	siftDown(d.chanFree)
	d.done.at(r, t)
}

func (d *parallel) requestTimer(r *Request) { d.q.Complete(r) }

// siftDown restores the min-heap h after h[0] grew.
func siftDown(h []sim.Time) {
	i, n := 0, len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r] < h[l] {
			m = r
		}
		if h[m] >= h[i] {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
