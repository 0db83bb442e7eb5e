package kernel

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
)

// Page reclaim (mm/vmscan.c, mm/page_alloc.c): what makes a task that has nothing
// to do with a slow disk wait for it. A task allocating a page-cache page (a read,
// a write to a new page) below the min watermark reclaims pages itself; when the
// tail of the file LRU holds the slow disk's dirty and writeback pages it finds
// nothing to free and sleeps in the version's throttle (congestion_wait,
// wait_iff_congested, reclaim_throttle) until the slow disk completes writes.
//
// The model keeps what that needs and no more: one zone; the file LRU as one
// inactive list in insertion order (no active list: every page is used once) with
// PG_reclaim rotation; free pages with the min/low/high watermarks; kswapd; and
// direct reclaim in SWAP_CLUSTER_MAX batches over the priorities. Anonymous memory
// is a fixed amount that is never reclaimed (no swap-out) but counts as dirtyable
// where the kernel counted it. Reclaim never writes a page: the filesystems whose
// pages reach it here (ext4's delalloc pages) refuse ->writepage from reclaim
// (ext4_writepage redirties a page with delayed buffers), and since 3.2 direct
// reclaim does not call it at all.

// swDirtyableLRUAnon is 2.6.28-2.6.31 determine_dirtyable_memory: free pages plus
// global_lru_pages(), anonymous pages included with or without swap. Off:
// global_reclaimable_pages() (anonymous pages only with swap).
var swDirtyableLRUAnon = declare(Switch{Name: "dirtyable_lru_anon", Order: 400,
	Doc:    "2.6.28-2.6.31: dirtyable memory counts anonymous pages even without swap (global_lru_pages)",
	Models: "determine_dirtyable_memory, mm/page-writeback.c v2.6.30",
	Source: "v2.6.32 global_reclaimable_pages replaced global_lru_pages there"})

var pathDirtyableAnon = swDirtyableLRUAnon.path("dirtyable_memory.anon",
	"dirty-limit computations of the page-reclaim model on a machine with anonymous memory (whether it counts as dirtyable)", swDirtyableNoAnon)

// swDirtyableNoAnon is 3.14's global_dirtyable_memory (commit a1c3bfb2, "do not
// count anon pages as dirtyable memory"): free pages less totalreserve_pages,
// plus the file LRU.
var swDirtyableNoAnon = declare(Switch{Name: "dirtyable_no_anon", Order: 410,
	Doc:    "3.14+: dirtyable memory is free + file LRU - reserve, never anonymous pages",
	Models: "global_dirtyable_memory, mm/page-writeback.c v3.14 / v6.1",
	Source: "commit a1c3bfb2 (v3.14), \"do not count anon pages as dirtyable memory\""})

// swWatermarkScale is v4.6's __setup_per_zone_wmarks with
// watermark_scale_factor 10: low and high are min + max(min/4, 0.1 % of the
// zone) and twice that. Off: min + min/4 and min + min/2.
var swWatermarkScale = declare(Switch{Name: "watermark_scale", Order: 420,
	Doc:    "4.6+: zone watermarks spaced by watermark_scale_factor (0.1 % of memory) instead of min/4",
	Models: "__setup_per_zone_wmarks, mm/page_alloc.c v4.6",
	Source: "commit 795ae7a0 (v4.6), watermark_scale_factor"})

var pathZoneWatermarks = swWatermarkScale.path("zone_watermarks.setup",
	"zone watermark setups of the page-reclaim model (min + min/4 or watermark_scale_factor spacing)")

// swWaitIffCongested is 2.6.37-5.15 reclaim (commit 0e093d99): direct reclaim's
// nap in do_try_to_free_pages is wait_iff_congested(HZ/10), which sleeps only
// while a bdi is congested and the zone is marked ZONE_CONGESTED (every dirty
// page reclaim met sat on a congested queue). Off (and ReclaimThrottle off):
// 2.6.30's unconditional congestion_wait(WRITE, HZ/10) below priority
// DEF_PRIORITY-2.
var swWaitIffCongested = declare(Switch{Name: "wait_iff_congested", Order: 430,
	Doc:    "2.6.37-5.15: direct reclaim naps only while a bdi is congested and the zone is marked congested",
	Models: "wait_iff_congested, mm/backing-dev.c; do_try_to_free_pages, shrink_page_list, mm/vmscan.c v3.1",
	Source: "commit 0e093d99 (v2.6.37)"})

