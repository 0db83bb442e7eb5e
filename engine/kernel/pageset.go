package kernel

// PageSet is a set of page indices kept as sorted, disjoint, non-adjacent half-open
// runs [Start, End). It stands in for the page-cache radix-tree tags (dirty,
// writeback, towrite) so that work is done per run of pages, never per page.
//
// The runs are stored in chunks of at most psChunkCap runs, in page order, with
// each chunk's last End kept inline as its search key: a lookup is two binary
// searches and an update shifts at most one chunk's runs, however many runs the
// set holds (random writes leave thousands). A set of up to psChunkCap runs (the
// sequential case) is one chunk, i.e. a plain sorted slice.
type PageSet struct {
	// chunks in page order, none empty; chunks[len:cap] keep the run arrays of
	// emptied chunks for reuse, so steady-state updates do not allocate
	chunks []psChunk
	count  int64
}

// psChunkCap is the most runs a chunk holds: a full chunk is split in two halves,
// and a chunk under a quarter full is merged into a neighbour when they fit in
// three quarters.
const psChunkCap = 64

// psChunk is a sorted run of 1..psChunkCap runs.
type psChunk struct {
	end  int64 // End of the last run: the search key
	runs []PageRun
}

// PageRun is the half-open page-index range [Start, End).
type PageRun struct{ Start, End int64 }

// Len is the number of pages in the run.
func (r PageRun) Len() int64 { return r.End - r.Start }

// Count is the number of pages in the set.
func (s *PageSet) Count() int64 { return s.count }

// Empty reports whether the set has no pages.
func (s *PageSet) Empty() bool { return s.count == 0 }

// Runs returns a copy of the runs in order.
func (s *PageSet) Runs() []PageRun {
	var out []PageRun
	for _, ch := range s.chunks {
		out = append(out, ch.runs...)
	}
	return out
}

// search returns the position (chunk c, run i) of the first run with End > idx,
// or (len(chunks), 0) if there is none.
func (s *PageSet) search(idx int64) (int, int) {
	c := 0
	if len(s.chunks) > 1 {
		c = s.searchChunk(idx)
	}
	if c == len(s.chunks) || s.chunks[c].end <= idx {
		return len(s.chunks), 0
	}
	return c, searchRuns(s.chunks[c].runs, idx)
}

