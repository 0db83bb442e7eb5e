package devices

import (
	"math/bits"
	"sort"

	"github.com/wblab/wblab/engine/sim"
)

// CFQ tunables and constants: v3.2 block/cfq-iosched.c defaults (kernel-notes §7.1),
// all in one place. HZ-based values are given in time (HZ/10 = 100 ms at any HZ).
const (
	// cfq_quantum: a queue may have up to quantum/2 requests at the device; up to
	// quantum early in its slice when other queues are busy, unlimited when it is
	// the only busy queue (or the only busy sync queue).
	cfqQuantum = 8
	// cfq_fifo_expire[rq_is_sync]: { HZ/4, HZ/8 }, i.e. async 250 ms, sync 125 ms
	// (sysfs fifo_expire_async 248 / fifo_expire_sync 124 ms at HZ=250).
	// kernel-notes §7.1 lists them the other way round; the source indexes the
	// array by rq_is_sync(rq), so sync requests expire first.
	cfqFifoExpireSync  = 125 * sim.Millisecond
	cfqFifoExpireAsync = 250 * sim.Millisecond
	// cfq_slice_sync (HZ/10) and cfq_slice_async (HZ/25): base slices of a
	// best-effort queue at the default priority (ioprio 4, from nice 0).
	cfqSliceSync  = 100 * sim.Millisecond
	cfqSliceAsync = 40 * sim.Millisecond
	// cfq_slice_async_rq: an async queue's slice also ends after
	// 2 * slice_async_rq * (IOPRIO_BE_NR - ioprio) = 16 dispatched requests when
	// other queues are busy (cfq_prio_to_maxrq).
	cfqSliceAsyncRq = 2
	cfqAsyncMaxRq   = 2 * cfqSliceAsyncRq * (cfqIoprioBENr - cfqIoprio)
	// cfq_slice_idle (HZ/125): how long an emptied sync queue waits for its
	// task's next request before its slice ends.
	cfqSliceIdle = 8 * sim.Millisecond
	// cfq_target_latency (HZ*3/10): the round all busy queues share; with one
	// cgroup it is the group slice.
	cfqTargetLatency = 300 * sim.Millisecond
	// cfq_hist_divisor: weight of the busy-queues average.
	cfqHistDivisor = 4
	// CFQ_MIN_TT: shortest workload slice (2 jiffies at HZ=1000).
	cfqMinTT = 2 * sim.Millisecond
	// CFQ_SLICE_SCALE, IOPRIO_BE_NR and the default ioprio (4: nice 0).
	cfqSliceScale = 5
	cfqIoprioBENr = 8
	cfqIoprio     = 4
	// CFQQ_SEEK_THR: a request farther than this from the queue's previous one is
	// a seek (seek_history, CFQQ_SEEKY = more than 4 seeks in the last 32).
	cfqSeekThr = 8 * 100
	// a queue with this many requests queued is "deep" (keeps idling when seeky).
	cfqDeepQueued = 4
	// sample_valid: think-time samples (fixed point, 256 per sample, 7/8 decay)
	// needed before the mean is trusted.
	cfqSampleValid = 80
	// the jiffy used for "slice_end = jiffies + 1" and "-HZ" service-tree keys.
	cfqJiffy = sim.Millisecond
	cfqHZ    = sim.Second
)

// Workload types (enum wl_type_t): the best-effort class's three service trees.
const (
	cfqAsyncWL = iota
	cfqSyncNoIdleWL
	cfqSyncWL
	cfqNumWL
)

// cfqSlice is cfq_prio_slice(sync, ioprio): base + base/5 * (4 - prio).
func cfqSlice(sync bool, prio int) sim.Time {
	base := cfqSliceAsync
	if sync {
		base = cfqSliceSync
	}
	return base + base/cfqSliceScale*sim.Time(4-prio)
}

