package devices

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

// TestHDDRandomQD1: random 4 KiB writes through to the media at queue depth 1 run
// at 1 / (average seek + half a revolution + transfer).
func TestHDDRandomQD1(t *testing.T) {
	for _, name := range []string{"wu2011-hdd", "kara2016-qd1"} {
		t.Run(name, func(t *testing.T) {
			w := sim.NewWorld(1000, 3)
			q := mustQueue(t, w, name+",qd=1,wcache=0,wbt=off")
			s := q.Spec()
			span := s.CapacityBytes / SectorSize
			j := newJob(q, w, 1, Write, 1, 1, true, 0, span)
			r := measure(t, w, q, sim.Second, 60*sim.Second, j)
			// the mean seek between random points of the partition (a band of the
			// stroke when the partition is part of a disk)
			d := newHDD(sim.NewWorld(1000, 3), s)
			var seek float64
			const n = 20000
			for i := 0; i < n; i++ {
				a, b := d.partStart+w.Rand.Int64N(span), d.partStart+w.Rand.Int64N(span)
				ta, tb := d.track(a, d.zone(a)), d.track(b, d.zone(b))
				seek += float64(d.seekTime(max(ta-tb, tb-ta, 1))) / n
			}
			rev := float64(d.rev)
			want := float64(sim.Second) / (seek + rev/2)
			t.Logf("%s: %.1f IOPS, 1/(seek+rot) = %.1f (mean seek %.2f ms)", name, r.WPS, want, seek/1e6)
			assert.InEpsilon(t, want, r.WPS, 0.05)
			assert.InDelta(t, 100, r.Util, 0.5)
		})
	}
}

// TestHDDNCQ: with queue depth 31 the drive reorders random writes (shortest
// positioning time first) and gains over QD 1. With the write cache on, the writes
// it reorders are its cached runs (at most wcache_segs of them) instead of its 31
// tags, with the same gain over QD 1.
func TestHDDNCQ(t *testing.T) {
	iops := func(spec string, depth int64) float64 {
		w := sim.NewWorld(1000, 3)
		q := mustQueue(t, w, spec)
		j := newJob(q, w, 1, Write, 1, depth, true, 0, q.Spec().CapacityBytes/SectorSize)
		return measure(t, w, q, sim.Second, 30*sim.Second, j).WPS
	}
	qd1 := iops("wu2011-hdd,qd=1,wcache=0", 1)
	ncq := iops("wu2011-hdd,wcache=0", 64)
	cached := iops("wu2011-hdd", 64)
	wide := iops("wu2011-hdd,wcache_segs=64", 64)
	t.Logf("random 4k writes: QD1 %.0f, NCQ 31 %.0f, NCQ + cache (16 segments) %.0f, (64 segments) %.0f IOPS", qd1, ncq, cached, wide)
	assert.Greater(t, ncq, 1.3*qd1)
	assert.Less(t, ncq, 4*qd1)
	assert.Greater(t, cached, 1.3*qd1)
	assert.Greater(t, wide, 1.3*qd1)
}

// TestHDDSequential: sequential writes (write cache on or off, QD 1 or 31) and
// reads stream at the media rate of the zone they are in.
func TestHDDSequential(t *testing.T) {
	tests := []struct {
		spec  string
		op    Op
		depth int64
		start int64 // fraction of the disk, in 1/16
	}{
		{"wu2011-hdd", Write, 16, 0},
		{"wu2011-hdd,wcache=0", Write, 16, 0},
		{"wu2011-hdd", Write, 16, 15},
		{"wu2011-hdd", Read, 4, 0},
		{"wu2011-hdd,qd=1", Read, 1, 8},
		{"kara2016-qd1", Write, 16, 0},
		{"kara2016-qd1", Read, 1, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%v/zone%d", tc.spec, tc.op, tc.start), func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			// the media model under deadline's plain sorted dispatch
			q := mustQueue(t, w, tc.spec+",wbt=off,elevator=deadline")
			s := q.Spec()
			capS := s.CapacityBytes / SectorSize
			start := tc.start * (capS / 16)
			j := newJob(q, w, 1, tc.op, 32, tc.depth, false, start, 1<<40)
			r := measure(t, w, q, sim.Second, 5*sim.Second, j)
			// the media rate of the zone the run is in (5 s stay within one zone)
			d := newHDD(sim.NewWorld(1000, 1), s)
			mid := start + int64(float64(s.BandwidthBps)*2.5)/SectorSize
			rate := float64(d.spt[d.zone(mid+d.partStart)]*SectorSize) * float64(sim.Second) / float64(d.rev)
			got := r.WMBps + r.RMBps
			t.Logf("%.1f MB/s, zone rate %.1f MB/s", got*1.048576, rate/1e6)
			assert.InEpsilon(t, rate/(1<<20), got, 0.03)
		})
	}
}

