package devices

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
)

// newtonSqrt is the original int_sqrt (Newton's method from above): IntSqrt must
// return exactly the same for every input.
func newtonSqrt(x uint64) uint64 {
	if x < 2 {
		return x
	}
	r := uint64(1) << ((bits.Len64(x) + 1) / 2)
	for {
		n := (r + x/r) / 2
		if n >= r {
			return r
		}
		r = n
	}
}

func TestIntSqrtIsExact(t *testing.T) {
	check := func(x uint64) {
		if got, want := IntSqrt(x), newtonSqrt(x); got != want {
			t.Fatalf("IntSqrt(%d) = %d, want %d", x, got, want)
		}
	}
	for x := uint64(0); x < 1<<20; x++ {
		check(x)
	}
	for r := uint64(1); r < 1<<32; r = r*3/2 + 1 { // squares and their neighbours
		for _, x := range []uint64{r*r - 1, r * r, r*r + 1, r*r + 2*r, r*r + 2*r + 1} {
			check(x)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1 << 20 {
		check(rng.Uint64() >> rng.IntN(64))
	}
	check(1<<64 - 1)
	check((1<<32 - 1) * (1<<32 - 1))
}

func TestSeekTimeFastPathMatches128BitDivision(t *testing.T) {
	tested := 0
	for _, name := range []string{"wu2011-hdd", "kara2016-qd1"} {
		s, err := Preset(name)
		require.NoError(t, err)
		if s.Model != "hdd" {
			continue
		}
		tested++
		d := newHDD(sim.NewWorld(1000, 1), s)
		ref := func(dist int64) int64 {
			if dist >= d.tracks {
				dist = d.tracks - 1
			}
			hi, lo := bits.Mul64(uint64(dist), 1<<hddSeekXFPBits)
			xf, _ := bits.Div64(hi, lo, uint64(d.tracks))
			sq := newtonSqrt(xf)
			return d.a + (d.b*int64(sq))>>(hddSeekXFPBits/2) + (d.c*int64(xf))>>hddSeekXFPBits
		}
		rng := rand.New(rand.NewPCG(3, 4))
		for range 200000 {
			dist := 1 + rng.Int64N(d.tracks+1000)
			require.Equal(t, ref(dist), d.seekTime(dist), "%s dist %d", name, dist)
		}
	}
	require.Positive(t, tested)
}

// TestPositionMatchesReference checks the division-free rotational wrap against the
// original formula.
func TestPositionMatchesReference(t *testing.T) {
	s, err := Preset("wu2011-hdd")
	require.NoError(t, err)
	d := newHDD(sim.NewWorld(1000, 1), s)
	ref := func(now sim.Time, sec int64) int64 {
		ds := sec + d.partStart
		dist := ds - d.head
		if dist < 0 {
			dist = -dist
		}
		z := d.zone(ds)
		seek := int64(0)
		if dist >= d.spt[z] {
			dt := d.track(ds, z) - d.track(d.head, d.zone(d.head))
			seek = d.seekTime(max(dt, -dt, 1))
		}
		phase := (int64(now) + d.phase0 + seek) % d.rev
		rot := ((ds-d.zoneStart[z])%d.spt[z]*d.rev/d.spt[z] - phase) % d.rev
		if rot < 0 {
			rot += d.rev
		}
		if rot > d.rev-hddRotSlackNs {
			rot = 0
		}
		return seek + rot
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 200000 {
		capS := s.CapacityBytes / SectorSize
		d.head = d.partStart + rng.Int64N(capS)
		now := sim.Time(rng.Int64N(int64(3600 * sim.Second)))
		sec := d.head - d.partStart + rng.Int64N(4096) - 2048
		if rng.IntN(2) == 0 {
			sec = rng.Int64N(capS)
		}
		sec = max(sec, 0)
		require.Equal(t, ref(now, sec), d.position(now, sec))
	}
}