// cfq is the v3.2 CFQ elevator, restricted to what one cgroup of best-effort tasks
// at the default priority does (every task in wblab):
//
//   - queues: each submitting task has a sync queue for its reads and REQ_SYNC
//     writes (cic->cfqq[1]); async writes of every task go to one shared async queue
//     (cfqd->async_cfqq[BE][4]). A bio merges only into a request of the queue it
//     would be queued on (cfq_allow_merge: no sync bio into an async request, and
//     the same cfqq);
//   - service trees: ASYNC, SYNC_NOIDLE (sync queues without an idle window:
//     WRITE_SYNC writes carry REQ_NOIDLE — in wblab a sync write without FlagIdle —
//     and seeky queues) and SYNC. A busy queue is keyed jiffies + slice offset -
//     residual slice (cfq_service_tree_add); choose_service_tree keeps serving a
//     workload for its workload slice (target_latency shared in proportion to the
//     busy queues, async scaled by slice_async/slice_sync) and then picks the tree
//     whose first queue has the lowest key (cfq_choose_wl);
//   - slices: a queue's slice (slice_sync 100 ms / slice_async 40 ms, low_latency
//     scaled to fit the busy queues into target_latency) starts when its first
//     request completes; an async queue also expires after 16 dispatches when
//     other queues are busy (slice_async_rq);
//   - dispatch (cfq_may_dispatch): a sync queue that would idle waits for async
//     requests at the device to drain; an async queue waits while sync requests
//     are at the device; quantum/2 requests per queue, quantum early in a slice,
//     unlimited for a sole busy queue or the sole busy sync queue; async depth
//     ramps up one request per slice_sync since the last sync request that waited
//     longer than fifo_expire_sync (last_delayed_sync);
//   - within a queue: the FIFO head if it expired (checked once per slice),
//     otherwise the closer of the head position's two neighbours in sector order,
//     backward seeks up to 16 MiB at twice the cost (cfq_choose_req);
//   - idling: when the active sync queue empties, with nothing of it at the
//     device, it keeps the disk for slice_idle waiting for the task (idle window
//     on, or the last queue of a sync tree whose think time is short), unless its
//     mean think time exceeds the slice left; not on non-rotational queued devices
//     (blk_queue_nonrot && hw_tag);
//   - preemption (cfq_should_preempt): a sync request preempts an async active
//     queue; a request of a non-active queue preempts an active queue whose slice
//     is used, one idling on the sync-noidle tree (the new queue being that tree's
//     second), one that has no requests and should not idle, or a REQ_PRIO
//     request a queue without pending REQ_PRIO ones. The preempting queue goes to
//     the front of its tree and a workload change ends the workload slice.
//
// Simplifications, each documented where it applies: no cgroups (one group, no
// group idle, no wait_busy), no RT/IDLE classes or ionice (every queue is BE
// priority 4), no close-cooperator queue merging or splitting, next_rq chosen at
// dispatch from the head position (cfq_find_next_rq's neighbours through
// cfq_choose_req) rather than kept up to date on every add, hw_tag is "the device queue depth exceeds 1"
// instead of the run-time estimate, idle windows are not closed for exited tasks,
// and REQ_NOIDLE is read from the request that was just queued rather than from
// next_rq.
type cfq struct {
	q        *Queue
	w        *sim.World
	noIdle   bool // blk_queue_nonrot && hw_tag: never idle
	syncQ    map[*sim.Task]*cfqQueue
	asyncQ   cfqQueue
	anonSync cfqQueue // sync requests without a task (tests)
	trees    [cfqNumWL]cfqTree

	active          *cfqQueue
	servingType     int
	workloadExpires sim.Time
	busyAvg         int // busy_queues_avg[BE]
	busyQueues      int
	busySync        int
	rqQueued        int
	inFlight        [2]int // rq_in_flight[async, sync]
	lastPosition    int64
	lastDelayedSync sim.Time
	idleTimer       sim.Timer
}

// cfqTree is a service tree: busy queues ordered by rbKey (FIFO among equal keys),
// and the think time of its sync queues.
type cfqTree struct {
	qs    []*cfqQueue
	ttime cfqTtime
}

// cfqTtime is struct cfq_ttime: decaying mean time from a sync completion to the
// task's next request.
type cfqTtime struct {
	lastEnd        sim.Time
	samples, total int64
	mean           sim.Time
}

func (t *cfqTtime) update(now sim.Time) {
	el := min(now-t.lastEnd, 2*cfqSliceIdle)
	t.samples = (7*t.samples + 256) / 8
	t.total = (7*t.total + 256*int64(el)) / 8
	t.mean = sim.Time((t.total + 128) / t.samples)
}

func (t *cfqTtime) valid() bool { return t.samples > cfqSampleValid }

