package devices

import (
	"math/bits"

	"github.com/wblab/wblab/engine/sim"
)

// HDD model constants (kernel-notes §7.2). Physical parameters live in the Spec
// (devices/spec.go, with their sources); these are the model's structure.
const (
	// hddZones: recording zones of equal radial width, outer (LBA 0) to inner. Zoned
	// bit recording keeps the linear bit density about constant, so a zone's rate is
	// proportional to its radius; desktop drives of 2009-2011 have some 20-30 zones
	// (an estimate: drive makers do not publish zone tables).
	hddZones = 24
	// hddDestageMax: sectors the firmware writes from one cached run per media
	// operation (1 MiB) before it re-decides what to write next.
	hddDestageMax = 2048
	// hddMaxWait: command aging. NCQ firmware orders by shortest positioning time but
	// bounds starvation: a host command, a cached run or a write waiting for buffer
	// space older than this goes first (an estimate; firmware does not publish it).
	// What a cached run's age counts from is Spec.DestageAge: with "run" it restarts
	// at each partial destage, so runs older than this are destaged round-robin,
	// hddDestageMax at a time; with "write" the run ages from the arrival of the
	// write at its start, so destaging follows the writes' arrival order.
	hddMaxWait     = 500 * sim.Millisecond
	hddReadAhead   = 2 << 20                // bytes the drive reads ahead after a read
	hddRotSlackNs  = int64(sim.Microsecond) // rounding slack: a sector "just under the head"
	hddSeekXFPBits = 30                     // fixed-point bits of the seek distance fraction
	// hddSpindlePPM: the spindle's speed deviation from nominal, drawn per run from
	// the config's seed within ±hddSpindlePPM parts per million. The motor is phase-
	// locked to the drive's own crystal, not to the host's clock, so the platter's
	// angle when a command arrives is not a function of host time. With the initial
	// angle (also drawn from the seed) this is the run-to-run variation a rotating
	// disk adds: a command that arrives a few microseconds earlier or later waits up
	// to a whole revolution more or less. 100 ppm (0.01 %) is an estimate of a
	// crystal-referenced spindle servo; its only effect on throughput is ±0.01 %.
	hddSpindlePPM = 100
)

// hdd is a rotating disk with one actuator, seen through a partition:
//
//   - geometry: a whole disk of DiskBytes (0 = the partition is the disk) with the
//     partition at PartStartBytes; hddZones zones of equal radial width whose media
//     rate falls linearly with the radius from BandwidthBps (outer, LBA 0) to
//     InnerBps (inner); sectors per track = rate * revolution, the same number of
//     tracks in every zone;
//   - seek(x) = a + b*sqrt(x) + c*x for a radial distance x (tracks crossed / tracks
//     on the disk), with a = SeekTrackNs and b, c solved so that seek(1) =
//     SeekFullNs and the mean over uniformly random track pairs (E[sqrt x] = 8/15,
//     E[x] = 1/3) is SeekAvgNs: the a + b*sqrt(x) shape of short seeks (Ruemmler &
//     Wilkes 1994) plus a linear term for long ones. A target less than a track
//     away needs no seek (a head or track switch hidden by the track skew);
//   - rotation: the platter angle is tracked, (time + phase0) mod revolution, with
//     the initial angle and the spindle's exact speed drawn from the world's seeded
//     source (hddSpindlePPM); a sector's angle is its offset within its track, so
//     back-to-back sequential operations stream and anything else waits for its
//     sector to come round;
//   - a volatile write cache of WriteCacheBytes (0 = write-through) with adaptive
//     segmentation: it holds at most WriteCacheSegs discontiguous runs; a write that
//     continues a cached run joins it, any other write needs a free segment. Writes
//     are acknowledged after RequestNs + size / IfaceBps; FUA writes go through; a
//     write that does not fit (bytes or segments) waits for destaging, holding its
//     NCQ tag;
//   - reordering (firmware): the next media operation is the one with the shortest
//     positioning time (seek + rotation) among the host commands and the cached
//     runs, with hddMaxWait aging (timed as DestageAge says); QueueDepth (NCQ
//     tags) bounds the host commands the drive sees, WriteCacheSegs the cached
//     runs it can choose from;
//   - read-ahead: after a read the drive keeps reading; a read continuing it pays
//     only the transfer not yet done (up to hddReadAhead).
type hdd struct {
	w    *sim.World
	q    *Queue
	spec Spec

	rev         int64 // ns per revolution (seeded spindle speed)
	phase0      int64 // platter angle at time 0, ns into a revolution (seeded)
	partStart   int64 // first sector of the partition on the disk
	diskSectors int64
	zoneStart   [hddZones + 1]int64 // first disk sector of each zone
	spt         [hddZones]int64     // sectors per track
	zoneTracks  int64               // tracks per zone
	tracks      int64               // tracks on the disk
	a, b, c     int64               // seek curve, ns

	head     int64 // disk sector after the last media operation
	headTime sim.Time
	lastRead bool // last media op was a host read (read-ahead running)

	busy  bool
	mech  sim.Timer
	cur   *Request // host command on the media, or nil for a destage
	curEx int      // destage: extent index
	curN  int64    // destage: sectors

	hostQ []*Request // host commands needing the media, arrival order

	cacheSize int64
	cacheSegs int
	ageWrites bool // DestageAge "write": a run keeps its writes' arrival times
	cacheUsed int64
	dirty     []extent // cached runs awaiting destage, arrival order; dead ones have n == 0
	dhead     int
	live      int
	waitCache []*Request
	ifaceFree sim.Time
	acks      completions

	stats MediaStats
}

