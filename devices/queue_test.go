package devices

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
)

type recorder struct {
	pages int64
	calls int
}

func (r *recorder) EndIO(cookie uint64, index, pages int64, op Op) {
	r.pages += pages
	r.calls++
}

// issuedSizes installs a tracer that records the size in pages of every issued request.
func issuedSizes(q *Queue) *[]int64 {
	var sizes []int64
	q.SetTracer(trace.Func(trace.V32, func(task *sim.Task, event, payload string) {
		if event != "block_rq_issue" {
			return
		}
		var maj, min int
		var rw, comm string
		var sector, n int64
		_, err := fmt.Sscanf(payload, "%d,%d %s 0 () %d + %d %s", &maj, &min, &rw, &sector, &n, &comm)
		if err == nil {
			sizes = append(sizes, n/PageSectors)
		}
	}))
	return &sizes
}

// TestSimpleSequentialWrite submits 64 MiB as one-page bios from one task that blocks
// when the pool runs dry, and checks merging, blocking and throughput.
func TestSimpleSequentialWrite(t *testing.T) {
	w := sim.NewWorld(1000, 1)
	q := mustQueue(t, w, "simple,nr_requests=16,qd=4")
	spec := q.Spec()
	sizes := issuedSizes(q)
	rec := &recorder{}
	task := w.NewTask("writer", 1, nil)
	sub := q.NewSubmitter(task)
	const total = 64 << 20 / PageSize
	var next int64
	blocks := 0
	task.Resume = func() {
		for next < total {
			b := Bio{Sector: next * PageSectors, Pages: 1, Op: Write, Owner: rec, Index: next}
			next++
			if q.Submit(sub, b) {
				blocks++
				return
			}
		}
		task.Exit()
	}
	w.AfterEvent = func() { require.LessOrEqual(t, q.Inflight(), spec.QueueDepth) }
	task.Start()
	require.NoError(t, w.Run(10*sim.Second))
	assert.Equal(t, int64(total), rec.pages)
	assert.Greater(t, blocks, 0, "the submitter blocks when the pool is empty")
	for _, n := range *sizes {
		require.LessOrEqual(t, n, q.MaxPages())
	}
	st := q.Stats()
	// without a plug the first bios go out alone while the device has room; the rest merge
	assert.LessOrEqual(t, st.IOs[Write], int64(total/q.MaxPages())+int64(spec.QueueDepth))
	assert.GreaterOrEqual(t, st.IOs[Write], int64(total/q.MaxPages()))
	assert.Equal(t, int64(total*PageSectors), st.Sectors[Write])
	// about 128 requests x (0.2 ms + 512 KiB / 60 MiB/s)
	want := sim.Time(128) * (200*sim.Microsecond + sim.Time(int64(512<<10)*int64(sim.Second)/(60<<20)))
	assert.InEpsilon(t, float64(want), float64(st.DeviceBusy), 0.02)
	assert.Equal(t, 0, q.Queued())
}

// TestMergingNeverExceedsMaxSectors drives sequential writes and reads with and
// without plugs, in runs of various sizes, through several presets and checks every
// issued request.
func TestMergingNeverExceedsMaxSectors(t *testing.T) {
	tests := []struct {
		spec string
		bs   int64
		plug bool
		want int64 // max_sectors_kb in pages
	}{
		{"simple", 1, false, 128},
		{"simple", 1, true, 128},
		{"simple", 300, true, 128},
		{"wu2011-hdd", 7, true, 128},
		{"kara2016-qd1", 1, true, 320},
		{"nvme", 1, true, 320},
		{"nvme", 1000, false, 320},
		{"x25e,max_sectors_kb=64", 3, true, 16},
		{"capped,max_sectors_kb=256,nr_requests=256", 5, false, 64},
	}
	for _, tc := range tests {
		for _, op := range []Op{Write, Read} {
			t.Run(fmt.Sprintf("%s/bs=%d/plug=%v/%v", tc.spec, tc.bs, tc.plug, op), func(t *testing.T) {
				w := sim.NewWorld(1000, 1)
				q := mustQueue(t, w, tc.spec+",wbt=off")
				require.Equal(t, tc.want, q.MaxPages())
				sizes := issuedSizes(q)
				// enough outstanding to back up behind the device's queue depth
				depth := max(64, 4*tc.want/tc.bs+1, int64(q.Spec().QueueDepth)*3)
				j := newJob(q, w, 1, op, tc.bs, depth, false, 0, 1<<40)
				j.plug = tc.plug
				j.task.Start()
				require.NoError(t, w.Run(2*sim.Second))
				require.NotEmpty(t, *sizes)
				biggest := int64(0)
				for _, n := range *sizes {
					require.LessOrEqual(t, n, tc.want)
					biggest = max(biggest, n)
				}
				assert.Equal(t, tc.want, biggest, "merging fills requests up to max_sectors_kb")
			})
		}
	}
}