// cfqQueue is struct cfq_queue.
type cfqQueue struct {
	sync       bool
	sorted     []*Request // sort_list
	fifo       fifoList
	queued     int
	dispatched int
	prioPend   int

	onRR   bool
	tree   int // service tree it is on (valid while onRR)
	rbKey  sim.Time
	inTree bool

	sliceNew      bool
	sliceStart    sim.Time
	sliceEnd      sim.Time
	sliceResid    sim.Time
	sliceDispatch int
	fifoChecked   bool
	waitRequest   bool
	mustDispatch  bool
	idleWindow    bool
	deep          bool

	seekHistory uint32
	lastReqPos  int64
	ttime       cfqTtime
}

func (c *cfq) init(q *Queue) {
	c.q, c.w = q, q.w
	c.noIdle = !q.spec.Rotational && q.qd > 1
	c.syncQ = make(map[*sim.Task]*cfqQueue)
	c.initQueue(&c.asyncQ, false)
	c.initQueue(&c.anonSync, true)
	c.idleTimer.Fn = c.idleSliceTimer
	// cfq_init_queue: "we optimistically start assuming sync ops weren't delayed
	// in last second, in order to have larger depth for async operations"
	c.lastDelayedSync = c.w.Now() - cfqHZ
	for i := range c.trees {
		c.trees[i].qs = make([]*cfqQueue, 0, 8)
	}
}

func (c *cfq) initQueue(cq *cfqQueue, sync bool) {
	cq.sync = sync
	cq.idleWindow = sync // cfq_init_cfqq: sync BE queues start with an idle window
	cq.sorted = make([]*Request, 0, 16)
	cq.ttime.lastEnd = c.w.Now()
}

func rqSync(op Op, f Flags) bool { return op == Read || f&FlagSync != 0 }

// queueFor is cfq_get_queue: the task's sync queue or the shared async queue.
func (c *cfq) queueFor(t *sim.Task, op Op, f Flags) *cfqQueue {
	if !rqSync(op, f) {
		return &c.asyncQ
	}
	if t == nil {
		return &c.anonSync
	}
	cq := c.syncQ[t]
	if cq == nil {
		cq = &cfqQueue{}
		c.initQueue(cq, true)
		c.syncQ[t] = cq
	}
	return cq
}

// allowMerge is cfq_allow_merge: b may merge into r only if r is on the queue b
// would go to.
func (c *cfq) allowMerge(s *Submitter, r *Request, b *Bio) bool {
	var t *sim.Task
	if s != nil {
		t = s.Task
	}
	return r.cfqq == c.queueFor(t, b.Op, b.Flags)
}

func (cq *cfqQueue) wlType() int {
	switch {
	case !cq.sync:
		return cfqAsyncWL
	case !cq.idleWindow:
		return cfqSyncNoIdleWL
	}
	return cfqSyncWL
}

func (cq *cfqQueue) seeky() bool { return bits.OnesCount32(cq.seekHistory) > 32/8 }

func (cq *cfqQueue) sortInsert(r *Request) {
	l := cq.sorted
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector > r.Sector })
	l = append(l, nil)
	copy(l[i+1:], l[i:])
	l[i] = r
	cq.sorted = l
}

func (cq *cfqQueue) sortRemove(r *Request) {
	l := cq.sorted
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector >= r.Sector })
	for ; i < len(l); i++ {
		if l[i] == r {
			copy(l[i:], l[i+1:])
			l[len(l)-1] = nil
			cq.sorted = l[:len(l)-1]
			return
		}
	}
}

// add is cfq_insert_request.
func (c *cfq) add(r *Request) {
	now := c.w.Now()
	cq := c.queueFor(r.comm, r.Op, r.Flags)
	r.cfqq = cq
	if cq.sync {
		r.expire = now + cfqFifoExpireSync
	} else {
		r.expire = now + cfqFifoExpireAsync
	}
	cq.fifo.push(r)
	cq.sortInsert(r)
	cq.queued++
	if !cq.onRR {
		c.addRR(cq)
	}
	c.enqueued(cq, r, now)
}

