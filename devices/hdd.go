package devices

import (
	"math/bits"

	"github.com/wblab/wblab/engine/sim"
)

// HDD model constants (kernel-notes §7.2).
const (
	hddZones       = 16                     // media zones, outer (LBA 0) to inner
	hddWindow      = 32                     // cached extents the drive considers for destage (look-ahead)
	hddDestageMax  = 2048                   // sectors destaged per media operation (1 MiB)
	hddMaxWait     = 500 * sim.Millisecond  // NCQ aging: a host command older than this goes first
	hddReadAhead   = 2 << 20                // bytes the drive reads ahead after a read
	hddRotSlackNs  = int64(sim.Microsecond) // rounding slack: a sector "just under the head"
	hddSeekXFPBits = 30                     // fixed-point bits of the seek distance fraction
)

// hdd is a rotating disk with one actuator:
//
//   - seek(x) = a + b*sqrt(x) + c*x for a distance x (fraction of the disk's sectors,
//     x > one track), with a = SeekTrackNs and b, c solved so that seek(1) =
//     SeekFullNs and the mean over uniformly random pairs (E[sqrt x] = 8/15,
//     E[x] = 1/3) is SeekAvgNs; the a + b*sqrt(x) shape of short seeks (Ruemmler &
//     Wilkes 1994) plus a linear term for long ones;
//   - rotation: the platter angle is tracked (time mod 60e9/RPM); a sector's angle
//     is its offset within its track, so back-to-back sequential operations stream
//     and anything else waits for its sector to come round;
//   - zoned media rate: hddZones zones from BandwidthBps (outer, LBA 0) to InnerBps,
//     sectors per track = rate * revolution;
//   - a volatile write cache of WriteCacheBytes (0 = write-through): writes are
//     acknowledged after RequestNs + size / IfaceBps and destaged later; FUA writes
//     go through; a write that does not fit waits for destaging;
//   - NCQ (QueueDepth > 1): the next media operation is the shortest positioning
//     time first among the host commands and the first hddWindow cached extents,
//     with hddMaxWait aging of host commands and of writes waiting for cache space
//     (then destaging goes first); with QueueDepth 1 the only host command competes with
//     destaging the same way;
//   - read-ahead: after a read the drive keeps reading; a read continuing it pays
//     only the transfer not yet done (up to hddReadAhead).
type hdd struct {
	w    *sim.World
	q    *Queue
	spec Spec

	rev        int64 // ns per revolution
	capSectors int64
	zoneSecs   int64
	spt        [hddZones]int64 // sectors per track
	a, b, c    int64           // seek curve, ns

	head     int64 // sector after the last media operation
	headTime sim.Time
	lastRead bool // last media op was a host read (read-ahead running)

	busy  bool
	mech  sim.Timer
	cur   *Request // host command on the media, or nil for a destage
	curEx int      // destage: extent index
	curN  int64    // destage: sectors

	hostQ []*Request // host commands needing the media, arrival order

	cacheSize int64
	cacheUsed int64
	dirty     []extent // cached extents awaiting destage, arrival order; dead ones have n == 0
	dhead     int
	live      int
	waitCache []*Request
	ifaceFree sim.Time
	acks      completions
}

type extent struct{ sector, n int64 }

func newHDD(w *sim.World, s Spec) *hdd {
	d := &hdd{w: w, spec: s, cacheSize: s.WriteCacheBytes}
	d.rev = int64(60*sim.Second) / int64(s.RPM)
	d.capSectors = s.CapacityBytes / SectorSize
	d.zoneSecs = (d.capSectors + hddZones - 1) / hddZones
	for z := range d.spt {
		rate := s.BandwidthBps - (s.BandwidthBps-s.InnerBps)*int64(2*z+1)/(2*hddZones)
		// rate/512 first: no overflow for any rate Validate allows
		d.spt[z] = max(1, rate/SectorSize*d.rev/int64(sim.Second))
	}
	d.a, d.b, d.c = seekCurve(s.SeekTrackNs, s.SeekAvgNs, s.SeekFullNs)
	d.mech.Fn = d.mechDone
	d.acks.init(w, func(r *Request) { d.q.Complete(r) })
	return d
}

// seekCurve solves a + b*sqrt(x) + c*x for seek(0+) = track, seek(1) = full and
// mean over random pairs = avg.
func seekCurve(track, avg, full int64) (a, b, c int64) {
	f, m := full-track, avg-track
	b = (15*m - 5*f) / 3
	return track, b, f - b
}

