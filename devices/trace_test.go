package devices

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

func TestTraceBlockEvents(t *testing.T) {
	w := sim.NewWorld(1000, 1)
	q := mustQueue(t, w, "simple")
	q.SetDevName("8:16")
	assert.Equal(t, "8:16", q.DevName())
	type ev struct{ comm, event, payload string }
	var got []ev
	q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
		c := "<irq>"
		if task != nil {
			c = task.Comm
		}
		got = append(got, ev{c, event, payload})
	}))
	task := w.NewTask("flush-8:16", 7, nil)
	s := q.NewSubmitter(task)
	o := &nopOwner{}
	require.False(t, q.Submit(s, Bio{Sector: 123456, Pages: 128, Op: Write, Owner: o}))
	require.False(t, q.Submit(s, Bio{Sector: 8, Pages: 2, Op: Write, Flags: FlagSync | FlagMeta, Owner: o}))
	require.False(t, q.Submit(s, Bio{Sector: 800, Pages: 1, Op: Read, Flags: FlagReadahead, Owner: o}))
	require.NoError(t, w.Run(sim.Second))
	assert.Equal(t, []ev{
		{"flush-8:16", "block_rq_issue", "8,16 W 0 () 123456 + 1024 [flush-8:16]"},
		{"flush-8:16", "block_rq_issue", "8,16 WSM 0 () 8 + 16 [flush-8:16]"},
		{"flush-8:16", "block_rq_issue", "8,16 RA 0 () 800 + 8 [flush-8:16]"},
		{"<irq>", "block_rq_complete", "8,16 W () 123456 + 1024 [0]"},
		{"<irq>", "block_rq_complete", "8,16 WSM () 8 + 16 [0]"},
		{"<irq>", "block_rq_complete", "8,16 RA () 800 + 8 [0]"},
	}, got)
	assert.Equal(t, int64(131), o.pages)
}

// TestNoAllocationsPerRequest: in steady state the queue and every model allocate
// nothing per request (requests are pooled, events reuse timers).
func TestNoAllocationsPerRequest(t *testing.T) {
	for _, spec := range []string{"simple", "wu2011-hdd", "wu2011-hdd,elevator=deadline", "kara2016-qd1", "kara2016-qd1,elevator=cfq",
		"x25e", "x25e,elevator=cfq", "nvme", "capped", "chinner2010-vm"} {
		t.Run(spec, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q := mustQueue(t, w, spec)
			a := newJob(q, w, 1, Write, 16, 64, false, 0, 1<<30)
			a.plug = true
			b := newJob(q, w, 2, Write, 1, 8, true, 1<<30, 1<<30)
			c := newJob(q, w, 3, Read, 2, 2, true, 1<<31, 1<<30)
			a.flags = FlagBackground
			measure(t, w, q, 0, 2*sim.Second, a, b, c)
			before := q.Stats()
			allocs := testing.AllocsPerRun(1, func() { require.NoError(t, w.Run(w.Now()+2*sim.Second)) })
			after := q.Stats()
			reqs := float64(after.IOs[Read] + after.IOs[Write] - before.IOs[Read] - before.IOs[Write])
			t.Logf("%.0f requests, %.0f allocations", reqs, allocs)
			require.Greater(t, reqs, 100.0)
			assert.Less(t, allocs/reqs, 0.01)
		})
	}
}

func TestIostatRates(t *testing.T) {
	a := Iostat{At: sim.Second}
	b := Iostat{At: 3 * sim.Second, IOs: [2]int64{100, 300}, Merges: [2]int64{0, 600}, Sectors: [2]int64{800, 2048 * 60},
		Ticks: [2]sim.Time{100 * sim.Millisecond, 3 * sim.Second}, ServiceTicks: [2]sim.Time{50 * sim.Millisecond, sim.Second},
		Busy: sim.Second, TimeInQueue: 3100 * sim.Millisecond, DeviceTimeInQueue: 1050 * sim.Millisecond}
	r := Rates(a, b, 0)
	assert.InDelta(t, 2, r.Seconds, 1e-9)
	assert.InDelta(t, 50, r.RPS, 1e-9)
	assert.InDelta(t, 150, r.WPS, 1e-9)
	assert.InDelta(t, 300, r.WMergeS, 1e-9)
	assert.InDelta(t, 800.0/2048/2, r.RMBps, 1e-9)
	assert.InDelta(t, 30, r.WMBps, 1e-9)
	assert.InDelta(t, (800+2048*60)/400.0, r.AvgRqSz, 1e-9)
	assert.InDelta(t, 3100.0/400, r.Await, 1e-9)
	assert.InDelta(t, 1, r.RAwait, 1e-9)
	assert.InDelta(t, 10, r.WAwait, 1e-9)
	assert.InDelta(t, 1.55, r.AvgQuSz, 1e-9)
	assert.InDelta(t, 50, r.Util, 1e-9)
	assert.InDelta(t, 1050.0/400, r.Svctm, 1e-9)
	assert.Equal(t, IostatRates{}, Rates(b, b, 0))
}

// TestTraceSleeprq: a submission that finds no free request in the legacy pool is
// get_request_wait's block_sleeprq (the bio's sector and size, the sleeper's comm),
// in the submitter's context and again at each failed retry; blk-mq tag waits have
// no such event.
func TestTraceSleeprq(t *testing.T) {
	for _, tc := range []struct {
		text         string
		pages, wants int64
	}{
		{"simple,qd=1,nr_requests=4", 4*128 + 1, 1},
		{"simple,qd=1,nr_requests=4", 4*128 + 129, 2}, // the retry gets one request, not two
		{"simple,qd=1,nr_requests=4,mq=on", 4*128 + 1, 0},
	} {
		t.Run(fmt.Sprintf("%s/%d", tc.text, tc.pages), func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q := mustQueue(t, w, tc.text)
			var sleeps []string
			q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
				if event == "block_sleeprq" {
					require.NotNil(t, task)
					sleeps = append(sleeps, task.Comm+" "+payload)
				}
			}))
			task := w.NewTask("flush-8:0", 7, nil)
			task.Resume = func() {}
			s := q.NewSubmitter(task)
			o := &nopOwner{}
			// 4 requests of 128 pages fill the pool, the rest waits
			blocked := q.Submit(s, Bio{Sector: 0, Pages: tc.pages, Op: Write, Owner: o})
			require.True(t, blocked)
			require.NoError(t, w.Run(sim.Second))
			require.Len(t, sleeps, int(tc.wants))
			if tc.wants > 0 {
				// the run's first page without a request: sector 4*128*8, the rest of the run
				assert.Equal(t, fmt.Sprintf("flush-8:0 8,0 W 4096 + %d [flush-8:0]", (tc.pages-4*128)*PageSectors), sleeps[0])
			}
			assert.Equal(t, tc.pages, o.pages)
		})
	}
}