// TestPlugFlush checks the plug flush rules: 16 requests (v3.2), 32 requests or a
// 128 KiB last request (v6), and a flush when the task blocks.
func TestPlugFlush(t *testing.T) {
	tests := []struct {
		name     string
		spec     string
		bioPages int64
		wantPlug []int // plugged requests after each bio
	}{
		// 4 KiB bios at distinct places: every bio is a request; flush at the 17th
		{"v3.2 count", "simple,qd=1", 1, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 1, 2}},
		// v6: 32 requests, or a flush when the last plugged request is >= 128 KiB
		{"v6 count", "nvme,qd=1,nr_requests=1023", 1, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 1}},
		{"v6 bytes", "nvme,qd=1,nr_requests=1023", 32, []int{1, 1, 1}},
		{"v6 small", "nvme,qd=1,nr_requests=1023", 31, []int{1, 2, 3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			q, _ := manualQueue(t, w, tc.spec+",wbt=off")
			task := w.NewTask("dd", 1, nil)
			s := q.NewSubmitter(task)
			s.StartPlug()
			o := &nopOwner{}
			for i, want := range tc.wantPlug {
				// gaps between bios: no merging
				b := Bio{Sector: int64(i) * 1000 * PageSectors, Pages: tc.bioPages, Op: Write, Owner: o}
				require.False(t, q.Submit(s, b))
				require.Equal(t, want, s.PluggedRequests(), "after bio %d", i)
			}
			s.FinishPlug()
			assert.Equal(t, 0, s.PluggedRequests())
		})
	}

	t.Run("flush when blocking", func(t *testing.T) {
		w := sim.NewWorld(1000, 1)
		q, d := manualQueue(t, w, "simple,qd=1,nr_requests=8")
		task := w.NewTask("dd", 1, nil)
		task.Resume = func() {}
		s := q.NewSubmitter(task)
		s.StartPlug()
		o := &nopOwner{}
		blocked := false
		for i := 0; i < 9 && !blocked; i++ {
			blocked = q.Submit(s, Bio{Sector: int64(i) * 1000 * PageSectors, Pages: 1, Op: Write, Owner: o})
		}
		require.True(t, blocked, "the 9th request finds the pool empty")
		assert.Equal(t, 0, s.PluggedRequests(), "blocking flushed the plug")
		assert.Len(t, d.issued, 1)
		assert.Equal(t, 7, q.Pending())
		assert.Equal(t, sim.TaskWaiting, task.State())
		d.completeFirst()
		assert.False(t, s.Blocked(), "the freed request went to the waiter")
		require.NoError(t, w.Run(sim.Millisecond))
		assert.Equal(t, sim.TaskRunnable, task.State())
	})
}

// TestLegacyPoolCongestion fills the async pool of a v3.2 queue and checks the
// congestion marks (on at 113, off below 103), blocking at 128, and that sync writes
// and reads use the other pool.
func TestLegacyPoolCongestion(t *testing.T) {
	w := sim.NewWorld(1000, 1)
	q, d := manualQueue(t, w, "simple,qd=1")
	task := w.NewTask("flush-8:0", 1, nil)
	task.Resume = func() {}
	s := q.NewSubmitter(task)
	o := &nopOwner{}
	for i := 0; i < 128; i++ {
		require.Equal(t, i >= 113, q.Congested(Write), "after %d requests", i)
		require.False(t, q.Submit(s, Bio{Sector: int64(i) * 1000, Pages: 1, Op: Write, Owner: o}))
	}
	assert.True(t, q.Congested(Write))
	assert.False(t, q.Congested(Read))
	assert.Equal(t, int64(0), q.Room(s, Bio{Sector: 1 << 30, Pages: 1, Op: Write}))
	assert.Equal(t, 128*q.MaxPages(), q.Room(s, Bio{Sector: 1 << 30, Pages: 1, Op: Write, Flags: FlagSync}), "sync writes use the sync pool")
	assert.Equal(t, 128*q.MaxPages(), q.Room(s, Bio{Sector: 1 << 30, Pages: 1, Op: Read}))
	// merging still works with an empty pool
	assert.Equal(t, q.MaxPages()-1, q.Room(s, Bio{Sector: 127*1000 + PageSectors, Pages: 1, Op: Write}))

	s2 := q.NewSubmitter(w.NewTask("dd", 2, nil))
	s2.Task.Resume = func() {}
	require.True(t, q.Submit(s2, Bio{Sector: 1 << 30, Pages: 1, Op: Write, Owner: o}))
	assert.Equal(t, 1, q.Waiters())
	for i := 0; i < 27; i++ {
		d.completeFirst()
		// 128 allocated -1 +1 (the waiter), then down: congested until below 103
		alloc := q.Queued()
		require.Equal(t, alloc >= 103, q.Congested(Write), "with %d allocated", alloc)
	}
	assert.Equal(t, 0, q.Waiters())
	assert.False(t, q.Congested(Write))

	mq := mustQueue(t, w, "nvme")
	assert.False(t, mq.Congested(Write), "blk-mq never marks congestion")
}