// enqueued is cfq_rq_enqueued.
func (c *cfq) enqueued(cq *cfqQueue, r *Request, now sim.Time) {
	c.rqQueued++
	if r.Flags&FlagPrio != 0 {
		cq.prioPend++
	}
	if cq.sync {
		// cfq_update_io_thinktime: the task's and its service tree's
		cq.ttime.update(now)
		c.trees[cq.tree].ttime.update(now)
	}
	// cfq_update_io_seektime (rotational)
	if cq.lastReqPos != 0 {
		d := r.Sector - cq.lastReqPos
		if d < 0 {
			d = -d
		}
		cq.seekHistory <<= 1
		if d > cfqSeekThr {
			cq.seekHistory |= 1
		}
	} else {
		cq.seekHistory <<= 1
	}
	// cfq_update_idle_window
	if cq.sync {
		if cq.queued >= cfqDeepQueued {
			cq.deep = true
		}
		switch {
		case r.Op == Write && r.Flags&FlagIdle == 0:
			cq.idleWindow = false // REQ_NOIDLE (WRITE_SYNC)
		case !cq.deep && cq.seeky():
			cq.idleWindow = false
		case cq.ttime.valid():
			cq.idleWindow = cq.ttime.mean <= cfqSliceIdle
		}
	}
	cq.lastReqPos = r.EndSector()

	if cq == c.active {
		if cq.waitRequest {
			if r.Bytes() > PageSize || c.busyQueues > 1 {
				c.w.Cancel(&c.idleTimer)
				cq.waitRequest = false
			} else {
				cq.mustDispatch = true
			}
		}
	} else if c.shouldPreempt(cq, r, now) {
		c.preempt(cq, now)
	}
}

// shouldPreempt is cfq_should_preempt for one group of BE queues.
func (c *cfq) shouldPreempt(nq *cfqQueue, r *Request, now sim.Time) bool {
	cq := c.active
	if cq == nil {
		return false
	}
	if rqSync(r.Op, r.Flags) && !cq.sync {
		return true // a sync request beats an async slice
	}
	if c.sliceUsed(cq, now) {
		return true
	}
	if c.servingType == cfqSyncNoIdleWL && nq.wlType() == cfqSyncNoIdleWL &&
		len(c.trees[nq.tree].qs) == 2 && len(cq.sorted) == 0 {
		return true // idling on the sync-noidle tree
	}
	if r.Flags&FlagPrio != 0 && cq.prioPend == 0 {
		return true
	}
	if len(cq.sorted) == 0 && !c.shouldIdle(cq) {
		return true
	}
	// cfq_rq_close (a request near the idling queue's position) is part of the
	// close-cooperator logic wblab leaves out
	return false
}

// preempt is cfq_preempt_queue.
func (c *cfq) preempt(nq *cfqQueue, now sim.Time) {
	oldType := c.active.wlType()
	c.sliceExpired(true, now)
	if oldType != nq.wlType() {
		c.workloadExpires = now - 1 // saved_workload_slice = 0
	}
	c.treeAdd(nq, true, now)
	nq.sliceEnd = 0
	nq.sliceNew = true
}

// addRR is cfq_add_cfqq_rr.
func (c *cfq) addRR(cq *cfqQueue) {
	cq.onRR = true
	c.busyQueues++
	if cq.sync {
		c.busySync++
	}
	c.treeAdd(cq, false, c.w.Now())
}

// delRR is cfq_del_cfqq_rr.
func (c *cfq) delRR(cq *cfqQueue) {
	c.treeRemove(cq)
	cq.onRR = false
	c.busyQueues--
	if cq.sync {
		c.busySync--
	}
}

// treeAdd is cfq_service_tree_add (cfq_resort_rr_list when !front).
func (c *cfq) treeAdd(cq *cfqQueue, front bool, now sim.Time) {
	st := cq.wlType()
	var key sim.Time
	if !front {
		// cfq_slice_offset: (nr_cfqq - 1) * (prio_slice(sync, 0) - prio_slice(this))
		off := sim.Time(c.busyQueues-1) * (cfqSlice(true, 0) - cfqSlice(cq.sync, cfqIoprio))
		key = now + off - cq.sliceResid
		cq.sliceResid = 0
	} else {
		key = now
		if t := &c.trees[st]; len(t.qs) > 0 {
			key = t.qs[0].rbKey
		}
		key -= cfqHZ
	}
	if cq.inTree {
		if key == cq.rbKey && cq.tree == st {
			return
		}
		c.treeRemove(cq)
	}
	cq.rbKey, cq.tree = key, st
	t := &c.trees[st]
	i := sort.Search(len(t.qs), func(i int) bool { return t.qs[i].rbKey > key })
	t.qs = append(t.qs, nil)
	copy(t.qs[i+1:], t.qs[i:])
	t.qs[i] = cq
	cq.inTree = true
}