var pathReclaimPassEnd = swWaitIffCongested.path("vmscan.pass_end",
	"kswapd and direct-reclaim priority passes whose end decides the throttle (congestion_wait, wait_iff_congested or reclaim_throttle)", swReclaimThrottle)

// swReclaimThrottle is v5.16+ reclaim_throttle: kswapd sleeps up to HZ/10 when it
// meets PG_reclaim pages still under writeback (VMSCAN_THROTTLE_WRITEBACK,
// woken after SWAP_CLUSTER_MAX pages per sleeper complete), direct reclaim
// sleeps one jiffy on a congested lruvec or no progress, unless at most half of
// the reclaimable pages wait for writeback (skip_throttle_noprogress).
var swReclaimThrottle = declare(Switch{Name: "reclaim_throttle", Order: 440,
	Doc:    "5.16+: reclaim_throttle on writeback (kswapd, HZ/10) and congestion/no progress (direct, 1 jiffy)",
	Models: "reclaim_throttle, shrink_node, shrink_folio_list, mm/vmscan.c v6.1",
	Source: "Mel Gorman's reclaim throttling series (v5.16)"})

// Reclaim is the machine's memory beside the page cache. With Params.Reclaim nil
// the page cache never fills and nothing is reclaimed (the one-disk model).
type Reclaim struct {
	// AnonMB is memory held by applications (and the kernel) that reclaim never
	// frees in the model; the page cache starts as the rest, full of clean pages.
	AnonMB int64
	// Swap is a configured swap device (nr_swap_pages > 0): global_reclaimable_pages
	// (2.6.32-3.13) then counts anonymous pages as reclaimable, so dirtyable.
	Swap bool
}

// Reclaim constants (include/linux/swap.h, include/linux/mmzone.h).
const (
	swapClusterMax = 32 // SWAP_CLUSTER_MAX
	defPriority    = 12 // DEF_PRIORITY
	// reclaimPageCost is shrink_page_list's CPU time per page (isolate, trylock,
	// page_referenced on an unmapped page, the dirty/writeback tests,
	// remove_mapping): an estimate for a 2011 x86 core, about 0.3 µs.
	reclaimPageCost = 300 * sim.Nanosecond
	// reclaimBurst is how much scanning a reclaimer does as one CPU burst (the
	// model's granularity: 64 batches of SWAP_CLUSTER_MAX)
	reclaimBurst = 64 * swapClusterMax * reclaimPageCost
)

// lruExt is a run of pages added to the LRU together: pages [first, first+n) of
// in (nil: clean pages no writer owns, such as a reader's or the initial cache).
type lruExt struct {
	in       *Inode
	gen      uint32 // in.lruGen when added (a truncate makes older runs stale)
	first, n int64
}

// mm is the zone: free pages, watermarks, the file LRU and kswapd.
type mm struct {
	total, anon, free      int64
	wmMin, wmLow, wmHigh   int64
	file                   int64    // file pages on the LRU (NR_ACTIVE_FILE + NR_INACTIVE_FILE)
	active                 int64    // of them on the active list: clean, not scanned until deactivated
	lru                    []lruExt // inactive list: lru[lo] is the tail (oldest)
	lo                     int
	tail                   []lruExt // rotate_reclaimable_page: pages moved to the tail (last = scanned first)
	putback                []lruExt // a batch's kept pages (reused)
	swap                   bool
	kswapd                 *Thread
	kswapdWQ               sim.WaitQueue // kswapd_wait
	kswapdRunning          bool
	ks                     scanControl
	zoneCongested          bool // ZONE_CONGESTED (2.6.37-3.x)
	pgdatWriteback         bool // PGDAT_WRITEBACK (v4.8+)
	lruvecCongested        bool // LRUVEC_CONGESTED (v5.16+)
	nrWritebackThrottled   int64
	throttledWritten       int64         // NR_THROTTLED_WRITTEN since the first throttled
	reclaimWaitWB          sim.WaitQueue // pgdat->reclaim_wait[VMSCAN_THROTTLE_WRITEBACK]
	reclaimWaitOther       sim.WaitQueue // the CONGESTED and NOPROGRESS queues
	Stats                  ReclaimStats
	directStart, kswapdCPU sim.Time
}

