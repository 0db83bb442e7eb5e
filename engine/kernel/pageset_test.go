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
		require.True(t, s.check(), "representation broken after op %d: %v", i, s.Runs())
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

// refSet is the reference model: one bool per page.
type refSet []bool

func (r refSet) add(start, n int64) int64 {
	var added int64
	for p := start; p < start+n; p++ {
		if !r[p] {
			r[p], added = true, added+1
		}
	}
	return added
}

func (r refSet) remove(start, n int64) int64 {
	var removed int64
	for p := max(start, 0); p < min(start+n, int64(len(r))); p++ {
		if r[p] {
			r[p], removed = false, removed+1
		}
	}
	return removed
}

func (r refSet) contains(idx int64) bool { return idx >= 0 && idx < int64(len(r)) && r[idx] }

func (r refSet) runs() []PageRun {
	var out []PageRun
	for p := int64(0); p < int64(len(r)); p++ {
		if !r[p] {
			continue
		}
		e := p
		for e < int64(len(r)) && r[e] {
			e++
		}
		out = append(out, PageRun{p, e})
		p = e
	}
	return out
}

func (r refSet) next(from int64) (PageRun, bool) {
	for p := max(from, 0); p < int64(len(r)); p++ {
		if r[p] {
			e := p
			for e < int64(len(r)) && r[e] {
				e++
			}
			return PageRun{p, e}, true
		}
	}
	return PageRun{}, false
}

func (r refSet) countRange(start, end int64) int64 {
	var n int64
	for p := max(start, 0); p < min(end, int64(len(r))); p++ {
		if r[p] {
			n++
		}
	}
	return n
}

func (r refSet) count() int64 { return r.countRange(0, int64(len(r))) }