// TestHDDSeekCurve: the seek model meets its track-to-track, full-stroke and average.
func TestHDDSeekCurve(t *testing.T) {
	spec, err := Preset("wu2011-hdd")
	require.NoError(t, err)
	d := newHDD(sim.NewWorld(1000, 1), spec)
	assert.InDelta(t, spec.SeekTrackNs, d.seekTime(1), float64(20*sim.Microsecond))
	assert.InDelta(t, spec.SeekFullNs, d.seekTime(d.tracks-1), float64(5*sim.Microsecond))
	w := sim.NewWorld(1000, 9)
	var sum int64
	const n = 200000
	for i := 0; i < n; i++ {
		a, b := w.Rand.Int64N(d.tracks), w.Rand.Int64N(d.tracks)
		sum += d.seekTime(max(a-b, b-a, 1))
	}
	assert.InEpsilon(t, float64(spec.SeekAvgNs), float64(sum/n), 0.01)
	prev := int64(0)
	for x := int64(1); x < d.tracks; x += d.tracks / 1000 {
		s := d.seekTime(x)
		require.GreaterOrEqual(t, s, prev, "monotone")
		prev = s
	}
}

// TestX25E: random 4 KiB writes at NCQ depth ~3,300 IOPS, sequential writes ~170 MB/s,
// sequential reads ~250 MB/s, and random reads gaining from channel parallelism.
func TestX25E(t *testing.T) {
	const span = 64 << 30 / SectorSize
	run := func(op Op, bs, depth int64, random bool) IostatRates {
		w := sim.NewWorld(1000, 5)
		q := mustQueue(t, w, "x25e")
		j := newJob(q, w, 1, op, bs, depth, random, 0, span)
		return measure(t, w, q, sim.Second, 10*sim.Second, j)
	}
	rw := run(Write, 1, 64, true)
	t.Logf("random 4k write: %.0f IOPS", rw.WPS)
	assert.InEpsilon(t, 3300, rw.WPS, 0.03)
	sw := run(Write, 128, 32, false)
	t.Logf("sequential write: %.1f MB/s", sw.WMBps*1.048576)
	assert.InEpsilon(t, 170, sw.WMBps*1.048576, 0.03)
	sr := run(Read, 128, 32, false)
	t.Logf("sequential read: %.1f MB/s", sr.RMBps*1.048576)
	assert.InEpsilon(t, 250, sr.RMBps*1.048576, 0.03)
	r1, r32 := run(Read, 1, 1, true), run(Read, 1, 32, true)
	t.Logf("random 4k read: QD1 %.0f, QD32 %.0f IOPS", r1.RPS, r32.RPS)
	assert.InEpsilon(t, 35000, r32.RPS, 0.1)
	assert.Greater(t, r32.RPS, 5*r1.RPS)
}

// TestNVMeQueueDepthScaling: throughput rises with queue depth until it saturates.
func TestNVMeQueueDepthScaling(t *testing.T) {
	depths := []int64{1, 2, 4, 8, 16, 32, 64, 128}
	var got []float64
	for _, d := range depths {
		w := sim.NewWorld(1000, 5)
		q := mustQueue(t, w, "nvme,wbt=off")
		j := newJob(q, w, 1, Write, 1, d, true, 0, 1<<31)
		r := measure(t, w, q, 100*sim.Millisecond, sim.Second, j)
		got = append(got, r.WPS)
		t.Logf("QD %3d: %8.0f IOPS, await %.3f ms", d, r.WPS, r.Await)
	}
	for i := 1; i < len(got); i++ {
		assert.GreaterOrEqual(t, got[i], got[i-1]*0.99, "non-decreasing at QD %d", depths[i])
	}
	assert.InEpsilon(t, 2, got[1]/got[0], 0.05, "linear at low depth")
	assert.InEpsilon(t, 4, got[2]/got[0], 0.05)
	last := len(got) - 1
	assert.InEpsilon(t, got[last], got[last-1], 0.02, "saturated")
	assert.InEpsilon(t, 3e9/4096, got[last], 0.05, "at the link bandwidth")
}