// ReclaimStats count what reclaim did (pages; stalls are sleeps of reclaimers).
type ReclaimStats struct {
	KswapdScanned, KswapdReclaimed int64 // pgscan_kswapd, pgsteal_kswapd
	DirectScanned, DirectReclaimed int64 // pgscan_direct, pgsteal_direct
	DirectStalls                   int64 // allocstall: allocations that entered direct reclaim
	ThrottleSleeps                 int64 // congestion_wait / wait_iff_congested / reclaim_throttle sleeps of direct reclaimers
	ThrottleTime                   sim.Time
}

// initReclaim sets up the zone (free_area_init, init_per_zone_wmark_min,
// setup_per_zone_wmarks) with the page cache full of clean pages.
func (k *Kernel) initReclaim(r *Reclaim) {
	m := &mm{total: k.P.MemoryMB << (20 - PageShift), anon: r.AnonMB << (20 - PageShift), swap: r.Swap}
	// init_per_zone_wmark_min: min_free_kbytes = int_sqrt(lowmem_kbytes * 16),
	// clamped to [128, 65536] KB
	kb := m.total * (PageSize / 1024)
	minKB := min(max(int64(devices.IntSqrt(uint64(kb*16))), 128), 65536)
	m.wmMin = minKB / (PageSize / 1024)
	if k.on(swWatermarkScale) {
		// __setup_per_zone_wmarks (v4.6+): the gap is max(min/4, managed *
		// watermark_scale_factor (10) / 10000)
		gap := max(m.wmMin/4, m.total*10/10000)
		m.wmLow, m.wmHigh = m.wmMin+gap, m.wmMin+2*gap
	} else {
		m.wmLow, m.wmHigh = m.wmMin+m.wmMin/4, m.wmMin+m.wmMin/2
	}
	k.Fired(pathZoneWatermarks)
	m.free = m.wmHigh
	m.file = max(m.total-m.anon-m.free, 0)
	// a used desktop's cache: the working set on the active list, as large as the
	// inactive list (inactive_file_is_low keeps inactive >= active)
	m.active = m.file / 2
	if n := m.file - m.active; n > 0 {
		m.lru = append(m.lru, lruExt{first: 0, n: n})
	}
	m.ks.prio = defPriority
	k.mm = m
}

// startKswapd starts kswapd (kswapd_run).
func (k *Kernel) startKswapd() {
	m := k.mm
	m.kswapd = k.NewThreadOn(k.BDI, "kswapd0")
	m.kswapd.Task.Resume = k.kswapdResume
	m.kswapdRunning = true
	m.kswapd.Task.Start()
}

// ReclaimOn reports whether the page-reclaim model runs.
func (k *Kernel) ReclaimOn() bool { return k.mm != nil }

// ReclaimStats reports what reclaim did so far (zero without the model).
func (k *Kernel) ReclaimStats() ReclaimStats {
	if k.mm == nil {
		return ReclaimStats{}
	}
	return k.mm.Stats
}

// MemState reports free pages and the file LRU in pages (0, 0 without the model).
func (k *Kernel) MemState() (free, file int64) {
	if k.mm == nil {
		return 0, 0
	}
	return k.mm.free, k.mm.file
}