// searchChunk returns the first chunk whose last run ends after idx.
func (s *PageSet) searchChunk(idx int64) int {
	cs := s.chunks
	lo, hi := 0, len(cs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cs[m].end > idx {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// searchRuns returns the first run with End > idx; the last run has.
func searchRuns(runs []PageRun, idx int64) int {
	lo, hi := 0, len(runs)-1
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if runs[m].End > idx {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// next is the position after (c, i).
func (s *PageSet) next(c, i int) (int, int) {
	if i+1 < len(s.chunks[c].runs) {
		return c, i + 1
	}
	return c + 1, 0
}

// Contains reports whether page idx is in the set.
func (s *PageSet) Contains(idx int64) bool {
	c, i := s.search(idx)
	return c < len(s.chunks) && s.chunks[c].runs[i].Start <= idx
}

// Next returns the first run of the set that contains a page ≥ from, clipped to
// start at from.
func (s *PageSet) Next(from int64) (PageRun, bool) {
	c, i := s.search(from)
	if c == len(s.chunks) {
		return PageRun{}, false
	}
	r := s.chunks[c].runs[i]
	if r.Start < from {
		r.Start = from
	}
	return r, true
}

// CountRange is the number of pages of the set in [start, end).
func (s *PageSet) CountRange(start, end int64) int64 {
	var n int64
	for c, i := s.search(start); c < len(s.chunks); c, i = s.next(c, i) {
		r := s.chunks[c].runs[i]
		if r.Start >= end {
			break
		}
		n += min(r.End, end) - max(r.Start, start)
	}
	return n
}

// Add inserts [start, start+n) and returns how many pages were not already present.
func (s *PageSet) Add(start, n int64) int64 {
	if n <= 0 {
		return 0
	}
	end := start + n
	c, i := s.search(start - 1) // first run with End >= start
	if c == len(s.chunks) || s.chunks[c].runs[i].Start > end {
		s.insert(c, i, PageRun{start, end}) // touches no run
		s.count += n
		return n
	}
	// merge the runs from (c, i) on that overlap or touch [start, end) into the
	// first; a later run can touch only if the first ends before end
	r := s.chunks[c].runs[i]
	covered := min(r.End, end) - max(r.Start, start)
	ns, ne := min(start, r.Start), max(end, r.End)
	c2, j2 := c, i+1
	merged := false
	if r.End < end {
		for c2 < len(s.chunks) {
			runs := s.chunks[c2].runs
			for ; j2 < len(runs) && runs[j2].Start <= end; j2++ {
				covered += min(runs[j2].End, end) - runs[j2].Start
				ne = max(ne, runs[j2].End)
				merged = true
			}
			if j2 < len(runs) {
				break
			}
			c2, j2 = c2+1, 0
		}
	}
	s.set(c, i, PageRun{ns, ne})
	if merged {
		s.delete(c, i+1, c2, j2)
	}
	added := n - covered
	s.count += added
	return added
}

// Remove deletes [start, start+n) and returns how many pages were present.
func (s *PageSet) Remove(start, n int64) int64 {
	if n <= 0 || len(s.chunks) == 0 {
		return 0
	}
	end := start + n
	c, i := s.search(start)
	if c == len(s.chunks) {
		return 0
	}
	r := s.chunks[c].runs[i]
	if r.Start >= end {
		return 0
	}
	if r.End > end { // all in one run, which goes on past end
		removed := end - max(r.Start, start)
		if r.Start < start { // punch a hole
			s.chunks[c].runs[i].End = start
			s.insert(c, i+1, PageRun{end, r.End})
		} else { // trim the front
			s.chunks[c].runs[i].Start = end
		}
		s.count -= removed
		return removed
	}
	// runs from (c, i) up to (c2, j2) go, but what lies outside [start, end)
	var removed int64
	c2, j2 := c, i
	var left, right PageRun
	hasLeft, hasRight := r.Start < start, false
	if hasLeft {
		left = PageRun{r.Start, start}
	}
	m := 0
	for c2 < len(s.chunks) {
		runs := s.chunks[c2].runs
		for ; j2 < len(runs) && runs[j2].Start < end; j2++ {
			r := runs[j2]
			removed += min(r.End, end) - max(r.Start, start)
			if r.End > end {
				right, hasRight = PageRun{end, r.End}, true
			}
			m++
		}
		if j2 < len(runs) {
			break
		}
		c2, j2 = c2+1, 0
	}
	// replace the m runs with what is left of them
	var repl [2]PageRun
	k := 0
	if hasLeft {
		repl[k] = left
		k++
	}
	if hasRight {
		repl[k] = right
		k++
	}
	if k == 0 {
		s.delete(c, i, c2, j2)
	} else {
		s.set(c, i, repl[0])
		c1, i1 := s.next(c, i)
		if k == 2 { // m > 1: one run per side
			s.set(c1, i1, repl[1])
			c1, i1 = s.next(c1, i1)
		}
		if c1 != c2 || i1 != j2 {
			s.delete(c1, i1, c2, j2)
		}
	}
	s.count -= removed
	return removed
}

// Clear empties the set.
func (s *PageSet) Clear() {
	for i := range s.chunks {
		s.chunks[i].runs = s.chunks[i].runs[:0]
	}
	s.chunks, s.count = s.chunks[:0], 0
}

// CopyRange replaces s with the pages of src in [start, end).
func (s *PageSet) CopyRange(src *PageSet, start, end int64) {
	s.Clear()
	for c, i := src.search(start); c < len(src.chunks); c, i = src.next(c, i) {
		r := src.chunks[c].runs[i]
		if r.Start >= end {
			break
		}
		r = PageRun{max(r.Start, start), min(r.End, end)}
		n := len(s.chunks)
		if n == 0 || len(s.chunks[n-1].runs) == psChunkCap {
			s.newChunk(n)
			n++
		}
		ch := &s.chunks[n-1]
		ch.runs = append(ch.runs, r)
		ch.end = r.End
		s.count += r.Len()
	}
}

// set overwrites the run at (c, i) with r, which keeps the order.
func (s *PageSet) set(c, i int, r PageRun) {
	ch := &s.chunks[c]
	ch.runs[i] = r
	if i == len(ch.runs)-1 {
		ch.end = r.End
	}
}

// insert puts r before position (c, i) (i may be the chunk's length; c may be
// len(chunks): append), splitting a full chunk.
func (s *PageSet) insert(c, i int, r PageRun) {
	if c == len(s.chunks) {
		if c == 0 && cap(s.chunks) > 0 { // a set emptied before: its first array
			s.chunks = s.chunks[:1]
			ch := &s.chunks[0]
			ch.runs = append(ch.runs[:0], r)
			ch.end = r.End
			return
		}
		if c == 0 {
			s.newChunk(0)
		} else {
			c--
			i = len(s.chunks[c].runs)
		}
	}
	if len(s.chunks[c].runs) == psChunkCap {
		const h = psChunkCap / 2
		nc := s.newChunk(c + 1)
		lo := &s.chunks[c]
		nc.runs = append(nc.runs, lo.runs[h:]...)
		nc.end = lo.end
		lo.runs = lo.runs[:h]
		lo.end = lo.runs[h-1].End
		if i > h {
			c, i = c+1, i-h
		}
	}
	ch := &s.chunks[c]
	ch.runs = append(ch.runs, PageRun{})
	copy(ch.runs[i+1:], ch.runs[i:])
	ch.runs[i] = r
	if i == len(ch.runs)-1 {
		ch.end = r.End
	}
}

// delete removes the runs from position (c1, i1) up to, not including, (c2, i2).
func (s *PageSet) delete(c1, i1, c2, i2 int) {
	if c1 == c2 {
		ch := &s.chunks[c1]
		ch.runs = append(ch.runs[:i1], ch.runs[i2:]...)
		s.fix(c1)
		return
	}
	s.chunks[c1].runs = s.chunks[c1].runs[:i1]
	if c2 < len(s.chunks) {
		ch := &s.chunks[c2]
		ch.runs = append(ch.runs[:0], ch.runs[i2:]...)
	}
	s.delChunks(c1+1, c2)
	if c1+1 < len(s.chunks) {
		s.fix(c1 + 1)
	}
	s.fix(c1)
}

// fix restores chunk c's key after it shrank: an empty chunk is dropped, a small
// one merged into a neighbour with room.
func (s *PageSet) fix(c int) {
	ch := &s.chunks[c]
	n := len(ch.runs)
	if n == 0 {
		s.delChunks(c, c+1)
		return
	}
	ch.end = ch.runs[n-1].End
	if n >= psChunkCap/4 {
		return
	}
	const room = psChunkCap * 3 / 4
	switch {
	case c > 0 && len(s.chunks[c-1].runs)+n <= room:
		l := &s.chunks[c-1]
		l.runs = append(l.runs, ch.runs...)
		l.end = ch.end
		s.delChunks(c, c+1)
	case c+1 < len(s.chunks) && len(s.chunks[c+1].runs)+n <= room:
		r := &s.chunks[c+1]
		ch.runs = append(ch.runs, r.runs...)
		ch.end = r.end
		s.delChunks(c+1, c+2)
	}
}

// newChunk inserts an empty chunk at index p and returns it, reusing a spare run
// array; only a set's first chunk starts small.
func (s *PageSet) newChunk(p int) *psChunk {
	n := len(s.chunks)
	var runs []PageRun
	if n < cap(s.chunks) {
		s.chunks = s.chunks[:n+1]
		runs = s.chunks[n].runs[:0]
	} else {
		s.chunks = append(s.chunks, psChunk{})
	}
	if n > 0 && cap(runs) < psChunkCap {
		runs = make([]PageRun, 0, psChunkCap)
	}
	copy(s.chunks[p+1:], s.chunks[p:n])
	s.chunks[p] = psChunk{runs: runs}
	return &s.chunks[p]
}

// delChunks drops chunks [a, b), moving their run arrays past the end for reuse.
func (s *PageSet) delChunks(a, b int) {
	if a >= b {
		return
	}
	cs := s.chunks
	if b == len(cs) { // the tail: the arrays stay where they are
		for i := a; i < b; i++ {
			cs[i].runs = cs[i].runs[:0]
		}
		s.chunks = cs[:a]
		return
	}
	// rotate cs[a:] left by b-a
	reverseChunks(cs[a:b])
	reverseChunks(cs[b:])
	reverseChunks(cs[a:])
	for i := len(cs) - (b - a); i < len(cs); i++ {
		cs[i].runs = cs[i].runs[:0]
	}
	s.chunks = cs[:len(cs)-(b-a)]
}

func reverseChunks(cs []psChunk) {
	for i, j := 0, len(cs)-1; i < j; i, j = i+1, j-1 {
		cs[i], cs[j] = cs[j], cs[i]
	}
}

// check verifies the representation (tests and invariant checks).
func (s *PageSet) check() bool {
	var n int64
	prevEnd := int64(-1)
	for _, ch := range s.chunks {
		if len(ch.runs) == 0 || len(ch.runs) > psChunkCap || ch.end != ch.runs[len(ch.runs)-1].End {
			return false
		}
		for _, r := range ch.runs {
			if r.Start >= r.End || r.Start < 0 || prevEnd >= r.Start {
				return false
			}
			prevEnd = r.End
			n += r.Len()
		}
	}
	return n == s.count
}