func TestPageSetMethods(t *testing.T) {
	base := [][2]int64{{0, 3}, {5, 3}, {10, 1}, {20, 5}} // runs [0,3) [5,8) [10,11) [20,25)
	tests := []struct {
		name string
		op   func(s *PageSet) any
		want any
	}{
		{"count", func(s *PageSet) any { return s.Count() }, int64(12)},
		{"empty", func(s *PageSet) any { return s.Empty() }, false},
		{"contains first", func(s *PageSet) any { return s.Contains(0) }, true},
		{"contains end is exclusive", func(s *PageSet) any { return s.Contains(3) }, false},
		{"contains last", func(s *PageSet) any { return s.Contains(24) }, true},
		{"contains past", func(s *PageSet) any { return s.Contains(25) }, false},
		{"contains negative", func(s *PageSet) any { return s.Contains(-1) }, false},
		{"next clips", func(s *PageSet) any { r, _ := s.Next(6); return r }, PageRun{6, 8}},
		{"next in gap", func(s *PageSet) any { r, _ := s.Next(8); return r }, PageRun{10, 11}},
		{"next from start", func(s *PageSet) any { r, _ := s.Next(-5); return r }, PageRun{0, 3}},
		{"next past end", func(s *PageSet) any { _, ok := s.Next(25); return ok }, false},
		{"count range all", func(s *PageSet) any { return s.CountRange(-10, 100) }, int64(12)},
		{"count range partial", func(s *PageSet) any { return s.CountRange(2, 21) }, int64(1 + 3 + 1 + 1)},
		{"count range gap", func(s *PageSet) any { return s.CountRange(11, 20) }, int64(0)},
		{"count range empty", func(s *PageSet) any { return s.CountRange(6, 6) }, int64(0)},
		{"add new", func(s *PageSet) any { return []any{s.Add(30, 2), s.Runs()} },
			[]any{int64(2), []PageRun{{0, 3}, {5, 8}, {10, 11}, {20, 25}, {30, 32}}}},
		{"add front", func(s *PageSet) any { s.Remove(0, 3); return []any{s.Add(1, 2), s.Runs()} },
			[]any{int64(2), []PageRun{{1, 3}, {5, 8}, {10, 11}, {20, 25}}}},
		{"add overlapping", func(s *PageSet) any { return []any{s.Add(1, 5), s.Runs()} },
			[]any{int64(2), []PageRun{{0, 8}, {10, 11}, {20, 25}}}},
		{"add covering all", func(s *PageSet) any { return []any{s.Add(0, 25), s.Runs()} },
			[]any{int64(13), []PageRun{{0, 25}}}},
		{"add present", func(s *PageSet) any { return []any{s.Add(21, 2), s.Runs()} },
			[]any{int64(0), []PageRun{{0, 3}, {5, 8}, {10, 11}, {20, 25}}}},
		{"add zero", func(s *PageSet) any { return []any{s.Add(40, 0), s.Add(40, -1), s.Count()} },
			[]any{int64(0), int64(0), int64(12)}},
		{"remove absent", func(s *PageSet) any { return []any{s.Remove(11, 9), s.Runs()} },
			[]any{int64(0), []PageRun{{0, 3}, {5, 8}, {10, 11}, {20, 25}}}},
		{"remove run", func(s *PageSet) any { return []any{s.Remove(10, 1), s.Runs()} },
			[]any{int64(1), []PageRun{{0, 3}, {5, 8}, {20, 25}}}},
		{"remove hole", func(s *PageSet) any { return []any{s.Remove(21, 2), s.Runs()} },
			[]any{int64(2), []PageRun{{0, 3}, {5, 8}, {10, 11}, {20, 21}, {23, 25}}}},
		{"remove across keeps ends", func(s *PageSet) any { return []any{s.Remove(1, 21), s.Runs()} },
			[]any{int64(2 + 3 + 1 + 2), []PageRun{{0, 1}, {22, 25}}}},
		{"remove all", func(s *PageSet) any { return []any{s.Remove(-100, 200), s.Runs(), s.Empty()} },
			[]any{int64(12), []PageRun(nil), true}},
		{"remove zero", func(s *PageSet) any { return []any{s.Remove(0, 0), s.Count()} },
			[]any{int64(0), int64(12)}},
		{"clear", func(s *PageSet) any { s.Clear(); return []any{s.Count(), s.Runs(), s.Contains(0)} },
			[]any{int64(0), []PageRun(nil), false}},
		{"copy range", func(s *PageSet) any {
			var d PageSet
			d.Add(100, 5)
			d.CopyRange(s, 2, 22)
			return []any{d.Count(), d.Runs()}
		}, []any{int64(1 + 3 + 1 + 2), []PageRun{{2, 3}, {5, 8}, {10, 11}, {20, 22}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var s PageSet
			for _, r := range base {
				s.Add(r[0], r[1])
			}
			assert.Equal(t, tc.want, tc.op(&s))
			assert.True(t, s.check())
		})
	}
}

// TestPageSetDifferential drives PageSet and the bitmap model with random
// operations that build thousands of runs (many chunks), merge and split them,
// and remove spans across chunks.
func TestPageSetDifferential(t *testing.T) {
	const universe = 1 << 14
	for seed := uint64(1); seed <= 4; seed++ {
		r := rand.New(rand.NewPCG(seed, 99))
		var s, cp PageSet
		ref := make(refSet, universe+64)
		maxChunks := 0
		ops := 30000
		if testing.Short() {
			ops = 8000
		}
		for i := 0; i < ops; i++ {
			// phases: scattered small adds (many runs), then mixed, then wide removes
			phase := (i / 2000) % 3
			start := int64(r.IntN(universe))
			n := int64(1 + r.IntN(3))
			if r.IntN(100) == 0 {
				n = int64(1 + r.IntN(2000))
			}
			n = min(n, universe-start)
			add := r.IntN(10) < [3]int{8, 5, 2}[phase]
			if add {
				require.Equal(t, ref.add(start, n), s.Add(start, n), "op %d add(%d, %d)", i, start, n)
			} else {
				require.Equal(t, ref.remove(start, n), s.Remove(start, n), "op %d remove(%d, %d)", i, start, n)
			}
			require.True(t, s.check(), "op %d", i)
			maxChunks = max(maxChunks, len(s.chunks))
			require.Equal(t, ref.count(), s.Count())
			if i%97 == 0 {
				require.Equal(t, ref.runs(), s.Runs(), "op %d", i)
				for q := 0; q < 20; q++ {
					p := int64(r.IntN(universe+20)) - 10
					require.Equal(t, ref.contains(p), s.Contains(p), "contains %d", p)
					wr, wok := ref.next(p)
					gr, gok := s.Next(p)
					require.Equal(t, wok, gok)
					if wok {
						wr.Start = max(wr.Start, p)
					}
					require.Equal(t, wr, gr, "next %d", p)
					e := p + int64(r.IntN(3000))
					require.Equal(t, ref.countRange(p, e), s.CountRange(p, e), "countRange %d %d", p, e)
				}
				a := int64(r.IntN(universe))
				e := a + int64(r.IntN(universe))
				cp.CopyRange(&s, a, e)
				require.True(t, cp.check())
				want := make(refSet, len(ref))
				copy(want[a:min(e, int64(len(ref)))], ref[a:min(e, int64(len(ref)))])
				require.Equal(t, want.runs(), cp.Runs())
				// the copy is a working set of its own
				x := int64(r.IntN(universe))
				require.Equal(t, want.remove(x, 50), cp.Remove(x, 50))
				require.Equal(t, want.runs(), cp.Runs())
			}
			if i%7919 == 7918 {
				s.Clear()
				clear(ref)
			}
		}
		assert.Greater(t, maxChunks, 10, "the test must exercise many chunks")
	}
}

// TestPageSetSteadyStateAllocs: once the set has grown, random updates reuse its
// arrays.
func TestPageSetSteadyStateAllocs(t *testing.T) {
	var s PageSet
	src := rand.NewPCG(5, 6)
	r := rand.New(src)
	cycle := func() {
		src.Seed(5, 6)
		for i := 0; i < 3000; i++ {
			s.Add(int64(r.IntN(1<<16)), 1)
			if i%3 == 0 {
				s.Remove(int64(r.IntN(1<<16)), int64(r.IntN(64)))
			}
		}
		for s.Count() > 0 { // drain from the front, like writeback completion
			run, _ := s.Next(0)
			s.Remove(run.Start, run.Len())
		}
	}
	cycle()
	assert.Zero(t, testing.AllocsPerRun(3, cycle))
}

// TestPageSetSmallSetStaysOneChunk: the sequential case is one chunk.
func TestPageSetSmallSetStaysOneChunk(t *testing.T) {
	var s PageSet
	for i := int64(0); i < psChunkCap; i++ {
		s.Add(2*i, 1)
	}
	require.Len(t, s.chunks, 1)
	s.Add(1000, 1)
	require.Len(t, s.chunks, 2, "a full chunk splits")
	require.True(t, s.check())
	s.Remove(0, 2000)
	require.Empty(t, s.chunks)
	require.True(t, s.Empty())
}

// BenchmarkPageSetSequential is dd's pattern: pages dirtied at the end of the
// file, written back (dirty → writeback) and completed from the front.
func BenchmarkPageSetSequential(b *testing.B) {
	var dirty, wb PageSet
	next, done := int64(0), int64(0)
	for i := 0; i < b.N; i++ {
		dirty.Add(next, 1)
		next++
		if i%4 == 3 {
			r, _ := dirty.Next(0)
			n := min(r.Len(), 2)
			dirty.Remove(r.Start, n)
			wb.Add(r.Start, n)
		}
		if i%8 == 7 {
			r, _ := wb.Next(done)
			wb.Remove(r.Start, 1)
			done = r.Start + 1
		}
	}
}

// BenchmarkPageSetRandom is the random writer's pattern: 4k pages dirtied at
// random offsets of a 1 GiB file, written back in file order.
func BenchmarkPageSetRandom(b *testing.B) {
	var dirty PageSet
	r := rand.New(rand.NewPCG(1, 2))
	cursor := int64(0)
	for i := 0; i < b.N; i++ {
		dirty.Add(int64(r.IntN(1<<18)), 1)
		if dirty.Count() > 8000 {
			run, ok := dirty.Next(cursor)
			if !ok {
				run, _ = dirty.Next(0)
			}
			dirty.Remove(run.Start, run.Len())
			cursor = run.End
		}
	}
}