func (d *hdd) attach(q *Queue) { d.q = q }
func (d *hdd) QueueDepth() int { return d.spec.QueueDepth }

func (d *hdd) zone(s int64) int {
	z := int(sdiv(s, d.zoneSecs))
	return min(max(z, 0), hddZones-1)
}

// seekTime is the seek for a distance in sectors.
func (d *hdd) seekTime(dist int64) int64 {
	if dist >= d.capSectors {
		dist = d.capSectors - 1
	}
	var xf uint64
	if uint64(dist) < 1<<(64-hddSeekXFPBits) {
		// dist << 30 fits in 64 bits (any disk under 8 TiB): one plain division
		// instead of a 128-bit one (emulated in software on wasm), same quotient
		xf = uint64(dist) << hddSeekXFPBits / uint64(d.capSectors)
	} else {
		hi, lo := bits.Mul64(uint64(dist), 1<<hddSeekXFPBits)
		xf, _ = bits.Div64(hi, lo, uint64(d.capSectors))
	}
	sq := intSqrt(xf) // sqrt(x) << 15
	return d.a + (d.b*int64(sq))>>(hddSeekXFPBits/2) + (d.c*int64(xf))>>hddSeekXFPBits
}

// SeekTime is the model's seek time for a distance in bytes (tests, docs).
func (d *hdd) SeekTime(distBytes int64) sim.Time { return sim.Time(d.seekTime(distBytes / SectorSize)) }

// angle is the time offset of sector s within a revolution.
func (d *hdd) angle(s int64) int64 { return d.angleIn(s, d.zone(s)) }

// angleIn is angle for a sector s known to lie in zone z.
func (d *hdd) angleIn(s int64, z int) int64 {
	off := smod(s-int64(z)*d.zoneSecs, d.spt[z])
	return sdiv(off*d.rev, d.spt[z])
}

// transfer is the media time for n sectors starting at s.
func (d *hdd) transfer(s, n int64) int64 { return sdiv(n*d.rev, d.spt[d.zone(s)]) }

// position is the seek + rotational latency to reach sector s starting now.
func (d *hdd) position(now sim.Time, s int64) int64 {
	dist := s - d.head
	if dist < 0 {
		dist = -dist
	}
	z := d.zone(s)
	seek := int64(0)
	if dist >= d.spt[z] {
		seek = d.seekTime(dist)
	}
	phase := smod(int64(now)+seek, d.rev)
	// angle and phase both lie in [0, rev): their difference mod rev needs no division
	rot := d.angleIn(s, z) - phase
	if rot < 0 {
		rot += d.rev
	}
	if rot > d.rev-hddRotSlackNs {
		rot = 0
	}
	return seek + rot
}

// cost is the time of a media operation at s for n sectors starting now (read
// reports whether it is a host read, which may continue the read-ahead).
func (d *hdd) cost(now sim.Time, s, n int64, read bool) int64 {
	x := d.transfer(s, n)
	if read && d.lastRead && s == d.head {
		gap := int64(now - d.headTime)
		ra := d.transfer(s, hddReadAhead/SectorSize)
		done := min(gap, ra, x)
		return max(x-done, d.ifaceTime(n*SectorSize))
	}
	return d.position(now, s) + x
}

func (d *hdd) ifaceTime(bytes int64) int64 {
	return d.spec.RequestNs + int64(xfer(bytes, d.spec.IfaceBps))
}

func (d *hdd) Issue(r *Request) {
	if r.Op == Write && d.cacheSize > 0 && r.Flags&FlagFUA == 0 && r.Bytes() <= d.cacheSize {
		if len(d.waitCache) == 0 && d.cacheUsed+r.Bytes() <= d.cacheSize {
			d.accept(r)
		} else {
			d.waitCache = append(d.waitCache, r)
		}
	} else {
		d.hostQ = append(d.hostQ, r)
	}
	if !d.busy {
		d.startNext()
	}
}

// accept puts a write into the cache and acknowledges it over the link.
func (d *hdd) accept(r *Request) {
	now := d.w.Now()
	d.cacheUsed += r.Bytes()
	if n := len(d.dirty); n > d.dhead && d.dirty[n-1].n > 0 && d.dirty[n-1].sector+d.dirty[n-1].n == r.Sector {
		d.dirty[n-1].n += r.Sectors()
	} else {
		d.dirty = append(d.dirty, extent{r.Sector, r.Sectors()})
		d.live++
	}
	ack := max(now, d.ifaceFree) + sim.Time(d.ifaceTime(r.Bytes()))
	d.ifaceFree = ack
	d.acks.at(r, ack)
}