// dirtyableReclaim is the dirtyable memory of the page-reclaim model:
// determine_dirtyable_memory (2.6.30: free + global_lru_pages, anonymous pages
// included; 2.6.32-3.13: free + global_reclaimable_pages, anonymous pages only
// with swap) or global_dirtyable_memory (3.14+, commit a1c3bfb2 "do not count anon
// pages as dirtyable memory": free less totalreserve_pages, plus the file LRU).
func (k *Kernel) dirtyableReclaim() int64 {
	m := k.mm
	v := &k.P.Variants
	if m.anon > 0 {
		k.Fired(pathDirtyableAnon)
	}
	x := m.free + m.file
	switch {
	case v.On(swDirtyableNoAnon):
		x -= min(m.free, m.wmHigh)
	case v.On(swDirtyableLRUAnon) || m.swap:
		x += m.anon
	}
	return x + 1
}

// lruAdd is add_to_page_cache_lru for pages [first, first+n) of in (nil: clean
// pages nobody writes, a read's).
func (k *Kernel) lruAdd(in *Inode, first, n int64) {
	m := k.mm
	var gen uint32
	if in != nil {
		in.cached.Add(first, n)
		gen = in.lruGen
	}
	m.file += n
	if l := len(m.lru); l > m.lo {
		if e := &m.lru[l-1]; e.in == in && e.gen == gen && e.first+e.n == first {
			e.n += n
			return
		}
	}
	m.lru = append(m.lru, lruExt{in: in, gen: gen, first: first, n: n})
}

// TruncatePages is truncate_inode_pages for a clean file (an editor's O_TRUNC
// before it writes the file again): its cached pages go back to the free list.
func (k *Kernel) TruncatePages(in *Inode) {
	if k.mm == nil {
		return
	}
	n := in.cached.Count()
	in.cached.Clear()
	in.pgReclaim.Clear()
	in.lruGen++
	k.mm.file -= n
	k.mm.free += n
}

// rotateReclaimable is end_page_writeback's rotate_reclaimable_page (and 6.1's
// folio_rotate_reclaimable): pages reclaim marked PG_reclaim go to the LRU's tail
// once their writeback ends, so the next scan frees them.
func (k *Kernel) rotateReclaimable(in *Inode, index, pages int64) {
	m := k.mm
	for from := index; ; {
		r, ok := in.pgReclaim.Next(from)
		if !ok || r.Start >= index+pages {
			break
		}
		s, e := max(r.Start, index), min(r.End, index+pages)
		in.pgReclaim.Remove(s, e-s)
		m.tail = append(m.tail, lruExt{in: in, gen: in.lruGen, first: s, n: e - s})
		from = e
	}
	if m.nrWritebackThrottled > 0 {
		// __acct_reclaim_writeback (v5.16+): wake the writeback-throttled once
		// SWAP_CLUSTER_MAX pages per sleeper were written since the first slept
		m.throttledWritten += pages
		if m.throttledWritten > swapClusterMax*m.nrWritebackThrottled {
			m.reclaimWaitWB.WakeAll()
		}
	}
}

// scanControl is one reclaimer's scan_control across its priority passes.
type scanControl struct {
	prio                 int
	passScanned          int64 // pages taken in this priority pass
	reclaimed, scanned   int64 // sc->nr_reclaimed, sc->nr_scanned of the call
	passReclaimed        int64
	dirty, congested, wb int64 // this pass's nr_dirty, nr_congested, nr_writeback
	immediate, taken     int64 // nr_immediate, nr_taken
	throttled            int   // which throttle the sleeper is in (throttle*)
	sleptAt              sim.Time
}

const (
	throttleNone = iota
	throttleCongestion
	throttleWriteback
	throttleOther
)

