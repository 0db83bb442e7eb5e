package kernel

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPageSetAgainstBitmap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s PageSet
	ref := make([]bool, 300)
	for i := 0; i < 20000; i++ {
		start := int64(r.IntN(280))
		n := int64(1 + r.IntN(20))
		want := int64(0)
		if r.IntN(2) == 0 {
			for p := start; p < start+n; p++ {
				if !ref[p] {
					want++
					ref[p] = true
				}
			}
			require.Equal(t, want, s.Add(start, n))
		} else {
			for p := start; p < start+n; p++ {
				if ref[p] {
					want++
					ref[p] = false
				}
			}
			require.Equal(t, want, s.Remove(start, n))
		}
		require.True(t, s.check(), "representation broken after op %d: %v", i, s.runs)
		if i%100 == 0 {
			cnt := int64(0)
			for p, v := range ref {
				require.Equal(t, v, s.Contains(int64(p)))
				if v {
					cnt++
				}
			}
			require.Equal(t, cnt, s.Count())
			from := int64(r.IntN(300))
			run, ok := s.Next(from)
			first := int64(-1)
			for p := from; p < 300; p++ {
				if ref[p] {
					first = p
					break
				}
			}
			if first < 0 {
				require.False(t, ok)
			} else {
				require.True(t, ok)
				require.Equal(t, first, run.Start)
				end := first
				for end < 300 && ref[end] {
					end++
				}
				require.Equal(t, end, run.End)
				n := int64(0)
				for p := first; p < min(first+7, 300); p++ {
					if ref[p] {
						n++
					}
				}
				require.Equal(t, n, s.CountRange(first, first+7))
			}
		}
	}
}

func TestPageSetMergesAdjacentRuns(t *testing.T) {
	tests := []struct {
		name string
		ops  [][2]int64 // start, n (n<0: remove)
		want []PageRun
	}{
		{"append", [][2]int64{{0, 4}, {4, 4}}, []PageRun{{0, 8}}},
		{"gap", [][2]int64{{0, 4}, {5, 1}}, []PageRun{{0, 4}, {5, 6}}},
		{"fill gap", [][2]int64{{0, 4}, {5, 1}, {4, 1}}, []PageRun{{0, 6}}},
		{"punch", [][2]int64{{0, 10}, {3, -2}}, []PageRun{{0, 3}, {5, 10}}},
		{"remove across", [][2]int64{{0, 3}, {5, 3}, {10, 3}, {2, -10}}, []PageRun{{0, 2}, {12, 13}}},
	}
	for _, tc := range tests {
		var s PageSet
		for _, op := range tc.ops {
			if op[1] > 0 {
				s.Add(op[0], op[1])
			} else {
				s.Remove(op[0], -op[1])
			}
		}
		assert.Equal(t, tc.want, s.Runs(), tc.name)
	}
}
