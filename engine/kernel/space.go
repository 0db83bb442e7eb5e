package kernel

import "github.com/wblab/wblab/engine/sim"

// SpaceReserver is a filesystem whose write() can fail with ENOSPC: it reserves
// (delalloc) or allocates (ext3) the blocks of newly written pages at write time,
// before the pages are dirtied, from a count of free blocks set at mount.
type SpaceReserver interface {
	// WriteRoom is how many of the pages [index, index+n) of in a write() by th can
	// get blocks for now (n when all can). The writer dirties only those; the
	// write() of the rest fails with ENOSPC. WriteBegin then reserves or
	// allocates what WriteRoom granted.
	WriteRoom(th *Thread, in *Inode, index, n int64) int64
	// FullAt is when a write() first got less room than it asked for.
	FullAt() (at sim.Time, full bool)
}

// SpaceFull records the first ENOSPC of a filesystem (for SpaceReserver.FullAt).
type SpaceFull struct {
	At   sim.Time
	Full bool
}

// Note records a write() that got room for fewer pages than it asked for at now.
func (s *SpaceFull) Note(now sim.Time, room, asked int64) {
	if room < asked && !s.Full {
		s.At, s.Full = now, true
	}
}