func (c *cfq) treeRemove(cq *cfqQueue) {
	if !cq.inTree {
		return
	}
	t := &c.trees[cq.tree]
	for i, x := range t.qs {
		if x == cq {
			copy(t.qs[i:], t.qs[i+1:])
			t.qs[len(t.qs)-1] = nil
			t.qs = t.qs[:len(t.qs)-1]
			break
		}
	}
	cq.inTree = false
}

func (c *cfq) sliceUsed(cq *cfqQueue, now sim.Time) bool {
	return !cq.sliceNew && now >= cq.sliceEnd
}

// shouldIdle is cfq_should_idle.
func (c *cfq) shouldIdle(cq *cfqQueue) bool {
	if cq.idleWindow && cq.sync && !c.noIdle {
		return true
	}
	t := &c.trees[cq.tree]
	// the last queue of its tree, sync, and the tree's think time is not big (on
	// any device: cfq_arm_slice_timer is what never idles on nonrot + hw_tag)
	return cq.onRR && len(t.qs) == 1 && cq.sync && !(t.ttime.valid() && t.ttime.mean > cfqSliceIdle)
}

// busyInWL is cfq_group_busy_queues_wl(BE).
func (c *cfq) busyInWL() int {
	return len(c.trees[0].qs) + len(c.trees[1].qs) + len(c.trees[2].qs)
}

// avgQueues is cfq_group_get_avg_queues: an average that follows increases fast.
func (c *cfq) avgQueues() int {
	busy := c.busyInWL()
	lo, hi := min(c.busyAvg, busy), max(c.busyAvg, busy)
	c.busyAvg = ((cfqHistDivisor-1)*hi + lo + cfqHistDivisor/2) / cfqHistDivisor
	return c.busyAvg
}

// setPrioSlice is cfq_set_prio_slice with low_latency on.
func (c *cfq) setPrioSlice(cq *cfqQueue, now sim.Time) {
	slice := cfqSlice(cq.sync, cfqIoprio)
	iq := sim.Time(c.avgQueues())
	expect := cfqSliceSync * iq
	if expect > cfqTargetLatency {
		low := min(slice, 2*cfqSliceIdle*slice/cfqSliceSync)
		slice = max(slice*cfqTargetLatency/expect, low)
	}
	cq.sliceStart, cq.sliceEnd = now, now+slice
}

// chooseServiceTree is choose_service_tree (cfq_choose_cfqg with one group: the
// workload slice carries over queue switches).
func (c *cfq) chooseServiceTree(now sim.Time) {
	if len(c.trees[c.servingType].qs) > 0 && now <= c.workloadExpires {
		return
	}
	// cfq_choose_wl: the tree whose first queue has the lowest key
	best, found := cfqSyncNoIdleWL, false
	var lowest sim.Time
	for i := 0; i < cfqNumWL; i++ {
		if t := c.trees[i].qs; len(t) > 0 && (!found || t[0].rbKey < lowest) {
			best, lowest, found = i, t[0].rbKey, true
		}
	}
	c.servingType = best
	count := sim.Time(len(c.trees[best].qs))
	slice := cfqTargetLatency * count / sim.Time(max(c.busyAvg, c.busyInWL(), 1))
	if best == cfqAsyncWL {
		slice = min(slice, cfqTargetLatency*sim.Time(len(c.trees[cfqAsyncWL].qs))/sim.Time(max(c.busyQueues, 1)))
		slice = slice * cfqSliceAsync / cfqSliceSync
	} else {
		slice = max(slice, 2*cfqSliceIdle)
	}
	c.workloadExpires = now + max(slice, cfqMinTT)
}

// setActive is __cfq_set_active_queue (nil: the first queue of the serving tree).
func (c *cfq) setActive(cq *cfqQueue) *cfqQueue {
	if cq == nil {
		if t := c.trees[c.servingType].qs; len(t) > 0 {
			cq = t[0]
		}
	}
	if cq != nil {
		cq.sliceStart, cq.sliceEnd, cq.sliceDispatch = 0, 0, 0
		cq.waitRequest, cq.mustDispatch, cq.fifoChecked = false, false, false
		cq.sliceNew = true
		c.w.Cancel(&c.idleTimer)
	}
	c.active = cq
	return cq
}

