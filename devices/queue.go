package devices

import (
	"fmt"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// Device is a service-time model behind a request queue. The queue issues at most
// QueueDepth requests at once; the device calls Queue.Complete for each when done,
// always from a later event (never from inside Issue).
type Device interface {
	Issue(r *Request)
	QueueDepth() int
}

// timerDevice is a Device that schedules per-request events on the request's own
// timer (parallel servers, HDD cache acknowledgements): no allocation per request.
type timerDevice interface {
	requestTimer(r *Request)
}

// Queue is a request queue: per-task plugs, bio merging up to max_sectors_kb, the
// legacy request pool (v3.2: nr_requests per sync/async with congestion marks) or
// blk-mq tags, blk-wbt, a deadline or noop elevator, and dispatch to the device up to
// its queue depth.
type Queue struct {
	w        *sim.World
	spec     Spec
	blk      Block
	dev      Device
	tdev     timerDevice
	qd       int
	maxPages int64

	reqs      []Request
	pools     [2]reqPool // legacy: [0] sync (reads, REQ_SYNC writes), [1] async writes; mq: [0] tags
	poolWait  [2]waitList
	congested [2]bool

	elv      elevator
	wbt      wbt
	inflight int // issued to the device
	nQueued  int // allocated and not completed (diskstats in_flight)
	seq      uint64

	stats    Iostat
	lastAcct sim.Time

	tracer     tracepoint.Tracer
	devName    string // "8:0" (wbt events)
	devNum     string // "8,0" (block events)
	cur        *sim.Task
	segScratch []segment
	outside    error // the first bio submitted outside the device (CapacityErr)
}

type reqPool struct {
	free  []*Request
	alloc int
	size  int
}

type waitKind uint8

const (
	waitNone waitKind = iota
	waitWBT
	waitPool
)

// waitList is a FIFO of blocked submitters, linked through Submitter.next.
type waitList struct {
	head, tail *Submitter
	n          int
}

func (l *waitList) push(s *Submitter, front bool) {
	s.next = nil
	switch {
	case l.head == nil:
		l.head, l.tail = s, s
	case front:
		s.next = l.head
		l.head = s
	default:
		l.tail.next = s
		l.tail = s
	}
	l.n++
}

func (l *waitList) pop() *Submitter {
	s := l.head
	if s == nil {
		return nil
	}
	l.head = s.next
	if l.head == nil {
		l.tail = nil
	}
	s.next = nil
	l.n--
	return s
}

// Submitter is one task's view of the queue: its plug and the bios it is blocked on.
type Submitter struct {
	q        *Queue
	Task     *sim.Task
	pending  []Bio
	wq       sim.WaitQueue
	plugged  bool
	plug     []*Request
	wbtToken bool // a wbt slot acquired for the next new request
	waiting  waitKind
	next     *Submitter
	// waitSince is when waiting last changed; waited the time s spent blocked
	// on each waitKind (Waited)
	waitSince sim.Time
	waited    [3]sim.Time
}

// setWaiting changes what s is blocked on, counting the time of the last wait.
func (s *Submitter) setWaiting(k waitKind) {
	now := s.q.w.Now()
	if s.waiting != waitNone {
		s.waited[s.waiting] += now - s.waitSince
	}
	s.waiting, s.waitSince = k, now
}

// Waited is the time s has spent blocked in wbt_wait (wbt) and for a request
// (get_request_wait / blk_mq_get_tag) so far, the current wait included.
func (s *Submitter) Waited() (wbt, request sim.Time) {
	wbt, request = s.waited[waitWBT], s.waited[waitPool]
	switch d := s.q.w.Now() - s.waitSince; s.waiting {
	case waitWBT:
		wbt += d
	case waitPool:
		request += d
	}
	return wbt, request
}

// NewQueue builds the queue for spec in front of dev.
func NewQueue(w *sim.World, spec Spec, blk Block, dev Device) *Queue {
	q := &Queue{w: w, spec: spec, blk: blk, dev: dev, qd: dev.QueueDepth(),
		maxPages: int64(blk.MaxSectorsKB) * 1024 / PageSize, devName: "8:0", devNum: "8,0"}
	q.tdev, _ = dev.(timerDevice)
	if q.maxPages < 1 {
		q.maxPages = 1
	}
	if q.qd < 1 {
		q.qd = 1
	}
	if blk.PlugCount < 1 {
		q.blk.PlugCount = 16
	}
	nr := blk.NrRequests
	if nr < 1 {
		nr = 128
		q.blk.NrRequests = nr
	}
	npools := 2
	if blk.BlkMQ {
		npools = 1
	}
	q.reqs = make([]Request, nr*npools)
	for i := range q.reqs {
		r := &q.reqs[i]
		r.q = q
		r.class = int8(i / nr)
		r.timer.Fn = func() { q.requestTimer(r) }
		q.pools[r.class].free = append(q.pools[r.class].free, r)
	}
	for c := 0; c < npools; c++ {
		q.pools[c].size = nr
	}
	q.elv.init(q)
	q.wbt.init(q)
	if d, ok := dev.(interface{ attach(*Queue) }); ok {
		d.attach(q)
	}
	return q
}

func (q *Queue) requestTimer(r *Request) {
	if q.tdev != nil {
		q.tdev.requestTimer(r)
	}
}

// Spec is the queue's configuration.
func (q *Queue) Spec() Spec { return q.spec }

// Block is the queue's block layer (the kernel's, with the run's overrides).
func (q *Queue) Block() Block { return q.blk }

// Media returns a rotating disk's head counters (false for other models).
func (q *Queue) Media() (MediaStats, bool) {
	if d, ok := q.dev.(*hdd); ok {
		return d.Media(), true
	}
	return MediaStats{}, false
}

// Device is the service model behind the queue.
func (q *Queue) Device() Device { return q.dev }

// NewSubmitter returns the submission context of task t.
func (q *Queue) NewSubmitter(t *sim.Task) *Submitter { return &Submitter{q: q, Task: t} }

// MaxPages is max_sectors_kb in pages.
func (q *Queue) MaxPages() int64 { return q.maxPages }

// Inflight is the number of requests issued to the device.
func (q *Queue) Inflight() int { return q.inflight }

// Queued is the number of requests allocated and not yet completed.
func (q *Queue) Queued() int { return q.nQueued }

// Pending is the number of requests in the elevator (allocated, unplugged, not issued).
func (q *Queue) Pending() int { return q.elv.count }

// Waiters is the number of submitters blocked (on wbt or on the request pool).
func (q *Queue) Waiters() int { return q.wbt.waiters.n + q.poolWait[0].n + q.poolWait[1].n }

// Congested reports the bdi congestion mark for op as v3.2 sets it on the legacy
// pool: Write is the async pool (bdi_write_congested), Read the sync pool. It goes
// on when the pool's allocated count reaches nr - nr/8 + 1 (113 of 128) and off
// below nr - nr/8 - nr/16 - 1 (103). blk-mq queues never mark congestion.
func (q *Queue) Congested(op Op) bool {
	if q.blk.BlkMQ {
		return false
	}
	if op == Write {
		return q.congested[1]
	}
	return q.congested[0]
}

// class is the pool a request for op/flags comes from: rw_is_sync for legacy queues.
func (q *Queue) class(op Op, f Flags) int {
	if q.blk.BlkMQ || op == Read || f&FlagSync != 0 {
		return 0
	}
	return 1
}

// FreeRequests is the number of free requests (tags) in the pool op/flags uses.
func (q *Queue) FreeRequests(op Op, f Flags) int { return len(q.pools[q.class(op, f)].free) }

// NoteDirtySleep tells wbt that a task slept in balance_dirty_pages now
// (wb->dirty_sleep = jiffies, v4.10+): for the next second (HZ) throttled writes use
// wb_max and completions wake waiters at wb_normal (wb_recent_wait). The 2016 draft's
// dirty_sleeping count is modelled the same way.
func (q *Queue) NoteDirtySleep(now sim.Time) { q.wbt.noteDirtySleep(now) }

// Stats returns the cumulative iostat counters, accounted up to now.
func (q *Queue) Stats() Iostat {
	q.account()
	st := q.stats
	st.At = q.w.Now()
	st.InFlight = q.nQueued
	st.Issued = q.inflight
	return st
}

func (q *Queue) account() {
	now := q.w.Now()
	dt := now - q.lastAcct
	if dt > 0 {
		q.stats.TimeInQueue += sim.Time(q.nQueued) * dt
		q.stats.DeviceTimeInQueue += sim.Time(q.inflight) * dt
		if q.nQueued > 0 {
			q.stats.Busy += dt
		}
		if q.inflight > 0 {
			q.stats.DeviceBusy += dt
		}
	}
	q.lastAcct = now
}

func mergeable(r *Request, b *Bio) bool {
	return r.Op == b.Op && (r.Flags|b.Flags)&FlagFUA == 0
}

// plugMergeable is attempt_plug_merge's elv_rq_merge_ok: with cfq a bio merges only
// into a plugged request of the same queue, i.e. of the same sync-ness (the plug is
// the task's own).
func (q *Queue) plugMergeable(r *Request, b *Bio) bool {
	return mergeable(r, b) && (q.elv.cfq == nil || rqSync(r.Op, r.Flags) == rqSync(b.Op, b.Flags))
}

// mergeRoom is the number of pages of b that can back-merge into a request now.
func (q *Queue) mergeRoom(s *Submitter, b *Bio) int64 {
	for i := len(s.plug) - 1; i >= 0; i-- {
		if r := s.plug[i]; q.plugMergeable(r, b) && r.EndSector() == b.Sector && r.Pages < q.maxPages {
			return q.maxPages - r.Pages
		}
	}
	if r := q.elv.backMergeTarget(s, b); r != nil && r.Pages < q.maxPages {
		return q.maxPages - r.Pages
	}
	return 0
}

// merge merges the head of b into a plugged or queued request (attempt_plug_merge,
// then elv_merge: back merge, or front merge when all of b fits). It returns the
// pages merged.
func (q *Queue) merge(s *Submitter, b *Bio) int64 {
	if b.Flags&FlagFUA != 0 {
		return 0
	}
	for i := len(s.plug) - 1; i >= 0; i-- {
		r := s.plug[i]
		if !q.plugMergeable(r, b) {
			continue
		}
		if r.EndSector() == b.Sector && r.Pages < q.maxPages {
			n := min(b.Pages, q.maxPages-r.Pages)
			r.addSeg(b, n)
			r.Pages += n
			r.Flags |= b.Flags & (FlagSync | FlagMeta | FlagPrio)
			return n
		}
		if b.EndSector() == r.Sector && r.Pages+b.Pages <= q.maxPages {
			r.prependSeg(b, b.Pages)
			r.Sector, r.Pages = b.Sector, r.Pages+b.Pages
			r.Flags |= b.Flags & (FlagSync | FlagMeta | FlagPrio)
			return b.Pages
		}
	}
	if r := q.elv.backMergeTarget(s, b); r != nil && r.Pages < q.maxPages {
		n := min(b.Pages, q.maxPages-r.Pages)
		q.elv.backMerge(r, b, n)
		return n
	}
	if r := q.elv.frontMergeTarget(s, b); r != nil && r.Pages+b.Pages <= q.maxPages {
		q.elv.frontMerge(r, b)
		return b.Pages
	}
	return 0
}

// Room reports how many pages of a run starting like b the queue accepts now without
// blocking the submitter: merge room plus free requests (limited by the wbt slots b
// may take) times max_sectors_kb.
func (q *Queue) Room(s *Submitter, b Bio) int64 {
	if s.Blocked() {
		return 0
	}
	room := int64(0)
	if b.Flags&FlagFUA == 0 {
		room = q.mergeRoom(s, &b)
	}
	avail := int64(len(q.pools[q.class(b.Op, b.Flags)].free))
	if q.wbt.throttles(&b) {
		avail = min(avail, int64(q.wbt.slots(b.Flags)))
	}
	return room + avail*q.maxPages
}

// Submit queues bio b for s. It reports true when the submitter must block (no
// request in the pool: get_request_wait; or over the wbt limit: wbt_wait); the queue
// then flushes s's plug, puts s.Task on a wait queue and wakes it once every page of
// b has a request. Pages admitted after the wake-up go straight to the elevator.
func (q *Queue) Submit(s *Submitter, b Bio) bool {
	if b.Pages <= 0 {
		return false
	}
	if c := q.spec.CapacityBytes / SectorSize; (c > 0 && b.EndSector() > c || b.Sector < 0) && q.outside == nil {
		q.outside = fmt.Errorf("invariant bio-inside-device: device %s (%s): %s bio of sectors [%d, %d) outside its capacity of %d sectors (%s)",
			q.devName, q.spec.Name, b.Op, b.Sector, b.EndSector(), c, FormatBytes(q.spec.CapacityBytes))
	}
	q.account()
	q.cur = s.Task
	defer func() { q.cur = nil }()
	if b.Op == Read {
		q.wbt.noteReadIssue()
	}
	if !s.Blocked() {
		if q.admit(s, &b, true, false) {
			q.dispatch()
			return false
		}
	}
	s.pending = append(s.pending, b)
	s.flushPlug()
	q.dispatch()
	s.Task.Wait(&s.wq)
	return true
}

// CapacityErr is the invariant that every bio the queue accepts lies inside the
// device (sectors [0, CapacityBytes/512); a Spec without a capacity is unbounded):
// it names the first bio that did not, or is nil. Submit checks every bio, on every
// run; the machine reports the violation as the run's failure.
func (q *Queue) CapacityErr() error { return q.outside }

// admit merges or allocates requests for b, advancing b. It reports whether all of b
// was admitted; otherwise s is put on the wbt or pool wait list (at the front when
// front is set: it was already first in line).
func (q *Queue) admit(s *Submitter, b *Bio, fromTask, front bool) bool {
	now := q.w.Now()
	for b.Pages > 0 {
		n := q.merge(s, b)
		if n > 0 {
			q.stats.Merges[b.Op] += n
		} else {
			if q.wbt.throttles(b) && !s.wbtToken {
				if !q.wbt.acquire(b.Flags, fromTask) {
					if !front { // a new wait, not a retry of the first in line
						q.wbt.throttled[q.wbt.limitClass(b.Flags)]++
					}
					s.setWaiting(waitWBT)
					q.wbt.waiters.push(s, front)
					return false
				}
				s.wbtToken = true
			}
			cl := q.class(b.Op, b.Flags)
			r := q.alloc(cl)
			if r == nil {
				s.setWaiting(waitPool)
				q.poolWait[cl].push(s, front)
				if q.tracer != nil && !q.blk.BlkMQ {
					q.traceSleeprq(s.Task, b) // get_request_wait, before io_schedule
				}
				return false
			}
			n = min(b.Pages, q.maxPages)
			q.seq++
			r.Sector, r.Pages, r.Op, r.Flags = b.Sector, n, b.Op, b.Flags
			r.Submit, r.comm, r.seq = now, s.Task, q.seq
			r.wbt, s.wbtToken = s.wbtToken, false
			r.segs = r.segs[:0]
			r.addSeg(b, n)
			q.stats.Merges[b.Op] += n - 1 // the other pages of a run stand for merged bios
			if s.plugged && fromTask {
				s.addToPlug(r)
			} else {
				q.elv.add(r)
			}
		}
		b.Sector += n * PageSectors
		b.Index += n
		b.Pages -= n
	}
	return true
}

func (q *Queue) alloc(cl int) *Request {
	p := &q.pools[cl]
	if len(p.free) == 0 {
		return nil
	}
	r := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	p.alloc++
	q.nQueued++
	if nr := p.size; p.alloc >= nr-nr/8+1 {
		q.congested[cl] = true
	}
	return r
}

func (q *Queue) free(r *Request) {
	p := &q.pools[r.class]
	r.state, r.comm, r.wbt = rqFree, nil, false
	p.free = append(p.free, r)
	p.alloc--
	q.nQueued--
	if nr := p.size; p.alloc < nr-nr/8-nr/16-1 {
		q.congested[r.class] = false
	}
}

// StartPlug is blk_start_plug for s.
func (s *Submitter) StartPlug() { s.plugged = true }

// FinishPlug is blk_finish_plug: the plugged requests go to the queue.
func (s *Submitter) FinishPlug() {
	s.q.account()
	s.q.cur = s.Task
	s.flushPlug()
	s.plugged = false
	s.q.dispatch()
	s.q.cur = nil
}

// FlushPlug sends the plugged requests to the queue and keeps the plug: what
// schedule() does when a plugged task sleeps (blk_schedule_flush_plug). Call it before
// a plugged task sleeps for any reason other than a blocking Submit.
func (s *Submitter) FlushPlug() {
	if len(s.plug) == 0 {
		return
	}
	s.q.account()
	s.q.cur = s.Task
	s.flushPlug()
	s.q.dispatch()
	s.q.cur = nil
}

// Plugged reports whether s is between StartPlug and FinishPlug.
func (s *Submitter) Plugged() bool { return s.plugged }

// PluggedRequests is the number of requests held in s's plug.
func (s *Submitter) PluggedRequests() int { return len(s.plug) }

// addToPlug adds r to the plug, flushing first when the plug holds PlugCount
// requests (BLK_MAX_REQUEST_COUNT) or its last request reaches PlugBytes
// (BLK_PLUG_FLUSH_SIZE, v6).
func (s *Submitter) addToPlug(r *Request) {
	sp := &s.q.blk
	if n := len(s.plug); n >= sp.PlugCount || (sp.PlugBytes > 0 && n > 0 && s.plug[n-1].Bytes() >= sp.PlugBytes) {
		s.flushPlug()
	}
	r.state = rqPlugged
	s.plug = append(s.plug, r)
}

func (s *Submitter) flushPlug() {
	if len(s.plug) == 0 {
		return
	}
	for i, r := range s.plug {
		s.q.elv.add(r)
		s.plug[i] = nil
	}
	s.plug = s.plug[:0]
}

// Blocked reports whether s waits for requests or wbt.
func (s *Submitter) Blocked() bool { return len(s.pending) > 0 }

// WaitingOnWBT reports whether blocked s waits in wbt_wait (else, when Blocked,
// for a request: get_request_wait / blk_mq_get_tag).
func (s *Submitter) WaitingOnWBT() bool { return s.waiting == waitWBT }

func (q *Queue) dispatch() {
	for q.inflight < q.qd {
		r := q.elv.next(q.w.Now())
		if r == nil {
			return
		}
		r.state = rqIssued
		r.Dispatch = q.w.Now()
		q.inflight++
		q.wbt.issue(r)
		if q.tracer != nil {
			q.traceRq(tracepoint.BlockRqIssue, r)
		}
		q.dev.Issue(r)
	}
}

// Complete is called by the device when r is done: accounting, wbt, freeing the
// request, waking blocked submitters, dispatching more, then one EndIO per segment.
func (q *Queue) Complete(r *Request) {
	q.account()
	now := q.w.Now()
	st := &q.stats
	st.IOs[r.Op]++
	st.Sectors[r.Op] += r.Sectors()
	st.Ticks[r.Op] += now - r.Submit
	st.ServiceTicks[r.Op] += now - r.Dispatch
	q.inflight--
	if q.tracer != nil {
		q.traceRq(tracepoint.BlockRqComplete, r)
	}
	q.wbt.done(r, now)
	if c := q.elv.cfq; c != nil {
		c.completed(r, now)
	}
	// copy the segments out: the request goes back to the pool before EndIO runs
	base := len(q.segScratch)
	q.segScratch = append(q.segScratch, r.segs...)
	op := r.Op
	q.free(r)
	q.kick()
	q.dispatch()
	for i := base; i < len(q.segScratch); i++ {
		sg := q.segScratch[i]
		if sg.owner != nil {
			sg.owner.EndIO(sg.cookie, sg.index, sg.pages, op)
		}
	}
	clear(q.segScratch[base:])
	q.segScratch = q.segScratch[:base]
}

// kick resumes blocked submitters while requests and wbt slots allow, FIFO per wait
// list: pool waiters while their pool has free requests, then wbt waiters when wbt
// decided to wake them.
func (q *Queue) kick() {
	for progress := true; progress; {
		progress = false
		for cl := range q.pools {
			for len(q.pools[cl].free) > 0 && q.poolWait[cl].head != nil {
				q.resume(q.poolWait[cl].pop(), true)
				progress = true
			}
		}
		b := &q.wbt
		wake := b.wake
		b.wake = wakeNone
		switch {
		case b.waiters.head == nil:
		case wake == wakeOne:
			q.resume(b.waiters.pop(), true)
			progress = true
		case wake == wakeAll && b.draft:
			// every waiter retries may_queue once, in order; the 2016 draft has no
			// FIFO fairness, so a sync write behind a background one may pass
			for n := b.waiters.n; n > 0; n-- {
				q.resume(b.waiters.pop(), false)
			}
			progress = true
		case wake == wakeAll:
			// rq_qos_wake_function: waiters take slots in order; the first that
			// cannot stops the walk
			for b.waiters.head != nil && b.canAcquire(b.waiters.head.pending[0].Flags) {
				q.resume(b.waiters.pop(), true)
				progress = true
			}
		}
	}
}

// resume continues admitting a blocked submitter's pending bios; when all are in, it
// wakes the task.
func (q *Queue) resume(s *Submitter, front bool) {
	s.setWaiting(waitNone)
	for len(s.pending) > 0 {
		if !q.admit(s, &s.pending[0], false, front) {
			return
		}
		copy(s.pending, s.pending[1:])
		s.pending = s.pending[:len(s.pending)-1]
	}
	s.wq.WakeAll()
}
