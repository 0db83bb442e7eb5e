package devices

import (
	"github.com/wblab/wblab/engine/sim"
)

// Device is a service-time model behind a request queue. The queue issues at most
// QueueDepth requests at once; the device calls Queue.Complete for each when done.
type Device interface {
	Issue(r *Request)
	QueueDepth() int
}

// Queue is a request queue (v3.2 legacy single queue): a pool of nr_requests per
// direction with congestion marks, back-merging into queued requests up to
// max_sectors_kb, FIFO dispatch to the device up to its queue depth.
type Queue struct {
	w        *sim.World
	spec     Spec
	dev      Device
	maxPages int64

	pool      [2]reqPool
	queued    []*Request // allocated, not yet issued (the elevator), FIFO
	inflight  int        // issued to the device
	blocked   []*Submitter
	stats     Iostat
	lastAcct  sim.Time
	nQueued   int // requests allocated and not completed (diskstats in_flight)
	congested [2]bool
}

type reqPool struct {
	free  []*Request
	alloc int
}

// Submitter is one task's view of the queue: its plug and the bios it is blocked on.
type Submitter struct {
	q       *Queue
	Task    *sim.Task
	pending []Bio
	wq      sim.WaitQueue
	plugged bool
	plug    []*Request
}

// NewQueue builds the queue for spec in front of dev.
func NewQueue(w *sim.World, spec Spec, dev Device) *Queue {
	q := &Queue{w: w, spec: spec, dev: dev, maxPages: int64(spec.MaxSectorsKB) * 1024 / PageSize}
	if q.maxPages < 1 {
		q.maxPages = 1
	}
	for d := range q.pool {
		for i := 0; i < spec.NrRequests; i++ {
			q.pool[d].free = append(q.pool[d].free, &Request{})
		}
	}
	return q
}

// Spec is the queue's configuration.
func (q *Queue) Spec() Spec { return q.spec }

// NewSubmitter returns the submission context of task t.
func (q *Queue) NewSubmitter(t *sim.Task) *Submitter { return &Submitter{q: q, Task: t} }

// MaxPages is max_sectors_kb in pages.
func (q *Queue) MaxPages() int64 { return q.maxPages }

// Inflight is the number of requests issued to the device.
func (q *Queue) Inflight() int { return q.inflight }

// Queued is the number of requests allocated and not yet completed.
func (q *Queue) Queued() int { return q.nQueued }

// Congested reports the bdi congestion mark of direction op (on at 7/8 of
// nr_requests + 1, off below nr - nr/8 - nr/16 - 1).
func (q *Queue) Congested(op Op) bool { return q.congested[op] }

// Stats returns the cumulative iostat counters, accounted up to now.
func (q *Queue) Stats() Iostat {
	q.account()
	return q.stats
}

func (q *Queue) account() {
	now := q.w.Now()
	dt := now - q.lastAcct
	if dt > 0 {
		q.stats.TimeInQueue += sim.Time(q.nQueued) * dt
		if q.inflight > 0 {
			q.stats.Busy += dt
		}
	}
	q.lastAcct = now
}

// mergeTarget finds a request not yet issued that bio b can back-merge into.
func (q *Queue) mergeTarget(s *Submitter, b *Bio) *Request {
	for i := len(s.plug) - 1; i >= 0; i-- {
		if r := s.plug[i]; r.Op == b.Op && r.EndSector() == b.Sector && r.Pages < q.maxPages {
			return r
		}
	}
	for i := len(q.queued) - 1; i >= 0; i-- {
		if r := q.queued[i]; r.Op == b.Op && r.EndSector() == b.Sector && r.Pages < q.maxPages {
			return r
		}
	}
	return nil
}

// Room reports how many pages of a run starting like b the queue accepts now
// without blocking the submitter.
func (q *Queue) Room(s *Submitter, b Bio) int64 {
	if len(s.pending) > 0 {
		return 0
	}
	var room int64
	if r := q.mergeTarget(s, &b); r != nil {
		room = q.maxPages - r.Pages
	}
	return room + int64(len(q.pool[b.Op].free))*q.maxPages
}

// Submit queues bio b for s. It reports true when the submitter must block
// (get_request_wait: the pool is empty); the queue then puts s.Task on a wait
// queue and wakes it once every page of b has a request.
func (q *Queue) Submit(s *Submitter, b Bio) bool {
	if b.Pages <= 0 {
		return false
	}
	q.account()
	if len(s.pending) == 0 && q.admit(s, &b) {
		q.dispatch()
		return false
	}
	s.pending = append(s.pending, b)
	if !q.isBlocked(s) {
		q.blocked = append(q.blocked, s)
	}
	s.flushPlug()
	q.dispatch()
	s.Task.Wait(&s.wq)
	return true
}

func (q *Queue) isBlocked(s *Submitter) bool {
	for _, x := range q.blocked {
		if x == s {
			return true
		}
	}
	return false
}