// shrinkBatch is shrink_inactive_list → shrink_page_list on up to
// SWAP_CLUSTER_MAX pages from the tail of the inactive list (v3.1 / v6.1): clean
// pages are freed; dirty and writeback pages get PG_reclaim and go back to the
// head (6.1 activates them; both come back to the tail when their writeback ends).
// th is the reclaimer (kswapd or a task in direct reclaim). It returns the pages
// freed and taken.
func (k *Kernel) shrinkBatch(th *Thread, sc *scanControl, kswapd bool) (freed, taken int64) {
	m := k.mm
	v := &k.P.Variants
	// shrink_inactive_list isolates the batch first and puts the kept pages back
	// after shrink_page_list: nothing is seen twice in one batch
	putback := m.putback[:0]
	for taken < swapClusterMax {
		// the tail: the last rotated run, else the inactive list's oldest
		var e *lruExt
		fromTail := len(m.tail) > 0
		if fromTail {
			e = &m.tail[len(m.tail)-1]
		} else if m.lo < len(m.lru) {
			e = &m.lru[m.lo]
		} else {
			break
		}
		ext := *e
		if ext.in != nil && ext.gen != ext.in.lruGen {
			ext.n = 0 // truncated since: stale
		}
		// take pages from ext in runs of one state; putbacks may grow m.lru, so
		// the entry is written back by index below
		for ext.n > 0 && taken < swapClusterMax {
			in := ext.in
			want := min(ext.n, swapClusterMax-taken)
			if in == nil {
				ext.first += want
				ext.n -= want
				taken += want
				freed += want
				continue
			}
			p := ext.first
			cached, wb, dirty, marked, runEnd := pageStateRun(in, p, p+want)
			l := runEnd - p
			ext.first += l
			ext.n -= l
			if !cached {
				continue // freed through another entry
			}
			taken += l
			if !wb && !dirty {
				in.cached.Remove(p, l)
				freed += l
				continue
			}
			// folio_check_dirty_writeback / the PageWriteback and PageDirty cases
			if wb {
				sc.wb += l
				if marked && kswapd && m.pgdatWriteback {
					sc.immediate += l // Case 1: cycling faster than IO completes
				}
			}
			congested := false
			if v.On(swReclaimThrottle) {
				sc.dirty += l // 6.1 counts dirty || writeback
				congested = wb && marked
			} else if dirty && !wb {
				sc.dirty += l
				// pageout's may_write_to_queue: a congested queue refuses a direct
				// reclaimer that is not writing to it (kswapd has PF_SWAPWRITE)
				congested = !kswapd && in.bdi.Q.Congested(devices.Write) && th.mapping != in.bdi
			}
			if congested {
				sc.congested += l
			}
			in.pgReclaim.Add(p, l)
			putback = append(putback, lruExt{in: in, gen: in.lruGen, first: p, n: l})
		}
		if fromTail {
			if ext.n == 0 {
				m.tail = m.tail[:len(m.tail)-1]
			} else {
				m.tail[len(m.tail)-1] = ext
			}
		} else if ext.n == 0 {
			m.lru[m.lo] = lruExt{}
			m.lo++
		} else {
			m.lru[m.lo] = ext
		}
	}
	for _, e := range putback {
		k.lruPutback(e.in, e.first, e.n)
	}
	m.putback = putback[:0]
	if m.lo > 1024 && m.lo > len(m.lru)/2 {
		m.lru = append(m.lru[:0], m.lru[m.lo:]...)
		m.lo = 0
	}
	m.file -= freed
	m.free += freed
	sc.taken += taken
	sc.passScanned += taken
	sc.scanned += taken
	sc.reclaimed += freed
	sc.passReclaimed += freed
	th.Charge(sim.Time(taken) * reclaimPageCost)
	// shrink_page_list's zone flags: all dirty pages seen were refused by a
	// congested queue (3.1 ZONE_CONGESTED; 6.1 LRUVEC_CONGESTED, set by kswapd)
	if sc.dirty > 0 && sc.dirty == sc.congested {
		if v.On(swReclaimThrottle) {
			if kswapd {
				m.lruvecCongested = true
			}
		} else {
			m.zoneCongested = true
		}
	}
	if v.On(swReclaimThrottle) && kswapd && sc.wb > 0 && sc.wb == sc.taken {
		m.pgdatWriteback = true
	}
	return freed, taken
}

