package workload

import (
	"math/bits"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Reader is a task reading a file that is not in the page cache, one synchronous
// read at a time (like `fio --rw=randread --iodepth=1` or a sequential `cat`):
// the reads blk-wbt watches. Reads go straight to the block queue.
type Reader struct {
	k      *kernel.Kernel
	q      *devices.Queue
	th     *kernel.Thread
	pages  int64 // pages per read
	random bool
	base   int64 // first sector of the file's region
	span   int64 // region length in pages
	next   int64 // next sequential page

	wq      sim.WaitQueue
	waiting bool
	alloc   kernel.Alloc // the read's page-cache pages (page-reclaim model)
	idx     int64        // the read in progress
	inAlloc bool
	issued  sim.Time
	lat     latHist
}

// latHist is a bounded latency histogram: 4 buckets per power of two of ns.
type latHist struct {
	n, sum, max int64
	b           [256]int64
}

func (h *latHist) add(ns int64) {
	h.n++
	h.sum += ns
	h.max = max(h.max, ns)
	h.b[bucketOf(ns)]++
}

func bucketOf(ns int64) int {
	if ns < 4 {
		return int(max(ns, 0))
	}
	l := 63 - bits.LeadingZeros64(uint64(ns))
	frac := int((ns >> (l - 2)) & 3)
	return min(l*4+frac, 255)
}

// bucketTop is the largest value in bucket i (an upper bound for percentiles).
func bucketTop(i int) int64 {
	if i < 4 {
		return int64(i)
	}
	l, frac := i/4, int64(i%4)
	return (4+frac+1)<<(l-2) - 1
}

func (h *latHist) quantile(q float64) int64 {
	want := int64(q * float64(h.n))
	var c int64
	for i, v := range h.b {
		c += v
		if c > want {
			return min(bucketTop(i), h.max)
		}
	}
	return h.max
}

// readerRegion is the sectors of one reader's file (4 GiB). Readers' files live at
// the device's end, far from the writers' files at its start: reader i's file is
// the i+1-th region from the end (inside the device; on a device without a
// capacity, from 1 TiB on).
const readerRegion = int64(8) << 21

// NewReader creates reader number i reading bs bytes per request from the first disk.
func NewReader(k *kernel.Kernel, i int, bs int64, random bool) *Reader {
	return NewReaderOn(k, k.BDI, i, bs, random)
}

// NewReaderOn creates reader number i of disk b.
func NewReaderOn(k *kernel.Kernel, b *kernel.BDI, i int, bs int64, random bool) *Reader {
	r := &Reader{k: k, q: b.Q, pages: max(bs/kernel.PageSize, 1), random: random,
		base: int64(1)<<31 + int64(i)*readerRegion, span: readerRegion / devices.PageSectors}
	if c := b.Q.Spec().CapacityBytes / devices.SectorSize &^ (devices.PageSectors - 1); c > 0 {
		// a device smaller than the readers' files: they shrink to it, and readers
		// beyond what it holds share the slots
		size := min(readerRegion, c)
		r.base = c - int64(i%int(c/size)+1)*size
		r.span = size / devices.PageSectors
	}
	r.pages = min(r.pages, max(r.span/2, 1))
	r.th = k.NewThreadOn(b, "reader")
	r.th.Task.Resume = r.resume
	return r
}

// Start makes the reader runnable at time at.
func (r *Reader) Start(at sim.Time) { r.th.Task.StartAt(at) }

// Thread is the reader's kernel thread.
func (r *Reader) Thread() *kernel.Thread { return r.th }

// EndIO completes the outstanding read.
func (r *Reader) EndIO(cookie uint64, index, pages int64, op devices.Op) {
	r.lat.add(int64(r.k.W.Now() - r.issued))
	r.waiting = false
	r.wq.WakeAll()
}

func (r *Reader) resume() {
	if r.waiting {
		r.th.Task.Wait(&r.wq)
		return
	}
	if !r.inAlloc {
		var idx int64
		if r.random {
			idx = r.k.W.Rand.Int64N(r.span-r.pages) / r.pages * r.pages
		} else {
			idx = r.next
			r.next = (r.next + r.pages) % (r.span - r.pages)
		}
		r.idx = idx
		r.issued = r.k.W.Now()
		if r.k.ReclaimOn() {
			// the read allocates its page-cache pages first (page_cache_alloc)
			r.alloc.StartAlloc(r.pages)
			r.inAlloc = true
		}
	}
	if r.inAlloc {
		if r.k.AllocStep(r.th, &r.alloc) {
			return
		}
		r.inAlloc = false
		r.k.PageCacheAdd(nil, 0, r.pages)
	}
	idx := r.idx
	r.waiting = true
	b := devices.Bio{Sector: r.base + idx*devices.PageSectors, Pages: r.pages, Op: devices.Read,
		Flags: devices.FlagSync, Owner: r, Index: idx}
	if r.q.Submit(r.th.Sub, b) {
		return // woken when the request is allocated; then waits for completion
	}
	r.th.Task.Wait(&r.wq)
}

// ReadStats summarises read latencies.
type ReadStats struct {
	Reads int64
	Mean  sim.Time
	P99   sim.Time
	Max   sim.Time
}

// Stats reports the reader's completed reads (P99 is a histogram upper bound
// within 25 %).
func (r *Reader) Stats() ReadStats {
	h := &r.lat
	if h.n == 0 {
		return ReadStats{}
	}
	return ReadStats{Reads: h.n, Mean: sim.Time(h.sum / h.n), P99: sim.Time(h.quantile(0.99)), Max: sim.Time(h.max)}
}

// Latency reports the completed reads' latency percentiles.
func (r *Reader) Latency() LatencyStats { return r.lat.stats() }
