package devices

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

// issueLog records every block_rq_issue as "time rwbs sector".
type issueLog struct {
	at   []sim.Time
	sync []bool
	op   []Op
}

func logIssues(w *sim.World, q *Queue) *issueLog {
	l := &issueLog{}
	q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
		if event != "block_rq_issue" {
			return
		}
		f := strings.Fields(payload)
		l.at = append(l.at, w.Now())
		l.sync = append(l.sync, f[1][0] == 'R' || strings.Contains(f[1], "S"))
		l.op = append(l.op, Op(map[bool]uint8{true: 0, false: 1}[f[1][0] == 'R']))
	}))
	return l
}

// runs splits the issue log into maximal runs of sync or async requests and returns
// how long (first to last issue) each run of sync == want lasted.
func (l *issueLog) runs(want bool) []sim.Time {
	var out []sim.Time
	for i := 0; i < len(l.sync); {
		j := i
		for j < len(l.sync) && l.sync[j] == l.sync[i] {
			j++
		}
		if l.sync[i] == want {
			out = append(out, l.at[j-1]-l.at[i])
		}
		i = j
	}
	return out
}

// burstJob is kjournald-like: every period it submits pages of WRITE_SYNC data
// (sync, no idle flag) under a plug, sequentially in its own region.
type burstJob struct {
	q      *Queue
	w      *sim.World
	s      *Submitter
	pages  int64
	period sim.Time
	next   int64
	done   int64
	timer  sim.Timer
	starts []sim.Time
	ends   []sim.Time
	out    int64
}

func (b *burstJob) EndIO(cookie uint64, index, pages int64, op Op) {
	b.done += pages
	b.out -= pages
	if b.out == 0 {
		b.ends = append(b.ends, b.w.Now())
	}
}

func (b *burstJob) fire() {
	b.starts = append(b.starts, b.w.Now())
	b.s.StartPlug()
	for i := int64(0); i < b.pages; i += 32 {
		b.out += 32
		b.q.Submit(b.s, Bio{Sector: 1<<31 + b.next*PageSectors, Pages: 32, Op: Write, Flags: FlagSync, Owner: b, Index: b.next})
		b.next += 32
	}
	b.s.FinishPlug()
	b.w.After(&b.timer, b.period)
}

// TestCFQSlices: sync and async work alternate on the disk. Bursts of WRITE_SYNC
// data (kjournald's commits) preempt the flusher-like async stream, which gets the
// disk back between them; two sync readers with idle windows take turns in slices
// of about slice_sync (100 ms).
func TestCFQSlices(t *testing.T) {
	for _, spec := range []string{"wu2011-hdd,elevator=cfq", "kara2016-qd1,elevator=cfq,wbt=off"} {
		t.Run("bursts/"+spec, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q := mustQueue(t, w, spec)
			log := logIssues(w, q)
			async := newJob(q, w, 1, Write, 32, 128, false, 0, 1<<30)
			async.plug, async.flags = true, FlagBackground
			b := &burstJob{q: q, w: w, s: q.NewSubmitter(w.NewTask("kjournald", 2, nil)), pages: 2048, period: 500 * sim.Millisecond}
			b.timer.Fn = b.fire
			w.After(&b.timer, 100*sim.Millisecond)
			measure(t, w, q, 0, 10*sim.Second, async)
			total := float64(async.done + b.done)
			runs := log.runs(true)
			t.Logf("async %.0f%% sync %.0f%% of %.0f MiB, %d bursts, %d sync runs", 100*float64(async.done)/total, 100*float64(b.done)/total, total*PageSize/(1<<20), len(b.starts), len(runs))
			require.NotEmpty(t, b.ends)
			assert.GreaterOrEqual(t, len(runs), len(b.starts)-1, "every burst runs apart from the async stream")
			assert.GreaterOrEqual(t, float64(async.done)/total, 0.3, "the async stream runs between bursts")
			for i, e := range b.ends {
				assert.Less(t, e-b.starts[i], 400*sim.Millisecond, "burst %d preempts the async stream", i)
			}
		})
	}
	t.Run("two sync readers", func(t *testing.T) {
		w := sim.NewWorld(1000, 1)
		q := mustQueue(t, w, "wu2011-hdd,elevator=cfq")
		var who []int
		var at []sim.Time
		q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
			f := strings.Fields(payload)
			if event == "block_rq_issue" {
				reader := 1
				if sec, _ := strconv.ParseInt(f[4], 10, 64); sec >= 1<<27 {
					reader = 2
				}
				who, at = append(who, reader), append(at, w.Now())
			}
		}))
		a := newJob(q, w, 1, Read, 32, 1, false, 0, 1<<30)
		b := newJob(q, w, 2, Read, 32, 1, false, 1<<27, 1<<30) // 64 GiB into the partition
		measure(t, w, q, 0, 5*sim.Second, a, b)
		var slices []sim.Time
		for i := 0; i < len(who); {
			j := i
			for j < len(who) && who[j] == who[i] {
				j++
			}
			if j < len(who) {
				slices = append(slices, at[j]-at[i])
			}
			i = j
		}
		t.Logf("a %d b %d pages, %d slices", a.done, b.done, len(slices))
		require.Greater(t, len(slices), 10)
		for _, d := range slices[1:] {
			assert.InDelta(t, float64(cfqSliceSync), float64(d), float64(30*sim.Millisecond), "a slice is about slice_sync")
		}
		// fair in disk time: reader a streams in the outer zone (60 vs 52 MB/s)
		assert.InEpsilon(t, float64(a.done), float64(b.done), 0.3, "fair shares")
	})
}

