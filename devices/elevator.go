package devices

import (
	"sort"

	"github.com/wblab/wblab/engine/sim"
)

// elevator holds requests between the pool (or plug) and dispatch.
//
// deadline follows v3.2 block/deadline-iosched.c: per direction a sector-sorted list
// and a FIFO with expiry (read_expire, write_expire); dispatch continues the current
// batch in sector order up to fifo_batch requests, then prefers reads unless writes
// have been starved writes_starved times, and starts from the FIFO head when it
// expired (or there is no next request in sector order).
//
// noop dispatches in arrival order (noop, blk-mq "none"). cfq is v3.2's CFQ
// (cfq.go). All back- and front-merge bios into requests that are not yet issued
// (cfq only within the queue the bio belongs to).
type elevator struct {
	q             *Queue
	deadline      bool
	expire        [2]sim.Time
	writesStarved int
	fifoBatch     int

	sorted   [2][]*Request
	fifo     [2]fifoList
	back     reqHash // (end sector, op) -> request
	front    reqHash // (start sector, op) -> request
	count    int
	nextPos  [2]int64 // deadline next_rq: first sector at or after this in sort order
	nextOK   [2]bool
	batching int
	starved  int

	cfq *cfq // elevator=cfq (cfq.go)
}

type fifoList struct{ head, tail *Request }

func (l *fifoList) push(r *Request) {
	r.fifoNext, r.fifoPrev = nil, l.tail
	if l.tail != nil {
		l.tail.fifoNext = r
	} else {
		l.head = r
	}
	l.tail = r
}

func (l *fifoList) remove(r *Request) {
	if r.fifoPrev != nil {
		r.fifoPrev.fifoNext = r.fifoNext
	} else {
		l.head = r.fifoNext
	}
	if r.fifoNext != nil {
		r.fifoNext.fifoPrev = r.fifoPrev
	} else {
		l.tail = r.fifoPrev
	}
	r.fifoNext, r.fifoPrev = nil, nil
}

func (e *elevator) init(q *Queue) {
	s := q.spec
	e.q = q
	e.deadline = s.Elevator == ElevatorDeadline || s.Elevator == ""
	if s.Elevator == ElevatorCFQ {
		e.cfq = &cfq{}
		e.cfq.init(q)
	}
	e.expire = [2]sim.Time{sim.Time(max(s.ReadExpireMs, 1)) * sim.Millisecond, sim.Time(max(s.WriteExpireMs, 1)) * sim.Millisecond}
	e.writesStarved, e.fifoBatch = max(s.WritesStarved, 1), max(s.FifoBatch, 1)
	e.back = newReqHash(2 * q.blk.NrRequests)
	e.front = newReqHash(2 * q.blk.NrRequests)
	if e.deadline {
		for d := range e.sorted {
			e.sorted[d] = make([]*Request, 0, q.blk.NrRequests)
		}
	}
}

func mkey(sector int64, op Op) int64 { return sector<<1 | int64(op) }

func (e *elevator) fifoFor(op Op) *fifoList {
	if !e.deadline {
		return &e.fifo[0]
	}
	return &e.fifo[op]
}

// add inserts r (a new request, or one flushed from a plug).
func (e *elevator) add(r *Request) {
	r.state = rqQueued
	if e.cfq != nil {
		e.cfq.add(r)
	} else {
		r.expire = e.q.w.Now() + e.expire[r.Op]
		e.fifoFor(r.Op).push(r)
		if e.deadline {
			e.sortInsert(r)
		}
	}
	e.back.put(mkey(r.EndSector(), r.Op), r)
	e.front.put(mkey(r.Sector, r.Op), r)
	e.count++
}

func (e *elevator) sortInsert(r *Request) {
	l := e.sorted[r.Op]
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector > r.Sector })
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = r
	e.sorted[r.Op] = l
}

func (e *elevator) sortRemove(r *Request) {
	l := e.sorted[r.Op]
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector >= r.Sector })
	for ; i < len(l); i++ {
		if l[i] == r {
			copy(l[i:], l[i+1:])
			l[len(l)-1] = nil
			e.sorted[r.Op] = l[:len(l)-1]
			return
		}
	}
}

