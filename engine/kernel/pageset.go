package kernel

// PageSet is a set of page indices kept as sorted, disjoint, non-adjacent half-open
// runs [Start, End). It stands in for the page-cache radix-tree tags (dirty,
// writeback, towrite) so that work is done per run of pages, never per page.
type PageSet struct {
	runs  []PageRun
	count int64
}

// PageRun is the half-open page-index range [Start, End).
type PageRun struct{ Start, End int64 }

// Len is the number of pages in the run.
func (r PageRun) Len() int64 { return r.End - r.Start }

// Count is the number of pages in the set.
func (s *PageSet) Count() int64 { return s.count }

// Empty reports whether the set has no pages.
func (s *PageSet) Empty() bool { return s.count == 0 }

// Runs returns the runs (read-only).
func (s *PageSet) Runs() []PageRun { return s.runs }

// search returns the first run index i with runs[i].End > idx.
func (s *PageSet) search(idx int64) int {
	lo, hi := 0, len(s.runs)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.runs[m].End > idx {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// Contains reports whether page idx is in the set.
func (s *PageSet) Contains(idx int64) bool {
	i := s.search(idx)
	return i < len(s.runs) && s.runs[i].Start <= idx
}

// Next returns the first run of the set that contains a page ≥ from, clipped to
// start at from.
func (s *PageSet) Next(from int64) (PageRun, bool) {
	i := s.search(from)
	if i == len(s.runs) {
		return PageRun{}, false
	}
	r := s.runs[i]
	if r.Start < from {
		r.Start = from
	}
	return r, true
}

// CountRange is the number of pages of the set in [start, end).
func (s *PageSet) CountRange(start, end int64) int64 {
	var n int64
	for i := s.search(start); i < len(s.runs) && s.runs[i].Start < end; i++ {
		n += min(s.runs[i].End, end) - max(s.runs[i].Start, start)
	}
	return n
}

// Add inserts [start, start+n) and returns how many pages were not already present.
func (s *PageSet) Add(start, n int64) int64 {
	if n <= 0 {
		return 0
	}
	end := start + n
	// runs that overlap or touch [start, end)
	i := s.search(start - 1) // first run with End >= start
	j := i
	covered := int64(0)
	ns, ne := start, end
	for j < len(s.runs) && s.runs[j].Start <= end {
		r := s.runs[j]
		covered += min(r.End, end) - max(r.Start, start)
		ns = min(ns, r.Start)
		ne = max(ne, r.End)
		j++
	}
	if covered < 0 {
		covered = 0
	}
	added := n - covered
	switch {
	case j == i: // no neighbour: insert
		s.runs = append(s.runs, PageRun{})
		copy(s.runs[i+1:], s.runs[i:])
		s.runs[i] = PageRun{ns, ne}
	default: // merge runs i..j-1 into one
		s.runs[i] = PageRun{ns, ne}
		if j-i > 1 {
			s.runs = append(s.runs[:i+1], s.runs[j:]...)
		}
	}
	s.count += added
	return added
}

// Remove deletes [start, start+n) and returns how many pages were present.
func (s *PageSet) Remove(start, n int64) int64 {
	if n <= 0 || len(s.runs) == 0 {
		return 0
	}
	end := start + n
	i := s.search(start)
	if i == len(s.runs) || s.runs[i].Start >= end {
		return 0
	}
	var removed int64
	j := i
	var left, right PageRun
	hasLeft, hasRight := false, false
	for j < len(s.runs) && s.runs[j].Start < end {
		r := s.runs[j]
		removed += min(r.End, end) - max(r.Start, start)
		if r.Start < start {
			left, hasLeft = PageRun{r.Start, start}, true
		}
		if r.End > end {
			right, hasRight = PageRun{end, r.End}, true
		}
		j++
	}
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
	// replace runs[i:j] with repl[:k]
	switch d := k - (j - i); {
	case d > 0:
		s.runs = append(s.runs, PageRun{})
		copy(s.runs[j+1:], s.runs[j:])
	case d < 0:
		if r := -d; i < len(s.runs)-j {
			// fewer runs before than after: shift the prefix right and drop the
			// front (writeback completes at the front of sequential files)
			copy(s.runs[r:r+i], s.runs[:i])
			s.runs = s.runs[r:]
		} else {
			s.runs = append(s.runs[:i+k], s.runs[j:]...)
		}
	}
	copy(s.runs[i:], repl[:k])
	s.count -= removed
	return removed
}

// Clear empties the set.
func (s *PageSet) Clear() { s.runs, s.count = s.runs[:0], 0 }

// CopyRange replaces s with the pages of src in [start, end).
func (s *PageSet) CopyRange(src *PageSet, start, end int64) {
	s.Clear()
	for i := src.search(start); i < len(src.runs) && src.runs[i].Start < end; i++ {
		r := PageRun{max(src.runs[i].Start, start), min(src.runs[i].End, end)}
		s.runs = append(s.runs, r)
		s.count += r.Len()
	}
}

// check verifies the representation (tests and invariant checks).
func (s *PageSet) check() bool {
	var n int64
	for i, r := range s.runs {
		if r.Start >= r.End || r.Start < 0 {
			return false
		}
		if i > 0 && s.runs[i-1].End >= r.Start {
			return false
		}
		n += r.Len()
	}
	return n == s.count
}
