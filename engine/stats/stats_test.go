package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOf(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{3}, Summary{N: 1, Mean: 3, Min: 3, Max: 3}},
		// Kara's three runs of one dd: mean 105.93, sd 1.04, t(2) = 4.303
		{"kara", []float64{105.1, 107.1, 105.6}, Summary{N: 3, Mean: 105.9333, Min: 105.1, Max: 107.1, SD: 1.0408, CI95: 2.5858}},
		{"constant", []float64{2, 2, 2, 2}, Summary{N: 4, Mean: 2, Min: 2, Max: 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Of(tc.xs)
			assert.Equal(t, tc.want.N, got.N)
			for _, p := range [][2]float64{{tc.want.Mean, got.Mean}, {tc.want.Min, got.Min}, {tc.want.Max, got.Max},
				{tc.want.SD, got.SD}, {tc.want.CI95, got.CI95}} {
				assert.InDelta(t, p[0], p[1], 1e-4)
			}
		})
	}
}

func TestPairedDeltaAndNoise(t *testing.T) {
	base := []float64{50, 51, 49, 50, 50}
	// the same +2 % on every seed: a tight CI far from 0
	up := []float64{51, 52.02, 49.98, 51, 51}
	s := PairedDeltaPct(base, up)
	assert.InDelta(t, 2, s.Mean, 1e-9)
	assert.False(t, s.InNoise())
	assert.Equal(t, "+2.0%", FormatDeltaPct(s))
	// deltas of both signs around +0.4 %: inside the noise
	mixed := PairedDeltaPct(base, []float64{50.5, 50.8, 49.5, 49.8, 50.3})
	assert.True(t, mixed.InNoise())
	assert.Equal(t, "~+0.4%", FormatDeltaPct(mixed))
	// identical runs: delta 0, CI 0: inside the noise (no difference at all)
	same := PairedDeltaPct(base, base)
	assert.True(t, same.InNoise())
	assert.Equal(t, "~+0.0%", FormatDeltaPct(same))
	// one seed: the noise is unknown, nothing is marked
	one := PairedDeltaPct([]float64{50}, []float64{50.2})
	assert.False(t, one.InNoise())
	assert.Equal(t, "+0.4%", FormatDeltaPct(one))
	assert.Panics(t, func() { PairedDeltaPct(base, base[:2]) })
}

// TestCalibrationStudentT checks the t table against the t distribution itself:
// the density integrated from -t to t must be 0.95.
func TestCalibrationStudentT(t *testing.T) {
	for df := 1; df <= 60; df++ {
		q := T975(df)
		n := float64(df)
		c := math.Exp(lgamma((n+1)/2)-lgamma(n/2)) / math.Sqrt(n*math.Pi)
		pdf := func(x float64) float64 { return c * math.Pow(1+x*x/n, -(n+1)/2) }
		// Simpson's rule on [0, q]
		const steps = 20000
		h := q / steps
		sum := pdf(0) + pdf(q)
		for i := 1; i < steps; i++ {
			w := 2.0
			if i%2 == 1 {
				w = 4
			}
			sum += w * pdf(float64(i)*h)
		}
		p := 2 * sum * h / 3
		assert.InDelta(t, 0.95, p, 2e-4, "df %d: t %.3f covers %.5f", df, q, p)
	}
	assert.True(t, math.IsInf(T975(0), 1))
}

func lgamma(x float64) float64 { v, _ := math.Lgamma(x); return v }

func TestCV(t *testing.T) {
	assert.InDelta(t, 0.1, Summary{Mean: 10, SD: 1}.CV(), 1e-12)
	assert.Zero(t, Summary{}.CV())
}