// TestCFQIdleWindow: when the active sync queue empties, CFQ keeps the disk idle
// for slice_idle (8 ms) waiting for the task's next request, ahead of queued async
// writes; not on a non-rotational device with a queue (nonrot && hw_tag).
func TestCFQIdleWindow(t *testing.T) {
	tests := []struct {
		name      string
		extra     string
		think     sim.Time // the reader's next request this long after its completion (0 = none)
		wantOp    Op       // first request issued after the read completed
		wantAfter sim.Time // ... this long after the completion
	}{
		{"reader returns within the window", "qd=1", 2 * sim.Millisecond, Read, 2 * sim.Millisecond},
		{"reader returns too late", "qd=1", 20 * sim.Millisecond, Write, cfqSliceIdle},
		{"reader never returns", "qd=1", 0, Write, cfqSliceIdle},
		{"ssd with NCQ does not idle", "rotational=off,qd=2", 2 * sim.Millisecond, Write, 0},
		{"ssd without NCQ idles", "rotational=off,qd=1", 2 * sim.Millisecond, Read, 2 * sim.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q, d := manualQueue(t, w, "wu2011-hdd,elevator=cfq,"+tc.extra)
			rs := q.NewSubmitter(w.NewTask("reader", 1, nil))
			ws := q.NewSubmitter(w.NewTask("flush-8:0", 2, nil))
			o := &nopOwner{}
			require.False(t, q.Submit(rs, Bio{Sector: 0, Pages: 1, Op: Read, Owner: o}))
			require.Len(t, d.issued, 1)
			// a second read keeps the NCQ case from dispatching the write early
			require.False(t, q.Submit(ws, Bio{Sector: 1 << 24, Pages: 1, Op: Write, Owner: o}))
			for _, r := range d.issued {
				require.Equal(t, Read, r.Op, "the write waits behind the active sync queue")
			}
			require.NoError(t, w.Run(sim.Millisecond))
			done := w.Now()
			d.completeFirst()
			if tc.think > 0 {
				var rt sim.Timer
				rt.Fn = func() { q.Submit(rs, Bio{Sector: 8, Pages: 1, Op: Read, Owner: o}) }
				w.After(&rt, tc.think)
			}
			require.NoError(t, w.Run(done+50*sim.Millisecond))
			require.NotEmpty(t, d.issued)
			first := d.issued[0]
			assert.Equal(t, tc.wantOp, first.Op)
			assert.Equal(t, done+tc.wantAfter, first.Dispatch)
		})
	}
}