// lruPutback puts pages [p, p+n) reclaim kept back at the head of the inactive
// list (putback_lru_pages).
func (k *Kernel) lruPutback(in *Inode, p, n int64) {
	m := k.mm
	if l := len(m.lru); l > m.lo+1 {
		if e := &m.lru[l-1]; e.in == in && e.gen == in.lruGen && e.first+e.n == p {
			e.n += n
			return
		}
	}
	m.lru = append(m.lru, lruExt{in: in, gen: in.lruGen, first: p, n: n})
}

// pageStateRun reports the page state at p (in the page cache, under writeback,
// dirty, PG_reclaim) and where, before end, the first of them changes.
func pageStateRun(in *Inode, p, end int64) (cached, wb, dirty, marked bool, runEnd int64) {
	runEnd = end
	at := func(s *PageSet) bool {
		r, ok := s.Next(p)
		if !ok {
			return false
		}
		if r.Start > p {
			runEnd = min(runEnd, r.Start)
			return false
		}
		runEnd = min(runEnd, r.End)
		return true
	}
	cached, wb, dirty, marked = at(&in.cached), at(&in.Writeback), at(&in.Dirty), at(&in.pgReclaim)
	return cached, wb, dirty, marked, runEnd
}

// passTarget is shrink_zone's nr_to_scan at sc's priority: the inactive list >>
// priority, at least one batch.
func (m *mm) passTarget(sc *scanControl) int64 {
	return max((m.file-m.active)>>sc.prio, swapClusterMax)
}

// shrinkActive is shrink_zone's shrink_active_list when inactive_file_is_low
// (v3.2: the active list is larger than the inactive one): up to nr pages of the
// active list, not referenced again (the working set is read once in the model),
// go to the head of the inactive list.
func (k *Kernel) shrinkActive(nr int64) {
	m := k.mm
	inactive := m.file - m.active
	if m.active <= inactive {
		return
	}
	n := min(nr, m.active-inactive)
	m.active -= n
	if l := len(m.lru); l > m.lo+1 && m.lru[l-1].in == nil {
		m.lru[l-1].n += n
		return
	}
	m.lru = append(m.lru, lruExt{n: n})
}

func (sc *scanControl) newPass() {
	sc.passScanned, sc.passReclaimed = 0, 0
	sc.dirty, sc.congested, sc.wb, sc.immediate, sc.taken = 0, 0, 0, 0, 0
}

// anyCongested is nr_bdi_congested[BLK_RW_ASYNC] > 0.
func (k *Kernel) anyCongested() bool {
	for _, b := range k.bdis {
		if b.Q.Congested(devices.Write) {
			return true
		}
	}
	return false
}

// wakeupKswapd is wakeup_kswapd: the allocator fell below the low watermark.
func (k *Kernel) wakeupKswapd() {
	m := k.mm
	if !m.kswapdRunning && m.kswapdWQ.Len() > 0 {
		m.kswapdWQ.WakeAll()
	}
}

