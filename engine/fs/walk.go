package fs

import (
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// daCursor is a filesystem-owned write_cache_pages cursor, kept across blocking
// points: ext4's write_cache_pages_da (v3.2), btrfs's extent_write_cache_pages and
// XFS's batched 2.6.36-rc1 steady state each run their own walk over the dirty
// pages; ext3 and generic go through kernel.WriteCachePages.
//
// Deviations from write_cache_pages (v3.2) that these walks keep: no
// PAGECACHE_TAG_TOWRITE tagging for WB_SYNC_ALL (pages dirtied during an fsync's
// walk are written too), and a WB_SYNC_ALL walk that meets a page under writeback
// polls every millisecond instead of sleeping on the page.
type daCursor struct {
	index, end int64 // next page, inclusive end
	wbIndex    int64 // mapping->writeback_index at entry
	doneIndex  int64
	rangeWhole bool // range_start == 0 && range_end == LLONG_MAX
	cycled     bool
	done       bool
	finished   bool // the walk ended (writeback_index updated); the call returns at the next entry
}

// start sets the cursor from wc's writeback_control (write_cache_pages' entry).
func (c *daCursor) start(wc *kernel.WritebackCtx) {
	*c = daCursor{}
	if wc.Wbc.RangeCyclic {
		c.wbIndex = wc.In.WritebackIndex
		c.index, c.end = c.wbIndex, 1<<62
		c.cycled = c.index == 0
	} else {
		// RangeEnd may be LLONG_MAX (fsync's whole-file range): keep end+1 finite
		c.index, c.end = wc.Wbc.RangeStart, min(wc.Wbc.RangeEnd, 1<<62)
		c.rangeWhole = wc.Wbc.RangeStart == 0 && wc.Wbc.RangeEnd == 1<<63-1
		c.cycled = true
	}
	c.doneIndex = c.index
}

// daStep writes from the dirty run [s, e) (not under writeback) and returns the
// pages it consumed (≥ 1) and whether the loop is done.
type daStep func(s, e int64) (consumed int64, done bool)

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

func (c *daCursor) finish(wc *kernel.WritebackCtx) {
	c.finished = true
	if wc.Wbc.RangeCyclic || (c.rangeWhole && wc.Wbc.NrToWrite > 0) {
		wc.In.WritebackIndex = max(c.doneIndex, 0)
	}
}

// daWalk walks the dirty pages from the cursor like write_cache_pages (skipping
// pages under writeback for WB_SYNC_NONE), calling step per dirty run. It reports
// true when the thread blocked (call again on resume; c.finished tells whether the
// walk already ended) and false when the walk ended.
func daWalk(wc *kernel.WritebackCtx, c *daCursor, step daStep) bool {
	if c.finished {
		return false
	}
	in, th := wc.In, wc.Th
	for {
		for !c.done && c.index <= c.end {
			r, ok := in.Dirty.Next(c.index)
			if !ok || r.Start > c.end {
				break
			}
			s, e := r.Start, min(r.End, c.end+1)
			if wb, ok := in.Writeback.Next(s); ok && wb.Start < e {
				if wb.Start <= s {
					if wc.Wbc.SyncMode == kernel.WBSyncNone {
						c.index = min(e, wb.End)
						c.doneIndex = c.index - 1
						continue
					}
					th.Sub.FlushPlug()
					th.Task.Sleep(sim.Millisecond)
					return true
				}
				e = wb.Start
			}
			n, done := step(s, e)
			c.index = s + max(n, 1)
			c.doneIndex = c.index - 1
			if done {
				c.done = true
				c.finish(wc)
			}
			if th.Sub.Blocked() || th.YieldCPU() {
				return true
			}
		}
		if !c.cycled && !c.done {
			c.cycled = true
			c.index, c.end = 0, c.wbIndex-1
			continue
		}
		break
	}
	if !c.finished {
		c.finish(wc)
	}
	return false
}
