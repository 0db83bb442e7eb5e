package sim

import (
	"math/bits"
	"math/rand/v2"
)

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
	if w.varyOn && w.vr == nil {
		w.vr = rand.NewPCG(w.seed^variationSeq1, w.seed^variationSeq2)
	}
}

// Variation reports the world's variation.
func (w *World) Variation() Variation { return w.vary }

// uniform draws from [lo, hi) (lo when hi <= lo): Lemire's multiply-shift, exact
// in integers on every platform.
func (w *World) uniform(lo, hi Time) Time {
	if hi <= lo {
		return lo
	}
	n, _ := bits.Mul64(w.vr.Uint64(), uint64(hi-lo))
	return lo + Time(n)
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

// varyCost is a CPU burst's cost on this run: c within ±CPUPerMille ‰.
func (w *World) varyCost(c Time) Time {
	if !w.varyOn || w.vary.CPUPerMille == 0 || c <= 0 {
		return c
	}
	pm := w.vary.CPUPerMille
	d := int64(w.uniform(0, Time(2*pm*1000+1))) - pm*1000 // per million
	return max(c+Time((int64(c)*d)/1_000_000), 1)
}
