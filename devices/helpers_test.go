package devices

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

// fioJob is a closed-loop IO generator like fio: it keeps depth bios of bs pages
// outstanding, sequential from start or uniformly random (page aligned) within
// [start, start+span), and counts completed pages.
type fioJob struct {
	q        *Queue
	w        *sim.World
	s        *Submitter
	task     *sim.Task
	op       Op
	flags    Flags
	bs       int64 // pages per bio
	depth    int64
	random   bool
	start    int64 // sector
	span     int64 // sectors
	next     int64
	chunk    int64 // sequential: > 0 moves to the next of streams regions (span / streams apart) every chunk sectors
	streams  int64
	out      int64 // pages outstanding
	done     int64 // pages completed
	stopAt   sim.Time
	plug     bool
	cookie   uint64
	bios     int64
	blocking int
}

func (j *fioJob) EndIO(cookie uint64, index, pages int64, op Op) {
	j.out -= pages
	j.done += pages
	if !j.s.Blocked() {
		j.fill()
	}
}

func (j *fioJob) fill() {
	if j.stopAt > 0 && j.w.Now() >= j.stopAt {
		return
	}
	if j.plug {
		j.s.StartPlug()
	}
	for j.out+j.bs <= j.depth*j.bs {
		var sector int64
		if j.random {
			sector = j.start + j.w.Rand.Int64N(j.span/(j.bs*PageSectors))*j.bs*PageSectors
		} else if j.chunk > 0 {
			b, region := j.next/j.chunk, j.span/j.streams
			sector = j.start + (b%j.streams)*region + ((b/j.streams)*j.chunk+j.next%j.chunk)%region
			j.next += j.bs * PageSectors
		} else {
			sector = j.start + j.next%j.span
			j.next += j.bs * PageSectors
		}
		b := Bio{Sector: sector, Pages: j.bs, Op: j.op, Flags: j.flags, Owner: j, Cookie: j.cookie, Index: sector / PageSectors}
		j.out += j.bs
		j.bios++
		if j.q.Submit(j.s, b) {
			j.blocking++
			return
		}
	}
	if j.plug {
		j.s.FinishPlug()
	}
}

// newJob makes a job with its own task.
func newJob(q *Queue, w *sim.World, pid int, op Op, bsPages, depth int64, random bool, start, span int64) *fioJob {
	j := &fioJob{q: q, w: w, op: op, bs: bsPages, depth: depth, random: random, start: start, span: span, cookie: uint64(pid)}
	j.task = w.NewTask("fio", pid, nil)
	j.s = q.NewSubmitter(j.task)
	j.task.Resume = j.fill
	return j
}

func mustQueue(t testing.TB, w *sim.World, text string) *Queue {
	t.Helper()
	spec, blk := mustParse(t, text)
	q, err := New(w, spec, blk)
	require.NoError(t, err, text)
	return q
}

// mustParse parses a --device text into the spec and the block layer of the
// kernel the device's tests assume (testBlock), with the text's block keys.
func mustParse(t testing.TB, text string) (Spec, Block) {
	t.Helper()
	spec, o, err := ParseSpec(text)
	require.NoError(t, err, text)
	blk, err := o.Apply(testBlock(spec))
	require.NoError(t, err, text)
	return spec, blk
}

// testBlock is the block layer the tests run a preset behind (the kernel
// package, which decides it for real runs, imports this one): the 6.1 kernel's
// for the modern devices (nvme, capped), the 4.6+wbt draft for the Kara 2016
// disk, v3.2's for the rest.
func testBlock(s Spec) Block {
	switch s.Name {
	case "nvme", "capped":
		b := MQBlock(s)
		b.WBT, b.WBTV6, b.WBTQD1 = true, true, true
		return b
	case "kara2016-qd1":
		b := LegacyBlock(s, 1280)
		b.WBT, b.WBTDraft, b.WBTDepth = true, true, 64
		return b
	}
	return LegacyBlock(s, 512)
}

// measure runs jobs for warm then for dur and returns the iostat rates of the second part.
func measure(t testing.TB, w *sim.World, q *Queue, warm, dur sim.Time, jobs ...*fioJob) IostatRates {
	t.Helper()
	for _, j := range jobs {
		j.task.Start()
	}
	require.NoError(t, w.Run(w.Now()+warm))
	a := q.Stats()
	require.NoError(t, w.Run(w.Now()+dur))
	b := q.Stats()
	return Rates(a, b, 0)
}

// manualDev completes requests only when the test says so.
type manualDev struct {
	q      *Queue
	qd     int
	issued []*Request
}

func (d *manualDev) attach(q *Queue)  { d.q = q }
func (d *manualDev) QueueDepth() int  { return d.qd }
func (d *manualDev) Issue(r *Request) { d.issued = append(d.issued, r) }

// completeFirst completes the oldest issued request.
func (d *manualDev) completeFirst() *Request {
	r := d.issued[0]
	d.issued = d.issued[1:]
	cp := *r
	d.q.Complete(r)
	return &cp
}

func manualQueue(t testing.TB, w *sim.World, text string) (*Queue, *manualDev) {
	t.Helper()
	spec, blk := mustParse(t, text)
	d := &manualDev{qd: spec.QueueDepth}
	return NewQueue(w, spec, blk, d), d
}

type nopOwner struct{ pages int64 }

func (o *nopOwner) EndIO(cookie uint64, index, pages int64, op Op) { o.pages += pages }
