// Package stats summarises seed sweeps: the mean, min-max and standard deviation of
// a figure over seeds, the 95 % confidence interval of its mean (Student's t), and
// deltas between two kernels paired by seed.
package stats

import (
	"fmt"
	"math"
)

// Summary describes a sample (one figure over N seeds).
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	// SD is the sample standard deviation (n-1 in the denominator); 0 for N < 2.
	SD float64 `json:"sd"`
	// CI95 is the half-width of the 95 % confidence interval of the mean:
	// t(0.975, N-1) * SD / sqrt(N); 0 for N < 2 (unknown).
	CI95 float64 `json:"ci95"`
}

// Of summarises xs.
func Of(xs []float64) Summary {
	s := Summary{N: len(xs)}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = xs[0], xs[0]
	sum := 0.0
	for _, x := range xs {
		sum += x
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	s.Mean = sum / float64(s.N)
	if s.N < 2 {
		return s
	}
	ss := 0.0
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.CI95 = T975(s.N-1) * s.SD / math.Sqrt(float64(s.N))
	return s
}

// CV is the coefficient of variation SD/Mean (0 when the mean is 0).
func (s Summary) CV() float64 {
	if s.Mean == 0 {
		return 0
	}
	return s.SD / math.Abs(s.Mean)
}

// InNoise reports whether the 95 % confidence interval of the mean contains 0:
// the figure (a delta) cannot be told from seed noise. With fewer than two seeds
// the noise is unknown and nothing is in it.
func (s Summary) InNoise() bool {
	return s.N >= 2 && math.Abs(s.Mean) <= s.CI95
}

// DeltaPct is (test-base)/base in percent, 0 when base is 0.
func DeltaPct(base, test float64) float64 {
	if base == 0 {
		return 0
	}
	return (test - base) / base * 100
}

// PairedDeltaPct summarises the per-seed deltas DeltaPct(base[i], test[i]): the two
// kernels' runs with the same seed are paired.
func PairedDeltaPct(base, test []float64) Summary {
	if len(base) != len(test) {
		panic(fmt.Sprintf("stats: %d base values, %d test values", len(base), len(test)))
	}
	d := make([]float64, len(base))
	for i := range base {
		d[i] = DeltaPct(base[i], test[i])
	}
	return Of(d)
}

// FormatDeltaPct prints a delta summary as the harness does (%+.1f%%), marked
// with "~" when it is inside the noise: "~+0.4%".
func FormatDeltaPct(s Summary) string { return FormatDelta(s.Mean, s.InNoise()) }

// FormatDelta prints a delta in percent (%+.1f%%), with "~" in front when inNoise.
func FormatDelta(pct float64, inNoise bool) string {
	t := fmt.Sprintf("%+.1f%%", pct)
	if inNoise {
		return "~" + t
	}
	return t
}

// t975 is the 0.975 quantile of Student's t distribution for 1..30 degrees of
// freedom (the two-sided 95 % critical value), from the standard tables;
// TestCalibrationStudentT integrates the t density to check them.
var t975 = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// T975 is Student's t 0.975 quantile for df degrees of freedom (df >= 1); past 30
// the Cornish-Fisher expansion z + (z^3+z)/(4 df) + (5z^5+16z^3+3z)/(96 df^2).
func T975(df int) float64 {
	if df < 1 {
		return math.Inf(1)
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	const z = 1.959964
	n := float64(df)
	z3, z5 := z*z*z, z*z*z*z*z
	return z + (z3+z)/(4*n) + (5*z5+16*z3+3*z)/(96*n*n)
}