// TestCFQFifoExpiry: at the start of a slice an expired FIFO head (sync: 125 ms)
// goes before the queue's sector order.
func TestCFQFifoExpiry(t *testing.T) {
	tests := []struct {
		completeAt sim.Time // the other task's read completes; its idle window ends 8 ms later
		want       []int64
	}{
		{50 * sim.Millisecond, []int64{10000, 90000}},  // nothing expired: C-SCAN from 500008 wraps to 10000
		{200 * sim.Millisecond, []int64{90000, 10000}}, // 90000 expired at 125 ms
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.completeAt), func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q, d := manualQueue(t, w, "wu2011-hdd,elevator=cfq,qd=1")
			o := &nopOwner{}
			r1 := q.NewSubmitter(w.NewTask("r1", 1, nil))
			r2 := q.NewSubmitter(w.NewTask("r2", 2, nil))
			require.False(t, q.Submit(r2, Bio{Sector: 500000, Pages: 1, Op: Read, Owner: o}))
			require.False(t, q.Submit(r1, Bio{Sector: 90000, Pages: 1, Op: Read, Owner: o}))
			require.False(t, q.Submit(r1, Bio{Sector: 10000, Pages: 1, Op: Read, Owner: o}))
			require.NoError(t, w.Run(tc.completeAt))
			d.completeFirst()
			var got []int64
			for range 2 {
				require.NoError(t, w.Run(w.Now()+20*sim.Millisecond))
				require.Len(t, d.issued, 1)
				got = append(got, d.completeFirst().Sector)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestCFQSyncNotStarved: a task writing synchronously one request at a time keeps
// getting the disk against a deep sequential async stream; deadline sorts its far
// away writes behind the async stream until write_expire (5 s).
func TestCFQSyncNotStarved(t *testing.T) {
	run := func(spec string) (syncPages, asyncPages int64) {
		w := sim.NewWorld(1000, 1)
		q := mustQueue(t, w, spec)
		async := newJob(q, w, 1, Write, 32, 256, false, 0, 1<<30)
		async.plug, async.flags = true, FlagBackground
		syncW := newJob(q, w, 2, Write, 1, 1, true, 1<<31, 1<<28)
		syncW.flags = FlagSync
		measure(t, w, q, 0, 10*sim.Second, async, syncW)
		return syncW.done, async.done
	}
	for _, spec := range []string{"wu2011-hdd", "kara2016-qd1,wbt=off", "x25e"} {
		t.Run(spec, func(t *testing.T) {
			cs, ca := run(spec + ",elevator=cfq")
			ds, da := run(spec + ",elevator=deadline")
			t.Logf("cfq: sync %d async %d pages; deadline: sync %d async %d", cs, ca, ds, da)
			assert.Greater(t, cs, 3*ds+100, "cfq serves the sync writer")
			assert.Greater(t, ca, int64(0), "and the async stream")
		})
	}
}

// TestCFQChooseReq: cfq_choose_req's one-way elevator with short, penalised back
// seeks (16 MiB at twice the cost), as in v3.1.
func TestCFQChooseReq(t *testing.T) {
	rq := func(s int64) *Request { return &Request{Sector: s} }
	const last = 1 << 30
	tests := []struct {
		name   string
		r1, r2 int64
		want   int64
	}{
		{"both ahead: nearer", last + 100, last + 50, last + 50},
		{"back seek at twice the cost loses to a nearer forward one", last + 150, last - 100, last + 150},
		{"back seek at twice the cost wins over a far forward one", last + 300, last - 100, last - 100},
		{"beyond 16 MiB back wraps: forward wins", last + 1<<20, last - cfqBackMaxSectors - 1, last + 1<<20},
		{"both wrapped: further behind first", last - cfqBackMaxSectors - 10, last - cfqBackMaxSectors - 99, last - cfqBackMaxSectors - 99},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, cfqChooseReq(rq(tc.r1), rq(tc.r2), last).Sector)
		})
	}
}