// TestCapped: the token bucket holds the bandwidth and IOPS caps.
func TestCapped(t *testing.T) {
	tests := []struct {
		spec     string
		bs       int64
		random   bool
		wantMBps float64 // MiB/s, 0 = not checked
		wantIOPS float64
	}{
		{"capped,bw=50MiB,iops=0", 256, false, 50, 0},
		{"capped,bw=0,iops=3000", 1, true, 0, 3000},
		{"capped,bw=50MiB,iops=3000", 16, true, 50, 800}, // 64 KiB: bandwidth bound
		{"capped,bw=50MiB,iops=3000", 1, true, 0, 3000},  // 4 KiB: IOPS bound
		{"capped", 256, false, 125, 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/bs=%d", tc.spec, tc.bs), func(t *testing.T) {
			w := sim.NewWorld(1000, 5)
			q := mustQueue(t, w, tc.spec+",wbt=off")
			j := newJob(q, w, 1, Write, tc.bs, 64, tc.random, 0, 1<<31)
			r := measure(t, w, q, 2*sim.Second, 10*sim.Second, j)
			t.Logf("%.2f MiB/s, %.0f IOPS", r.WMBps, r.WPS)
			if tc.wantMBps > 0 {
				assert.InEpsilon(t, tc.wantMBps, r.WMBps, 0.01)
			}
			if tc.wantIOPS > 0 {
				assert.InEpsilon(t, tc.wantIOPS, r.WPS, 0.01)
			}
		})
	}
	// the burst: 100 ms of credit goes out at once, then the rate
	w := sim.NewWorld(1000, 5)
	q := mustQueue(t, w, "capped,bw=0,iops=1000,burst_ms=100,wbt=off")
	j := newJob(q, w, 1, Write, 1, 128, true, 0, 1<<31)
	r := measure(t, w, q, 0, 10*sim.Millisecond, j)
	assert.Greater(t, r.WPS*0.01, 90.0, "about 100 requests in the first 10 ms")
}

// TestLittlesLaw: avgqu-sz = (r/s + w/s) * await in the iostat numbers, for mixed
// workloads on each model.
func TestLittlesLaw(t *testing.T) {
	for _, spec := range []string{"wu2011-hdd", "wu2011-hdd,elevator=deadline", "kara2016-qd1", "kara2016-qd1,elevator=cfq",
		"x25e", "x25e,elevator=cfq", "nvme", "capped", "simple", "simple,elevator=cfq", "chinner2010-vm"} {
		t.Run(spec, func(t *testing.T) {
			w := sim.NewWorld(1000, 11)
			q := mustQueue(t, w, spec)
			seqW := newJob(q, w, 1, Write, 64, 32, false, 0, 1<<30)
			seqW.flags = FlagBackground
			seqW.plug = true
			rndW := newJob(q, w, 2, Write, 2, 8, true, 1<<30, 1<<30)
			// one read at a time: with cfq a reader that always has a read at the
			// device starves async writes (cfq_may_dispatch), and requests that never
			// complete are outside Little's law
			rd := newJob(q, w, 3, Read, 4, 1, true, 1<<31, 1<<30)
			r := measure(t, w, q, 2*sim.Second, 20*sim.Second, seqW, rndW, rd)
			iops := r.RPS + r.WPS
			t.Logf("r/s %.0f w/s %.0f rMB/s %.1f wMB/s %.1f avgrq-sz %.0f avgqu-sz %.2f await %.2f ms svctm %.2f %%util %.1f",
				r.RPS, r.WPS, r.RMBps, r.WMBps, r.AvgRqSz, r.AvgQuSz, r.Await, r.Svctm, r.Util)
			require.Greater(t, iops, 0.0)
			assert.InEpsilon(t, r.AvgQuSz, iops*r.Await/1000, 0.03, "Little's law")
			assert.InEpsilon(t, r.DevQu, iops*r.Svctm/1000, 0.03, "Little's law at the device")
			assert.LessOrEqual(t, r.Util, 100.0+1e-9)
		})
	}
}

// TestDeterminism: the same seed gives the same counters.
func TestDeterminism(t *testing.T) {
	run := func() Iostat {
		w := sim.NewWorld(1000, 42)
		q := mustQueue(t, w, "wu2011-hdd,wbt=on")
		a := newJob(q, w, 1, Write, 3, 40, true, 0, 1<<30)
		b := newJob(q, w, 2, Read, 1, 2, true, 0, 1<<30)
		measure(t, w, q, 0, 5*sim.Second, a, b)
		return q.Stats()
	}
	assert.Equal(t, run(), run())
}

