package fs

import "github.com/wblab/wblab/engine/kernel"

// callPool hands out a filesystem's per-call state (type T) for ->writepages
// calls: the state lives in wc.FSCall while the call is in progress, and the
// records of finished calls are reused (no allocation per call). writeback_single_inode
// builds a fresh WritebackCtx (FSCall nil) per call, so state left by a call the
// kernel did not resume is never reused.
type callPool[T any] struct{ free []*T }

// callState returns wc's call state, or a zeroed one (fresh) for a new call.
func callState[T any](p *callPool[T], wc *kernel.WritebackCtx) (s *T, fresh bool) {
	if s, ok := wc.FSCall.(*T); ok {
		return s, false
	}
	if n := len(p.free); n > 0 {
		s = p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		var zero T
		*s = zero
	} else {
		s = new(T)
	}
	wc.FSCall = s
	return s, true
}

// end finishes wc's call; its state goes back for reuse.
func (p *callPool[T]) end(wc *kernel.WritebackCtx) {
	if s, ok := wc.FSCall.(*T); ok {
		p.free = append(p.free, s)
	}
	wc.FSCall = nil
}
