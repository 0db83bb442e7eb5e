package devices

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wblab/wblab/engine/sim"
)

// TestCalibrationUSBStick checks the usb2-stick preset against the figures it was
// set from: ~8 MB/s sequential write and ~20 MB/s sequential read at QD 1 with
// 120 KiB commands, ~25 random 4 KiB writes per second (the 40 ms erase-block
// read-modify-write), one command at a time.
func TestCalibrationUSBStick(t *testing.T) {
	const span = 8 << 30 / SectorSize
	run := func(op Op, bs, depth int64, random bool) IostatRates {
		w := sim.NewWorld(1000, 5)
		q := mustQueue(t, w, "usb2-stick")
		j := newJob(q, w, 1, op, bs, depth, random, 0, span)
		return measure(t, w, q, sim.Second, 20*sim.Second, j)
	}
	sw := run(Write, 256, 4, false)
	t.Logf("sequential write: %.2f MB/s, avgrq %.0f sectors", sw.WMBps*1.048576, sw.AvgRqSz)
	assert.InDelta(t, 8, sw.WMBps*1.048576, 0.5)
	assert.LessOrEqual(t, sw.AvgRqSz, 240.0, "max_sectors 240")
	sr := run(Read, 256, 4, false)
	t.Logf("sequential read: %.1f MB/s", sr.RMBps*1.048576)
	assert.InDelta(t, 20, sr.RMBps*1.048576, 2)
	rw := run(Write, 1, 4, true)
	t.Logf("random 4k write: %.1f IOPS", rw.WPS)
	assert.InDelta(t, 24, rw.WPS, 2, "random-write collapse")
	assert.LessOrEqual(t, rw.AvgQuSz, 4.1)
}

// TestCalibrationUSB3HDD: the usb3-hdd preset's sequential rate at the start of
// the disk (~110 MB/s outer zone) and its QD 1 random reads within the first
// 100 GiB (short seeks + rotation of a 5400 rpm 2.5in drive: ~70-110 IOPS).
func TestCalibrationUSB3HDD(t *testing.T) {
	const span = 100 << 30 / SectorSize
	run := func(op Op, bs, depth int64, random bool) IostatRates {
		w := sim.NewWorld(1000, 5)
		q := mustQueue(t, w, "usb3-hdd")
		j := newJob(q, w, 1, op, bs, depth, random, 0, span)
		return measure(t, w, q, sim.Second, 10*sim.Second, j)
	}
	sw := run(Write, 256, 4, false)
	t.Logf("sequential write: %.1f MB/s", sw.WMBps*1.048576)
	assert.InDelta(t, 105, sw.WMBps*1.048576, 15)
	rr := run(Read, 1, 4, true)
	t.Logf("random 4k read: %.0f IOPS", rr.RPS)
	assert.InDelta(t, 90, rr.RPS, 25)
}
