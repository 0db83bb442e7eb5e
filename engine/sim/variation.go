package sim

import "math/bits"

// Variation is the run-to-run variation of a real machine outside the disk: how
// long a woken task takes to run, how late a timer fires, and how much one CPU
// burst's cost differs from its nominal figure. Each is drawn per event from the
// world's variation stream (seeded from the run's seed, integer arithmetic only,
// so a seed gives the same run natively and in wasm). The zero Variation is an
// ideal machine: no draws, exact times.
type Variation struct {
	// WakeupMin and WakeupMax bound the wakeup latency (try_to_wake_up until the
	// task runs), drawn uniformly. MachineVariation takes them from the exit
	// latencies of the shallow idle states a CPU sits in between IO completions:
	// drivers/idle/intel_idle.c snb_cstates, C1 exit_latency 2 µs and C1E 10 µs.
	// (C3 at 80 µs needs 211 µs of predicted idle; the model keeps no idle
	// prediction, so deep states are left out.)
	WakeupMin, WakeupMax Time
	// TimerMin and TimerMax bound the extra delay of a timed sleep's expiry
	// (local APIC timer interrupt entry, then the timer softirq running the
	// expired timer), drawn uniformly and added before the wakeup latency.
	TimerMin, TimerMax Time
	// CPUPerMille is the half-width, in per mille of the burst, of the uniform
	// variation of one CPU burst's cost (cache and TLB state the burst finds,
	// interrupts landing in it). Summed over a run's bursts it averages out; what
	// it changes is the order in which tasks reach the shared resources.
	CPUPerMille int64
}

// MachineVariation is the variation of the threads' test boxes (2011-2016 x86
// servers, idle apart from the test).
//
//   - wakeup 2-10 µs: intel_idle's C1/C1E exit latencies (see Variation);
//   - timer 1-4 µs: the tick's interrupt entry (~1 µs on 2011 x86) plus the
//     timer softirq walking the wheel bucket (a few hundred ns per timer);
//   - CPU ±3 %: repeated runs of one kernel path differ by ±1-3 % per run
//     (perf stat -r on a syscall loop, e.g. write() into the page cache); a
//     single burst varies at least as much as a run.
//
// The effect on a whole run is what the dynamics make of these: Kara's three
// runs of one dd (105.1, 107.1, 105.6 s) are the real-machine spread to compare.
func MachineVariation() Variation {
	return Variation{
		WakeupMin: 2 * Microsecond, WakeupMax: 10 * Microsecond,
		TimerMin: 1 * Microsecond, TimerMax: 4 * Microsecond,
		CPUPerMille: 30,
	}
}

// variation stream constants: a PCG stream of its own, so that the variation's
// draws do not shift the sequence the model's other users of Rand see.
const (
	variationSeq1 = 0x5851f42d4c957f2d
	variationSeq2 = 0x14057b7ef767814f
)

// SetVariation turns the machine variation on (or off, with the zero Variation).
func (w *World) SetVariation(v Variation) {
	w.vary = v
	w.varyOn = v != Variation{}
	if w.varyOn && !w.vrSeeded {
		w.vr = pcg{hi: w.seed ^ variationSeq1, lo: w.seed ^ variationSeq2}
		w.vrSeeded = true
	}
}

// Variation reports the world's variation.
func (w *World) Variation() Variation { return w.vary }

// pcg is the state of math/rand/v2's PCG (a 128-bit LCG with the DXSM output),
// here so that a draw is one function without calls: on wasm, rand.PCG's Uint64,
// its next and the caller were three calls per draw (PERFORMANCE.md, Round 8). It
// gives the stream rand.NewPCG(hi, lo) gives, bit for bit (TestPCGIsMathRandPCG).
type pcg struct{ hi, lo uint64 }

// uniform draws from [lo, hi) (lo when hi <= lo, without a draw): Lemire's
// multiply-shift, exact in integers on every platform. The PCG step and its DXSM
// output are math/rand/v2's PCG.next and PCG.Uint64, written out.
func (w *World) uniform(lo, hi Time) Time {
	if hi <= lo {
		return lo
	}
	const (
		mulHi    = 2549297995355413924
		mulLo    = 4865540595714422341
		incHi    = 6364136223846793005
		incLo    = 1442695040888963407
		cheapMul = 0xda942042e4dd58b5
	)
	// state = state * mul + inc (128 bits)
	sh, sl := bits.Mul64(w.vr.lo, mulLo)
	sh += w.vr.hi*mulLo + w.vr.lo*mulHi
	sl, c := bits.Add64(sl, incLo, 0)
	sh, _ = bits.Add64(sh, incHi, c)
	w.vr.hi, w.vr.lo = sh, sl
	// DXSM "double xorshift multiply"
	sh ^= sh >> 32
	sh *= cheapMul
	sh ^= sh >> 48
	x := sh * (sl | 1)
	// the high 64 bits of x * n; for n < 2^32 (every variation here) in two
	// 32x64-bit products instead of bits.Mul64's four (on wasm, which has no
	// 64x64 -> 128 multiply): x*n = xh*n<<32 + xl*n, and the high word of that is
	// (xh*n + (xl*n)>>32) >> 32, which cannot overflow
	n := uint64(hi - lo)
	if n>>32 == 0 {
		return lo + Time((x>>32*n+(x&(1<<32-1)*n)>>32)>>32)
	}
	r, _ := bits.Mul64(x, n)
	return lo + Time(r)
}

// wakeupLatency is the delay from a wakeup until the woken task runs.
func (w *World) wakeupLatency() Time {
	if !w.varyOn {
		return 0
	}
	return w.uniform(w.vary.WakeupMin, w.vary.WakeupMax)
}

// timerLatency is a timed sleep's expiry delay plus the wakeup latency.
func (w *World) timerLatency() Time {
	if !w.varyOn {
		return 0
	}
	return w.uniform(w.vary.TimerMin, w.vary.TimerMax) + w.uniform(w.vary.WakeupMin, w.vary.WakeupMax)
}