// TestHDDRotationSeeded: the spindle's exact speed and the platter's angle at time 0
// come from the world's seeded source: the same seed gives the same disk, another
// seed another angle, and the speed stays within hddSpindlePPM of nominal.
func TestHDDRotationSeeded(t *testing.T) {
	spec, err := Preset("wu2011-hdd")
	require.NoError(t, err)
	nominal := int64(60*sim.Second) / int64(spec.RPM)
	phases := map[int64]bool{}
	for seed := uint64(1); seed <= 8; seed++ {
		a, b := newHDD(sim.NewWorld(1000, seed), spec), newHDD(sim.NewWorld(1000, seed), spec)
		assert.Equal(t, a.rev, b.rev)
		assert.Equal(t, a.phase0, b.phase0)
		assert.InDelta(t, nominal, a.rev, float64(nominal*hddSpindlePPM/1_000_000+1))
		assert.GreaterOrEqual(t, a.phase0, int64(0))
		assert.Less(t, a.phase0, a.rev)
		phases[a.phase0] = true
	}
	assert.Greater(t, len(phases), 6, "seeds give different platter angles")
}

// TestCalibrationWu2011Partition: the preset's geometry puts the test partition (the
// last 100 GB of the 1 TB disk) at 60.3 -> 52.0 MB/s, across about 15 % of the
// stroke (the outer rate is calibrated on the thread's one-writer cells:
// tests/fidelity TestCalibrationWu2011Baseline/disk-rate).
func TestCalibrationWu2011Partition(t *testing.T) {
	spec, err := Preset("wu2011-hdd")
	require.NoError(t, err)
	d := newHDD(sim.NewWorld(1000, 1), spec)
	rate := func(s int64) float64 {
		return float64(d.spt[d.zone(s+d.partStart)]*SectorSize) * float64(sim.Second) / float64(d.rev) / 1e6
	}
	capS := spec.CapacityBytes / SectorSize
	t.Logf("partition: %.1f -> %.1f MB/s", rate(0), rate(capS-1))
	assert.InDelta(t, 60.3, rate(0), 1.0)
	assert.InDelta(t, 52.0, rate(capS-1), 1.0)
	first, last := d.partStart, d.partStart+capS-1
	span := float64(d.track(last, d.zone(last))-d.track(first, d.zone(first))) / float64(d.tracks)
	t.Logf("stroke span %.3f", span)
	assert.InDelta(t, 0.15, span, 0.03)
}

// TestHDDDestageAge: one writer moves between files 1 GB apart every few MiB, as
// the flusher moves between inodes. The cache fills and its data waits longer than
// hddMaxWait, so the aging rule decides the destage order. With destage_age=write
// the drive follows the writes' arrival, a seek per chunk. With run (the default) a
// run's age restarts at each partial destage: with two files the drive streams one
// run until the other has waited hddMaxWait, a seek per hddMaxWait of transfer.
func TestHDDDestageAge(t *testing.T) {
	tests := []struct {
		spec            string
		files, chunkMiB int64
		perChunk        bool // a seek per chunk; else one per hddMaxWait of transfer
	}{
		{"wu2011-hdd,destage_age=write", 2, 8, true},
		{"wu2011-hdd,destage_age=write", 10, 8, true},
		{"wu2011-hdd,destage_age=write", 10, 4, true},
		{"wu2011-hdd,destage_age=write", 10, 2, true},
		{"wu2011-hdd", 2, 8, false},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%dfiles/%dMiB", tc.spec, tc.files, tc.chunkMiB), func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q := mustQueue(t, w, tc.spec+",wbt=off,elevator=noop")
			const gb = 1_000_000_000 / SectorSize
			j := newJob(q, w, 1, Write, 128, 31, false, 0, tc.files*gb)
			j.chunk, j.streams = tc.chunkMiB<<20/SectorSize, tc.files
			m0, ok := q.Media()
			require.True(t, ok)
			r := measure(t, w, q, 2*sim.Second, 20*sim.Second, j)
			m1, _ := q.Media()
			got := float64(m1.Seeks-m0.Seeks) / (r.WMBps * 20)
			want := 1 / float64(tc.chunkMiB)
			if !tc.perChunk {
				want = 1 / (r.WMBps * hddMaxWait.Seconds())
			}
			t.Logf("%.1f MB/s, %.3f seeks/MiB (want %.3f)", r.WMBps*1.048576, got, want)
			assert.InEpsilon(t, want, got, 0.15)
		})
	}
}
