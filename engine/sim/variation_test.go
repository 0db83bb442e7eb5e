package sim

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// wakeTimes runs one task that sleeps, is woken through a wait queue and computes,
// ten times, and returns the times its Resume ran.
func wakeTimes(seed uint64, v Variation) []Time {
	w := NewWorld(1000, seed)
	w.SetVariation(v)
	cpus := w.NewCPUs(1)
	var q WaitQueue
	task := w.NewTask("t", 1, cpus)
	waker := Timer{}
	waker.Fn = func() { q.WakeAll() }
	var out []Time
	step := 0
	task.Resume = func() {
		out = append(out, w.Now())
		switch step % 3 {
		case 0:
			task.Sleep(Millisecond)
		case 1:
			w.After(&waker, Millisecond)
			task.Wait(&q)
		case 2:
			task.Compute(100 * Microsecond)
		}
		step++
		if step == 30 {
			task.Exit()
		}
	}
	task.Start()
	w.Run(Second)
	return out
}

func TestVariationBoundsAndDeterminism(t *testing.T) {
	v := MachineVariation()
	ideal := wakeTimes(1, Variation{})
	a, b, c := wakeTimes(1, v), wakeTimes(1, v), wakeTimes(2, v)
	require.Equal(t, a, b, "same seed, same times")
	require.NotEqual(t, a, c, "another seed, other times")
	require.Equal(t, ideal, wakeTimes(7, Variation{}), "the ideal machine ignores the seed")
	require.Len(t, a, 30)
	for i := 1; i < len(a); i++ {
		d, d0 := a[i]-a[i-1], ideal[i]-ideal[i-1]
		switch (i - 1) % 3 {
		case 0: // timed sleep: timer + wakeup latency
			require.GreaterOrEqual(t, d-d0, v.TimerMin+v.WakeupMin, "step %d", i)
			require.Less(t, d-d0, v.TimerMax+v.WakeupMax, "step %d", i)
		case 1: // wait-queue wakeup: the waker's timer fires 1 ms after the wait
			require.GreaterOrEqual(t, d-d0, v.WakeupMin, "step %d", i)
			require.Less(t, d-d0, v.WakeupMax, "step %d", i)
		case 2: // CPU burst within ±CPUPerMille
			lim := d0 * Time(v.CPUPerMille) / 1000
			require.LessOrEqual(t, d-d0, lim, "step %d", i)
			require.GreaterOrEqual(t, d-d0, -lim, "step %d", i)
		}
	}
}

func TestVariationStreamLeavesRandAlone(t *testing.T) {
	w1, w2 := NewWorld(1000, 5), NewWorld(1000, 5)
	w2.SetVariation(MachineVariation())
	w2.uniform(0, Millisecond)
	require.Equal(t, w1.Rand.Uint64(), w2.Rand.Uint64(), "the variation draws from its own stream")
}

// TestPCGIsMathRandPCG: the world's variation draws are math/rand/v2's PCG seeded as
// SetVariation seeds it, with Lemire's multiply-shift (bits.Mul64) on every range,
// the short ranges' two-product path included; an empty range draws nothing.
func TestPCGIsMathRandPCG(t *testing.T) {
	ranges := [][2]Time{
		{0, 1}, {2 * Microsecond, 10 * Microsecond}, {-30000, 30001}, {0, 1<<32 - 1},
		{0, 1 << 32}, {-5, 1<<32 + 3}, {0, 1 << 40}, {math.MinInt64 / 2, math.MaxInt64 / 2},
		{7, 7}, {9, 3},
	}
	for _, seed := range []uint64{0, 1, 42, 1 << 63, math.MaxUint64} {
		w := NewWorld(1000, seed)
		w.SetVariation(MachineVariation())
		ref := rand.NewPCG(seed^variationSeq1, seed^variationSeq2)
		for i := 0; i < 2000; i++ {
			r := ranges[i%len(ranges)]
			want := r[0]
			if r[1] > r[0] {
				hi, _ := bits.Mul64(ref.Uint64(), uint64(r[1]-r[0]))
				want = r[0] + Time(hi)
			}
			require.Equal(t, want, w.uniform(r[0], r[1]), "seed %d draw %d range %v", seed, i, r)
		}
	}
}