// admit merges or allocates requests for b, advancing b; it reports whether all of b
// was admitted.
func (q *Queue) admit(s *Submitter, b *Bio) bool {
	for b.Pages > 0 {
		n := int64(0)
		if r := q.mergeTarget(s, b); r != nil {
			n = min(b.Pages, q.maxPages-r.Pages)
			r.addSeg(b, n)
			r.Pages += n
			r.Flags |= b.Flags & (FlagSync | FlagMeta | FlagFUA | FlagPrio)
			q.stats.Merges[b.Op]++
		} else {
			r := q.alloc(b.Op)
			if r == nil {
				return false
			}
			n = min(b.Pages, q.maxPages)
			r.Sector, r.Pages, r.Op, r.Flags = b.Sector, n, b.Op, b.Flags
			r.Submit = q.w.Now()
			r.segs = r.segs[:0]
			r.addSeg(b, n)
			if s.plugged {
				s.plug = append(s.plug, r)
				if len(s.plug) >= plugFlushCount {
					s.flushPlug()
				}
			} else {
				q.queued = append(q.queued, r)
			}
		}
		b.Sector += n * PageSectors
		b.Index += n
		b.Pages -= n
	}
	return true
}

// plugFlushCount is BLK_MAX_REQUEST_COUNT (v3.2).
const plugFlushCount = 16

func (q *Queue) alloc(op Op) *Request {
	p := &q.pool[op]
	if len(p.free) == 0 {
		return nil
	}
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.alloc++
	r.inUse = true
	q.nQueued++
	nr := q.spec.NrRequests
	if p.alloc >= nr-nr/8+1 {
		q.congested[op] = true
	}
	return r
}

func (q *Queue) free(r *Request) {
	p := &q.pool[r.Op]
	r.inUse, r.issued = false, false
	p.free = append(p.free, r)
	p.alloc--
	q.nQueued--
	nr := q.spec.NrRequests
	if p.alloc < nr-nr/8-nr/16-1 {
		q.congested[r.Op] = false
	}
}

// StartPlug is blk_start_plug for s.
func (s *Submitter) StartPlug() { s.plugged = true }

// FinishPlug is blk_finish_plug: the plugged requests go to the queue.
func (s *Submitter) FinishPlug() {
	s.flushPlug()
	s.plugged = false
	s.q.dispatch()
}

func (s *Submitter) flushPlug() {
	if len(s.plug) == 0 {
		return
	}
	s.q.queued = append(s.q.queued, s.plug...)
	for i := range s.plug {
		s.plug[i] = nil
	}
	s.plug = s.plug[:0]
}

// Blocked reports whether s waits for requests.
func (s *Submitter) Blocked() bool { return len(s.pending) > 0 }

func (q *Queue) dispatch() {
	for q.inflight < q.dev.QueueDepth() && len(q.queued) > 0 {
		r := q.queued[0]
		copy(q.queued, q.queued[1:])
		q.queued[len(q.queued)-1] = nil
		q.queued = q.queued[:len(q.queued)-1]
		r.issued = true
		r.Dispatch = q.w.Now()
		q.inflight++
		q.dev.Issue(r)
	}
}

// Complete is called by the device when r is done.
func (q *Queue) Complete(r *Request) {
	q.account()
	now := q.w.Now()
	st := &q.stats
	st.IOs[r.Op]++
	st.Sectors[r.Op] += r.Pages * PageSectors
	st.Ticks[r.Op] += now - r.Submit
	q.inflight--
	// copy the segments out: the request goes back to the pool before EndIO runs
	var segBuf [8]segment
	segs := append(segBuf[:0], r.segs...)
	op := r.Op
	q.free(r)
	q.dispatch()
	q.unblock()
	for _, sg := range segs {
		sg.owner.EndIO(sg.cookie, sg.index, sg.pages, op)
	}
}

// unblock admits the pending bios of blocked submitters, FIFO, while requests last.
func (q *Queue) unblock() {
	for len(q.blocked) > 0 {
		s := q.blocked[0]
		for len(s.pending) > 0 {
			if !q.admit(s, &s.pending[0]) {
				q.dispatch()
				return
			}
			s.pending = s.pending[1:]
		}
		s.pending = nil
		copy(q.blocked, q.blocked[1:])
		q.blocked[len(q.blocked)-1] = nil
		q.blocked = q.blocked[:len(q.blocked)-1]
		s.flushPlug()
		q.dispatch()
		s.wq.WakeAll()
	}
}

// Iostat are cumulative /proc/diskstats-style counters.
type Iostat struct {
	IOs         [2]int64    // completed requests per direction
	Merges      [2]int64    // bios merged into an existing request
	Sectors     [2]int64    // sectors transferred
	Ticks       [2]sim.Time // total time from allocation to completion
	Busy        sim.Time    // time with at least one request at the device (io_ticks)
	TimeInQueue sim.Time    // integral of requests in the queue over time (weighted io_ticks)
}