func (e *elevator) unhash(r *Request) {
	if k := mkey(r.EndSector(), r.Op); e.back.get(k) == r {
		e.back.del(k)
	}
	if k := mkey(r.Sector, r.Op); e.front.get(k) == r {
		e.front.del(k)
	}
}

func (e *elevator) remove(r *Request) {
	e.fifoFor(r.Op).remove(r)
	if e.deadline {
		e.sortRemove(r)
	}
	e.unhash(r)
	e.count--
}

func (e *elevator) backMergeTarget(s *Submitter, b *Bio) *Request {
	r := e.back.get(mkey(b.Sector, b.Op))
	if r == nil || !mergeable(r, b) || (e.cfq != nil && !e.cfq.allowMerge(s, r, b)) {
		return nil
	}
	return r
}

func (e *elevator) frontMergeTarget(s *Submitter, b *Bio) *Request {
	r := e.front.get(mkey(b.EndSector(), b.Op))
	if r == nil || !mergeable(r, b) || (e.cfq != nil && !e.cfq.allowMerge(s, r, b)) {
		return nil
	}
	return r
}

func (e *elevator) backMerge(r *Request, b *Bio, n int64) {
	if k := mkey(r.EndSector(), r.Op); e.back.get(k) == r {
		e.back.del(k)
	}
	r.addSeg(b, n)
	r.Pages += n
	r.Flags |= b.Flags & (FlagSync | FlagMeta | FlagPrio)
	e.back.put(mkey(r.EndSector(), r.Op), r)
}

func (e *elevator) frontMerge(r *Request, b *Bio) {
	if k := mkey(r.Sector, r.Op); e.front.get(k) == r {
		e.front.del(k)
	}
	if e.deadline {
		e.sortRemove(r)
	}
	if e.cfq != nil {
		r.cfqq.sortRemove(r)
	}
	r.prependSeg(b, b.Pages)
	r.Sector, r.Pages = b.Sector, r.Pages+b.Pages
	r.Flags |= b.Flags & (FlagSync | FlagMeta | FlagPrio)
	if e.deadline {
		e.sortInsert(r)
	}
	if e.cfq != nil {
		r.cfqq.sortInsert(r)
	}
	e.front.put(mkey(r.Sector, r.Op), r)
}

// successor is next_rq[dir]: the first request in sector order at or after the
// position the last dispatch left.
func (e *elevator) successor(dir Op) *Request {
	if !e.nextOK[dir] {
		return nil
	}
	l := e.sorted[dir]
	pos := e.nextPos[dir]
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector >= pos })
	if i == len(l) {
		return nil
	}
	return l[i]
}

// next removes and returns the request to dispatch, or nil.
func (e *elevator) next(now sim.Time) *Request {
	if e.cfq != nil {
		r := e.cfq.next(now)
		if r != nil {
			e.unhash(r)
			e.count--
		}
		return r
	}
	if e.count == 0 {
		return nil
	}
	if !e.deadline {
		r := e.fifo[0].head
		e.remove(r)
		return r
	}
	// deadline_dispatch_requests (v3.2)
	rq := e.successor(Write)
	if rq == nil {
		rq = e.successor(Read)
	}
	if rq == nil || e.batching >= e.fifoBatch {
		reads, writes := len(e.sorted[Read]) > 0, len(e.sorted[Write]) > 0
		var dir Op
		switch {
		case reads && writes && e.starved >= e.writesStarved:
			e.starved = 0
			dir = Write
		case reads:
			if writes {
				e.starved++
			}
			dir = Read
		default:
			e.starved = 0
			dir = Write
		}
		head := e.fifo[dir].head
		if rq = e.successor(dir); rq == nil || now >= head.expire {
			rq = head
		}
		e.batching = 0
	}
	e.batching++
	e.remove(rq)
	e.nextOK = [2]bool{}
	e.nextOK[rq.Op] = true
	e.nextPos[rq.Op] = rq.Sector
	return rq
}