// TestDeadlineElevator checks sector-order batches, read preference with
// writes_starved, and FIFO expiry.
func TestDeadlineElevator(t *testing.T) {
	w := sim.NewWorld(1000, 1)
	q, d := manualQueue(t, w, "wu2011-hdd,elevator=deadline,qd=1,fifo_batch=4")
	task := w.NewTask("dd", 1, nil)
	s := q.NewSubmitter(task)
	o := &nopOwner{}
	sub := func(sector int64, op Op) {
		require.False(t, q.Submit(s, Bio{Sector: sector, Pages: 1, Op: op, Owner: o}))
	}
	// first request goes to the idle device; the rest queue in the elevator
	sub(5000, Write)
	for _, sec := range []int64{9000, 1000, 7000, 3000, 8000, 2000} {
		sub(sec, Write)
	}
	sub(100000, Read)
	sub(50000, Read)
	var order []string
	for len(d.issued) > 0 {
		r := d.completeFirst()
		order = append(order, fmt.Sprintf("%v%d", r.Op, r.Sector))
	}
	// the write batch started at 5000 continues in sector order up to fifo_batch (4);
	// then reads are preferred (no next read: FIFO head first), twice (writes_starved
	// 2), then writes restart from their FIFO head (1000) in sector order
	assert.Equal(t, []string{"W5000", "W7000", "W8000", "W9000", "R100000", "R50000", "W1000", "W2000", "W3000"}, order)

	// expiry: at the start of a batch an expired FIFO head beats sector order
	for _, tc := range []struct {
		expire string
		want   []int64
	}{
		{"10", []int64{0, 8000, 16000, 4000}},  // 8000 and 16000 expired at 10 ms
		{"500", []int64{0, 4000, 8000, 16000}}, // nothing expired: sector order
	} {
		w2 := sim.NewWorld(1000, 1)
		q2, d2 := manualQueue(t, w2, "wu2011-hdd,elevator=deadline,qd=1,fifo_batch=1,read_expire_ms="+tc.expire)
		s2 := q2.NewSubmitter(w2.NewTask("r", 1, nil))
		for _, sec := range []int64{0, 8000, 16000} {
			require.False(t, q2.Submit(s2, Bio{Sector: sec, Pages: 1, Op: Read, Owner: o}))
		}
		require.NoError(t, w2.Run(20*sim.Millisecond))
		require.False(t, q2.Submit(s2, Bio{Sector: 4000, Pages: 1, Op: Read, Owner: o}))
		var got []int64
		for len(d2.issued) > 0 {
			got = append(got, d2.completeFirst().Sector)
		}
		assert.Equal(t, tc.want, got, "read_expire_ms=%s", tc.expire)
	}
}

// TestCapacityInvariant submits bios around the end of a 1 MiB device (and of one
// without a capacity) and checks CapacityErr names the first one outside it.
func TestCapacityInvariant(t *testing.T) {
	const capS = 1 << 20 / SectorSize // 2048 sectors
	const noBad = math.MinInt64
	for _, c := range []struct {
		name    string
		capB    int64   // Spec.CapacityBytes
		sectors []int64 // one-page bios starting at these sectors, in order
		bad     int64   // the first bio outside (noBad: none)
	}{
		{"inside, last page", 1 << 20, []int64{0, capS - PageSectors}, noBad},
		{"crosses the end", 1 << 20, []int64{0, capS - PageSectors + 1, capS}, capS - PageSectors + 1},
		{"past the end", 1 << 20, []int64{capS, 0}, capS},
		{"negative sector", 1 << 20, []int64{-PageSectors}, -PageSectors},
		{"no capacity: unbounded", 0, []int64{0, 1 << 40}, noBad},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := sim.NewWorld(1000, 1)
			spec, blk := mustParse(t, "simple")
			spec.CapacityBytes = c.capB
			q, err := New(w, spec, blk)
			require.NoError(t, err)
			rec := &recorder{}
			task := w.NewTask("writer", 1, nil)
			sub := q.NewSubmitter(task)
			task.Resume = func() {
				for i, s := range c.sectors {
					q.Submit(sub, Bio{Sector: s, Pages: 1, Op: Write, Owner: rec, Index: int64(i)})
				}
				task.Exit()
			}
			task.Start()
			require.NoError(t, w.Run(sim.Second))
			assert.Equal(t, int64(len(c.sectors)), rec.pages, "the queue still serves every bio")
			err = q.CapacityErr()
			if c.bad == noBad {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("sectors [%d, %d)", c.bad, c.bad+PageSectors))
			assert.Contains(t, err.Error(), fmt.Sprintf("capacity of %d sectors", capS))
			assert.Contains(t, err.Error(), "device 8:0 (simple)")
		})
	}
}