// kswapdResume is kswapd → balance_pgdat (v3.1; v6.1 with reclaim_throttle): reclaim
// until the zone is above its high watermark, raising the priority when a pass
// frees less than SWAP_CLUSTER_MAX pages, and napping when in trouble.
func (k *Kernel) kswapdResume() {
	m := k.mm
	th := m.kswapd
	sc := &m.ks
	v := &k.P.Variants
	if sc.throttled != throttleNone {
		if sc.throttled == throttleWriteback {
			m.nrWritebackThrottled--
			if m.nrWritebackThrottled == 0 {
				m.throttledWritten = 0
			}
		}
		sc.throttled = throttleNone
	}
	m.kswapdRunning = true
	for {
		if m.free >= m.wmHigh {
			// balanced: zone_clear_flag(ZONE_CONGESTED), clear_pgdat_congested
			m.zoneCongested, m.lruvecCongested, m.pgdatWriteback = false, false, false
			*sc = scanControl{prio: defPriority}
			m.kswapdRunning = false
			th.Task.Wait(&m.kswapdWQ)
			return
		}
		if sc.passScanned == 0 {
			k.shrinkActive(m.passTarget(sc))
		}
		freed, taken := k.shrinkBatch(th, sc, true)
		if taken == 0 && m.lo >= len(m.lru) && len(m.tail) == 0 {
			// nothing on the LRU to scan: wait for pages to be added
			m.kswapdRunning = false
			th.Task.WaitTimeout(&m.kswapdWQ, k.W.JiffiesToTime(max(k.W.HZ()/10, 1)))
			return
		}
		m.Stats.KswapdScanned += taken
		m.Stats.KswapdReclaimed += freed
		if sc.passScanned >= m.passTarget(sc) || taken == 0 {
			k.Fired(pathReclaimPassEnd)
			nap := sim.Time(0)
			if v.On(swReclaimThrottle) {
				if sc.immediate > 0 {
					// reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)
					nap = -1
				}
			} else if sc.prio < defPriority-2 && sc.scanned > 0 && m.free >= m.wmMin {
				// "kswapd is getting into trouble. Take a nap": congestion_wait(HZ/10),
				// skipped with a zone under its min watermark
				nap = k.W.JiffiesToTime(max(k.W.HZ()/10, 1))
			}
			if sc.passReclaimed >= swapClusterMax {
				sc.prio = defPriority
			} else if sc.prio > 0 {
				sc.prio--
			}
			sc.newPass()
			if nap != 0 {
				// the scan's CPU time stays charged: consumed after the nap
				if nap < 0 {
					k.reclaimThrottleWriteback(th, sc)
				} else {
					sc.throttled = throttleCongestion
					th.Task.WaitTimeout(&k.congestionWQ, nap)
				}
				return
			}
		}
		if th.Pending() >= reclaimBurst && th.YieldCPU() {
			return
		}
	}
}

// reclaimThrottleWriteback is reclaim_throttle(pgdat, VMSCAN_THROTTLE_WRITEBACK)
// (v5.16+): sleep up to HZ/10 until enough writeback completed.
func (k *Kernel) reclaimThrottleWriteback(th *Thread, sc *scanControl) {
	m := k.mm
	m.nrWritebackThrottled++
	if m.nrWritebackThrottled == 1 {
		m.throttledWritten = 0
	}
	sc.throttled = throttleWriteback
	th.Task.WaitTimeout(&m.reclaimWaitWB, k.W.JiffiesToTime(max(k.W.HZ()/10, 1)))
}

// Alloc is one task's page allocation in progress (__alloc_pages for its pages,
// with direct reclaim in do_try_to_free_pages when the zone is below its min
// watermark). Zero value: nothing pending.
type Alloc struct {
	need    int64
	inDR    bool
	sc      scanControl
	stalled bool
}

// StartAlloc sets up the allocation of n page-cache pages for a.Step.
func (a *Alloc) StartAlloc(n int64) { *a = Alloc{need: n} }