func (d *hdd) requestTimer(r *Request) { d.q.Complete(r) }

// startNext picks and starts the next media operation, if any.
func (d *hdd) startNext() {
	now := d.w.Now()
	best, bestCost := -1, int64(-1)
	pick := func(i int, c int64) {
		if bestCost < 0 || c < bestCost {
			best, bestCost = i, c
		}
	}
	// aging: the oldest of a host command and a write waiting for cache space goes
	// first once it has waited hddMaxWait
	hostAge, cacheAge := sim.Time(-1), sim.Time(-1)
	if len(d.hostQ) > 0 {
		hostAge = now - d.hostQ[0].Dispatch
	}
	if len(d.waitCache) > 0 {
		cacheAge = now - d.waitCache[0].Dispatch
	}
	switch {
	case hostAge > hddMaxWait && hostAge >= cacheAge:
		best, bestCost = 0, d.cost(now, d.hostQ[0].Sector, d.hostQ[0].Sectors(), d.hostQ[0].Op == Read)
	default:
		if cacheAge <= hddMaxWait {
			for i, r := range d.hostQ {
				pick(i, d.cost(now, r.Sector, r.Sectors(), r.Op == Read))
			}
		}
		seen := 0
		for i := d.dhead; i < len(d.dirty) && seen < hddWindow; i++ {
			e := d.dirty[i]
			if e.n == 0 {
				continue
			}
			seen++
			pick(-2-i, d.cost(now, e.sector, min(e.n, hddDestageMax), false))
		}
	}
	if best == -1 {
		return
	}
	d.busy = true
	if best >= 0 {
		r := d.hostQ[best]
		copy(d.hostQ[best:], d.hostQ[best+1:])
		d.hostQ[len(d.hostQ)-1] = nil
		d.hostQ = d.hostQ[:len(d.hostQ)-1]
		d.cur = r
		d.head = r.EndSector()
		d.lastRead = r.Op == Read
	} else {
		i := -2 - best
		d.cur, d.curEx = nil, i
		d.curN = min(d.dirty[i].n, hddDestageMax)
		d.head = d.dirty[i].sector + d.curN
		d.lastRead = false
	}
	d.w.After(&d.mech, sim.Time(bestCost))
}

// compact drops destaged extents (only between media operations: indices move).
func (d *hdd) compact() {
	n := 0
	for _, e := range d.dirty[d.dhead:] {
		if e.n > 0 {
			d.dirty[n] = e
			n++
		}
	}
	d.dirty = d.dirty[:n]
	d.dhead = 0
}

func (d *hdd) mechDone() {
	now := d.w.Now()
	d.busy = false
	d.headTime = now
	if r := d.cur; r != nil {
		d.cur = nil
		d.startNext()
		d.q.Complete(r)
		return
	}
	e := &d.dirty[d.curEx]
	e.sector += d.curN
	e.n -= d.curN
	d.cacheUsed -= d.curN * SectorSize
	if e.n == 0 {
		d.live--
		for d.dhead < len(d.dirty) && d.dirty[d.dhead].n == 0 {
			d.dhead++
		}
		if dead := len(d.dirty) - d.live; dead > 64 && dead > d.live {
			d.compact()
		}
	}
	for len(d.waitCache) > 0 && d.cacheUsed+d.waitCache[0].Bytes() <= d.cacheSize {
		r := d.waitCache[0]
		copy(d.waitCache, d.waitCache[1:])
		d.waitCache[len(d.waitCache)-1] = nil
		d.waitCache = d.waitCache[:len(d.waitCache)-1]
		d.accept(r)
	}
	d.startNext()
}

// sdiv is a / b for b > 0, as an unsigned division when a ≥ 0 (the same quotient):
// on wasm a signed 64-bit division is a runtime call (its MinInt64 / -1 check),
// an unsigned one a single instruction.
func sdiv(a, b int64) int64 {
	if a >= 0 {
		return int64(uint64(a) / uint64(b))
	}
	return a / b
}

// smod is a % b for b > 0, unsigned when a ≥ 0 (see sdiv).
func smod(a, b int64) int64 {
	if a >= 0 {
		return int64(uint64(a) % uint64(b))
	}
	return a % b
}