// MediaStats are the drive's own counters: what its head did.
type MediaStats struct {
	Ops        int64    // media operations (host commands and destages)
	Seeks      int64    // operations that moved the head to another track
	SeekTime   sim.Time // time moving the head
	RotateTime sim.Time // time waiting for the sector to come round
	XferTime   sim.Time // time transferring
}

// extent is a cached run (partition sectors) and the time it ages from; with
// ageWrites, pieces are the writes it holds, in order.
type extent struct {
	sector, n int64
	at        sim.Time
	pieces    []piece
}

// piece is a write held in a cached run: it ends below sector end and arrived at at.
type piece struct {
	end int64
	at  sim.Time
}

func newHDD(w *sim.World, s Spec) *hdd {
	d := &hdd{w: w, spec: s, cacheSize: s.WriteCacheBytes, cacheSegs: s.WriteCacheSegs, ageWrites: s.DestageAge == DestageAgeWrite}
	nominal := int64(60*sim.Second) / int64(s.RPM)
	// seeded: spindle speed within ±hddSpindlePPM and the initial platter angle
	d.rev = nominal + nominal*(w.Rand.Int64N(2*hddSpindlePPM+1)-hddSpindlePPM)/1_000_000
	d.phase0 = w.Rand.Int64N(d.rev)
	d.partStart = s.PartStartBytes / SectorSize
	disk := s.DiskBytes
	if disk == 0 {
		disk = s.CapacityBytes
	}
	d.diskSectors = disk / SectorSize
	var sum int64
	for z := range d.spt {
		rate := s.BandwidthBps - (s.BandwidthBps-s.InnerBps)*int64(2*z+1)/(2*hddZones)
		// rate/512 first: no overflow for any rate Validate allows
		d.spt[z] = max(1, rate/SectorSize*d.rev/int64(sim.Second))
		sum += d.spt[z]
	}
	d.zoneTracks = max(1, (d.diskSectors+sum-1)/sum)
	d.tracks = d.zoneTracks * hddZones
	for z := range d.spt {
		d.zoneStart[z+1] = d.zoneStart[z] + d.zoneTracks*d.spt[z]
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

// zone is the zone of disk sector ds.
func (d *hdd) zone(ds int64) int {
	lo, hi := 0, hddZones-1
	for lo < hi {
		m := (lo + hi + 1) / 2
		if d.zoneStart[m] <= ds {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo
}

// track is the track of disk sector ds in zone z (counted from the outer edge).
func (d *hdd) track(ds int64, z int) int64 {
	return int64(z)*d.zoneTracks + sdiv(ds-d.zoneStart[z], d.spt[z])
}

// seekTime is the seek across dt tracks (dt ≥ 1).
func (d *hdd) seekTime(dt int64) int64 {
	if dt >= d.tracks {
		dt = d.tracks - 1
	}
	var xf uint64
	if uint64(dt) < 1<<(64-hddSeekXFPBits) {
		// dt << 30 fits in 64 bits: one plain division instead of a 128-bit one
		// (emulated in software on wasm), same quotient
		xf = uint64(dt) << hddSeekXFPBits / uint64(d.tracks)
	} else {
		hi, lo := bits.Mul64(uint64(dt), 1<<hddSeekXFPBits)
		xf, _ = bits.Div64(hi, lo, uint64(d.tracks))
	}
	sq := IntSqrt(xf) // sqrt(x) << 15
	return d.a + (d.b*int64(sq))>>(hddSeekXFPBits/2) + (d.c*int64(xf))>>hddSeekXFPBits
}

// SeekTime is the model's seek time across a fraction x of the stroke (tests, docs).
func (d *hdd) SeekTime(x float64) sim.Time {
	return sim.Time(d.seekTime(max(1, int64(x*float64(d.tracks)))))
}

// angleIn is the time offset within a revolution of disk sector ds in zone z.
func (d *hdd) angleIn(ds int64, z int) int64 {
	off := smod(ds-d.zoneStart[z], d.spt[z])
	return sdiv(off*d.rev, d.spt[z])
}

// transfer is the media time for n sectors starting at partition sector s.
func (d *hdd) transfer(s, n int64) int64 {
	return sdiv(n*d.rev, d.spt[d.zone(s+d.partStart)])
}

// positionParts is the seek and the rotational latency to reach partition sector s
// starting now.
func (d *hdd) positionParts(now sim.Time, s int64) (seek, rot int64) {
	ds := s + d.partStart
	z := d.zone(ds)
	dist := ds - d.head
	if dist < 0 {
		dist = -dist
	}
	if dist >= d.spt[z] {
		hz := d.zone(d.head)
		dt := d.track(ds, z) - d.track(d.head, hz)
		if dt < 0 {
			dt = -dt
		}
		seek = d.seekTime(max(dt, 1))
	}
	phase := smod(int64(now)+d.phase0+seek, d.rev)
	// angle and phase both lie in [0, rev): their difference mod rev needs no division
	rot = d.angleIn(ds, z) - phase
	if rot < 0 {
		rot += d.rev
	}
	if rot > d.rev-hddRotSlackNs {
		rot = 0
	}
	return seek, rot
}

// position is the seek + rotational latency to reach partition sector s now.
func (d *hdd) position(now sim.Time, s int64) int64 {
	seek, rot := d.positionParts(now, s)
	return seek + rot
}

// cost is the time of a media operation at s for n sectors starting now (read
// reports whether it is a host read, which may continue the read-ahead).
func (d *hdd) cost(now sim.Time, s, n int64, read bool) int64 {
	x := d.transfer(s, n)
	if read && d.lastRead && s+d.partStart == d.head {
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

// Media returns the drive's head counters.
func (d *hdd) Media() MediaStats { return d.stats }

func (d *hdd) Issue(r *Request) {
	if r.Op == Write && d.cacheSize > 0 && r.Flags&FlagFUA == 0 && r.Bytes() <= d.cacheSize {
		if len(d.waitCache) == 0 && d.fits(r) {
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

// joinable returns the live cached run that r continues, or -1.
func (d *hdd) joinable(r *Request) int {
	for i := len(d.dirty) - 1; i >= d.dhead; i-- {
		if e := d.dirty[i]; e.n > 0 && e.sector+e.n == r.Sector {
			return i
		}
	}
	return -1
}

// fits reports whether the cache can take r now: buffer space, and a segment
// (r continues a cached run, or a segment is free).
func (d *hdd) fits(r *Request) bool {
	if d.cacheUsed+r.Bytes() > d.cacheSize {
		return false
	}
	return d.cacheSegs == 0 || d.live < d.cacheSegs || d.joinable(r) >= 0
}

// accept puts a write into the cache and acknowledges it over the link.
func (d *hdd) accept(r *Request) {
	now := d.w.Now()
	d.cacheUsed += r.Bytes()
	if i := d.joinable(r); i >= 0 {
		e := &d.dirty[i]
		e.n += r.Sectors()
		if d.ageWrites {
			e.pieces = append(e.pieces, piece{e.sector + e.n, now})
		}
	} else {
		e := extent{sector: r.Sector, n: r.Sectors(), at: now}
		if d.ageWrites {
			e.pieces = []piece{{r.Sector + r.Sectors(), now}}
		}
		d.dirty = append(d.dirty, e)
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
	// aging: the oldest of a host command, a cached run and a write waiting for
	// cache space goes first once it has waited hddMaxWait (a waiting write is
	// served by destaging the oldest run)
	hostAge, cacheAge, runAge := sim.Time(-1), sim.Time(-1), sim.Time(-1)
	if len(d.hostQ) > 0 {
		hostAge = now - d.hostQ[0].Dispatch
	}
	if len(d.waitCache) > 0 {
		cacheAge = now - d.waitCache[0].Dispatch
	}
	oldest := -1
	for i := d.dhead; i < len(d.dirty) && d.live > 0; i++ {
		if e := d.dirty[i]; e.n > 0 && (oldest < 0 || e.at < d.dirty[oldest].at) {
			oldest = i
		}
	}
	if oldest >= 0 {
		runAge = now - d.dirty[oldest].at
	}
	switch {
	case hostAge > hddMaxWait && hostAge >= cacheAge && hostAge >= runAge:
		best, bestCost = 0, d.cost(now, d.hostQ[0].Sector, d.hostQ[0].Sectors(), d.hostQ[0].Op == Read)
	case max(cacheAge, runAge) > hddMaxWait:
		e := d.dirty[oldest]
		best, bestCost = -2-oldest, d.cost(now, e.sector, min(e.n, hddDestageMax), false)
	default:
		for i, r := range d.hostQ {
			pick(i, d.cost(now, r.Sector, r.Sectors(), r.Op == Read))
		}
		for i := d.dhead; i < len(d.dirty); i++ {
			if e := d.dirty[i]; e.n > 0 {
				pick(-2-i, d.cost(now, e.sector, min(e.n, hddDestageMax), false))
			}
		}
	}
	if best == -1 {
		return
	}
	d.busy = true
	var s, n int64
	read := false
	if best >= 0 {
		r := d.hostQ[best]
		copy(d.hostQ[best:], d.hostQ[best+1:])
		d.hostQ[len(d.hostQ)-1] = nil
		d.hostQ = d.hostQ[:len(d.hostQ)-1]
		d.cur = r
		s, n, read = r.Sector, r.Sectors(), r.Op == Read
	} else {
		i := -2 - best
		d.cur, d.curEx = nil, i
		d.curN = min(d.dirty[i].n, hddDestageMax)
		s, n = d.dirty[i].sector, d.curN
	}
	d.account(now, s, n, read, bestCost)
	d.head = s + n + d.partStart
	d.lastRead = read
	d.w.After(&d.mech, sim.Time(bestCost))
}

// account adds a media operation of total time c to the head counters.
func (d *hdd) account(now sim.Time, s, n int64, read bool, c int64) {
	st := &d.stats
	st.Ops++
	x := d.transfer(s, n)
	if read && d.lastRead && s+d.partStart == d.head {
		st.XferTime += sim.Time(c)
		return
	}
	seek, rot := d.positionParts(now, s)
	if seek > 0 {
		st.Seeks++
	}
	st.SeekTime += sim.Time(seek)
	st.RotateTime += sim.Time(rot)
	st.XferTime += sim.Time(x)
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
	if d.ageWrites {
		// the rest of the run ages from the arrival of the write now at its start
		k := 0
		for k < len(e.pieces) && e.pieces[k].end <= e.sector {
			k++
		}
		e.pieces = e.pieces[k:]
		if len(e.pieces) > 0 {
			e.at = e.pieces[0].at
		}
	} else {
		e.at = now // the rest of the run ages from here (it may have been appended since)
	}
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
	for len(d.waitCache) > 0 && d.fits(d.waitCache[0]) {
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