// sliceExpired is __cfq_slice_expired for the active queue.
func (c *cfq) sliceExpired(timedOut bool, now sim.Time) {
	cq := c.active
	if cq == nil {
		return
	}
	c.w.Cancel(&c.idleTimer)
	cq.waitRequest = false
	if timedOut && !cq.sliceNew {
		cq.sliceResid = cq.sliceEnd - now
	}
	if cq.onRR && len(cq.sorted) == 0 {
		c.delRR(cq)
	}
	if cq.onRR {
		c.treeAdd(cq, false, now)
	}
	c.active = nil
}

// selectQueue is cfq_select_queue.
func (c *cfq) selectQueue(now sim.Time) *cfqQueue {
	cq := c.active
	if cq != nil {
		if c.rqQueued == 0 {
			return nil
		}
		switch {
		case c.sliceUsed(cq, now) && !cq.mustDispatch:
			// slice used: expire (wait_busy and group idle are cgroup features)
		case len(cq.sorted) > 0:
			return cq
		case c.idleTimer.Pending():
			return nil
		default:
			// a seeky queue on a fast device loses its idle window
			if cq.seeky() && cq.idleWindow && (cq.sliceNew || cq.sliceEnd-now > now-cq.sliceStart) {
				cq.deep, cq.idleWindow = false, false
			}
			if cq.dispatched > 0 && c.shouldIdle(cq) {
				return nil
			}
		}
		c.sliceExpired(false, now)
	}
	c.chooseServiceTree(now)
	return c.setActive(nil)
}

// sliceUsedSoon is cfq_slice_used_soon.
func (c *cfq) sliceUsedSoon(cq *cfqQueue, now sim.Time) bool {
	return cq.sliceNew || now+cfqSliceIdle*sim.Time(cq.dispatched) > cq.sliceEnd
}

// mayDispatch is cfq_may_dispatch.
func (c *cfq) mayDispatch(cq *cfqQueue, now sim.Time) bool {
	if c.shouldIdle(cq) && c.inFlight[0] > 0 {
		return false // drain async requests before sync IO
	}
	if c.inFlight[1] > 0 && !cq.sync {
		return false // an async queue waits while sync IO is at the device
	}
	maxD := max(cfqQuantum/2, 1)
	if cq.dispatched >= maxD {
		promote := cq.sync && c.busySync == 1
		if c.busyQueues > 1 && c.sliceUsedSoon(cq, now) && !promote {
			return false
		}
		if c.busyQueues == 1 || promote {
			maxD = int(^uint(0) >> 1)
		} else {
			maxD = cfqQuantum
		}
	}
	if !cq.sync {
		// low_latency: async depth ramps up after a delayed sync request
		depth := int((now - c.lastDelayedSync) / cfqSliceSync)
		if depth == 0 && cq.dispatched == 0 {
			depth = 1
		}
		maxD = min(maxD, depth)
	}
	return cq.dispatched < maxD
}

// nextRq is the queue's next request from the head position: cfq_find_next_rq's
// two neighbours of the position in the sort list (the first request at or after
// it, or the lowest when none is, and the last one before it) decided by
// cfq_choose_req (v3.1): a one-way elevator except for backward seeks of at most
// cfq_back_max (16 MiB), which cost cfq_back_penalty (2) times a forward seek of the
// same length; when both would wrap, the one further behind the head goes first.
func (c *cfq) nextRq(cq *cfqQueue) *Request {
	l := cq.sorted
	pos := c.lastPosition
	i := sort.Search(len(l), func(i int) bool { return l[i].Sector >= pos })
	fwd := l[i%len(l)] // rbnext, or rb_first when nothing is at or after the head
	if i == 0 {
		return fwd // nothing behind the head
	}
	return cfqChooseReq(fwd, l[i-1], pos)
}

// CFQ's backward seek limits (cfq_back_max, cfq_back_penalty).
const (
	cfqBackMaxSectors = 16 * 1024 * 2 // 16 MiB
	cfqBackPenalty    = 2
)