// AllocStep runs a's allocation for th; it reports true when th blocked (call
// again when it resumes) and false when the pages are allocated. Without the
// page-reclaim model it never blocks.
func (k *Kernel) AllocStep(th *Thread, a *Alloc) bool {
	m := k.mm
	if m == nil || a.need == 0 {
		a.need = 0
		return false
	}
	v := &k.P.Variants
	if a.sc.throttled != throttleNone {
		m.Stats.ThrottleTime += k.W.Now() - a.sc.sleptAt
		if a.sc.throttled == throttleWriteback {
			m.nrWritebackThrottled--
		}
		a.sc.throttled = throttleNone
	}
	for {
		// get_page_from_freelist at the low watermark, then (kswapd woken) at min
		if m.free-a.need < m.wmLow {
			k.wakeupKswapd()
		}
		if m.free-a.need >= m.wmMin {
			m.free -= a.need
			a.need = 0
			return false
		}
		if take := m.free - m.wmMin; take > 0 {
			m.free -= take
			a.need -= take
		}
		if !a.inDR {
			// __alloc_pages_direct_reclaim → try_to_free_pages
			a.inDR = true
			a.sc = scanControl{prio: defPriority}
			if !a.stalled {
				a.stalled = true
				m.Stats.DirectStalls++
			}
		}
		sc := &a.sc
		if sc.passScanned == 0 {
			k.shrinkActive(m.passTarget(sc))
		}
		freed, taken := k.shrinkBatch(th, sc, false)
		m.Stats.DirectScanned += taken
		m.Stats.DirectReclaimed += freed
		if sc.passScanned < m.passTarget(sc) && taken > 0 {
			if th.Pending() >= reclaimBurst && th.YieldCPU() {
				return true
			}
			continue
		}
		// end of a priority pass (shrink_zones returned)
		k.Fired(pathReclaimPassEnd)
		sleep, q := sim.Time(0), (*sim.WaitQueue)(nil)
		switch {
		case v.On(swReclaimThrottle):
			// shrink_node: a congested lruvec throttles direct reclaimers (1 jiffy)
			// unless skip_throttle_noprogress; so does a pass at priority 1 that
			// freed nothing (consider_reclaim_throttle, NOPROGRESS)
			if (m.lruvecCongested || (sc.prio <= 1 && sc.reclaimed == 0)) && !k.skipThrottleNoprogress() {
				sleep, q = k.W.JiffiesToTime(1), &m.reclaimWaitOther
			}
		case v.On(swWaitIffCongested):
			// do_try_to_free_pages: wait_iff_congested(zone, BLK_RW_ASYNC, HZ/10)
			// sleeps only while a bdi is congested and the zone is marked congested
			if sc.prio < defPriority-2 && sc.scanned > 0 && k.anyCongested() && m.zoneCongested {
				sleep, q = k.W.JiffiesToTime(max(k.W.HZ()/10, 1)), &k.congestionWQ
			}
		default:
			// do_try_to_free_pages (2.6.30): "Take a nap, wait for some writeback to
			// complete": congestion_wait(WRITE, HZ/10)
			if sc.prio < defPriority-2 && sc.scanned > 0 {
				sleep, q = k.W.JiffiesToTime(max(k.W.HZ()/10, 1)), &k.congestionWQ
			}
		}
		done := sc.reclaimed >= swapClusterMax
		if sc.prio > 0 {
			sc.prio--
		} else {
			done = true // all priorities: the allocator retries from the top
		}
		sc.newPass()
		if done {
			a.inDR = false
		}
		if done && sc.reclaimed == 0 {
			// no progress at any priority: the allocator's retry waits
			// (should_alloc_retry → wait_iff_congested / congestion_wait, HZ/50)
			sleep, q = k.W.JiffiesToTime(max(k.W.HZ()/50, 1)), &k.congestionWQ
		}
		if sleep > 0 && (!done || sc.reclaimed == 0) {
			m.Stats.ThrottleSleeps++
			sc.throttled, sc.sleptAt = throttleOther, k.W.Now()
			th.Task.WaitTimeout(q, sleep)
			return true
		}
		if th.YieldCPU() {
			return true
		}
	}
}

// skipThrottleNoprogress is skip_throttle_noprogress (v5.16+): no throttle while
// the pages waiting for writeback are at most half the reclaimable ones.
func (k *Kernel) skipThrottleNoprogress() bool {
	m := k.mm
	reclaimable := m.file
	if m.swap {
		reclaimable += m.anon
	}
	return 2*(k.G.NrFileDirty+k.G.NrWriteback) <= reclaimable
}

// PageCacheAdd allocates-and-inserts bookkeeping for pages a task's Alloc got:
// [first, first+n) of in (nil: a read's clean pages).
func (k *Kernel) PageCacheAdd(in *Inode, first, n int64) {
	if k.mm == nil || n <= 0 {
		return
	}
	k.lruAdd(in, first, n)
}