// cfqChooseReq is cfq_choose_req (v3.1) for two requests of one queue (same sync
// class): the one closer to last, backward distances weighted.
func cfqChooseReq(r1, r2 *Request, last int64) *Request {
	if r1 == r2 {
		return r1
	}
	if (r1.Flags^r2.Flags)&FlagPrio != 0 {
		if r1.Flags&FlagPrio != 0 {
			return r1
		}
		return r2
	}
	dist := func(s int64) (int64, bool) {
		switch {
		case s >= last:
			return s - last, false
		case s+cfqBackMaxSectors >= last:
			return (last - s) * cfqBackPenalty, false
		}
		return 0, true // wrapped
	}
	s1, s2 := r1.Sector, r2.Sector
	d1, w1 := dist(s1)
	d2, w2 := dist(s2)
	switch {
	case !w1 && !w2:
		if d1 < d2 || (d1 == d2 && s1 >= s2) {
			return r1
		}
		return r2
	case w2 && !w1:
		return r1
	case w1 && !w2:
		return r2
	}
	if s1 <= s2 {
		return r1
	}
	return r2
}

// next is cfq_dispatch_requests: one request or nil.
func (c *cfq) next(now sim.Time) *Request {
	if c.busyQueues == 0 {
		return nil
	}
	cq := c.selectQueue(now)
	if cq == nil || len(cq.sorted) == 0 || !c.mayDispatch(cq, now) {
		return nil
	}
	var r *Request
	if !cq.fifoChecked {
		// cfq_check_fifo: once per slice
		cq.fifoChecked = true
		if h := cq.fifo.head; h != nil && now >= h.expire {
			r = h
		}
	}
	if r == nil {
		r = c.nextRq(cq)
	}
	c.remove(r)
	cq.dispatched++
	c.inFlight[b2i(cq.sync)]++
	c.lastPosition = r.EndSector()
	cq.sliceDispatch++
	cq.mustDispatch = false
	if c.busyQueues > 1 && !cq.sync && cq.sliceDispatch >= cfqAsyncMaxRq {
		cq.sliceEnd = now + cfqJiffy
		c.sliceExpired(false, now)
	}
	return r
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// remove is cfq_remove_request: r leaves its queue (dispatch).
func (c *cfq) remove(r *Request) {
	cq := r.cfqq
	cq.fifo.remove(r)
	cq.sortRemove(r)
	cq.queued--
	c.rqQueued--
	if r.Flags&FlagPrio != 0 {
		cq.prioPend--
	}
}

// completed is cfq_completed_request.
func (c *cfq) completed(r *Request, now sim.Time) {
	cq := r.cfqq
	if cq == nil {
		return
	}
	r.cfqq = nil
	cq.dispatched--
	c.inFlight[b2i(cq.sync)]--
	if rqSync(r.Op, r.Flags) {
		cq.ttime.lastEnd = now
		c.trees[cq.tree].ttime.lastEnd = now
		if r.Submit+cfqFifoExpireSync <= now {
			c.lastDelayedSync = now
		}
	}
	if c.active != cq {
		return
	}
	if cq.sliceNew {
		c.setPrioSlice(cq, now)
		cq.sliceNew = false
	}
	if c.sliceUsed(cq, now) {
		c.sliceExpired(true, now)
	} else if rqSync(r.Op, r.Flags) && len(cq.sorted) == 0 {
		c.armSliceTimer(now)
	}
}

// armSliceTimer is cfq_arm_slice_timer (no group idle).
func (c *cfq) armSliceTimer(now sim.Time) {
	cq := c.active
	if c.noIdle || !c.shouldIdle(cq) || cq.dispatched > 0 {
		return
	}
	if cq.ttime.valid() && cq.sliceEnd-now < cq.ttime.mean {
		return // the task thinks longer than the slice that is left
	}
	cq.waitRequest = true
	c.w.After(&c.idleTimer, cfqSliceIdle)
}

// idleSliceTimer is cfq_idle_slice_timer: the task did not come back in time.
func (c *cfq) idleSliceTimer() {
	now := c.w.Now()
	if cq := c.active; cq != nil {
		switch {
		case cq.mustDispatch:
			c.kick()
			return
		case c.sliceUsed(cq, now):
		case c.busyQueues == 0:
			return
		case len(cq.sorted) > 0:
			c.kick()
			return
		default:
			cq.deep = false
		}
	}
	c.sliceExpired(false, now)
	c.kick()
}

// kick runs the queue (cfq_schedule_dispatch).
func (c *cfq) kick() {
	q := c.q
	q.account()
	q.dispatch()
}
