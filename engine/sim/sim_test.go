package sim

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimersFireInTimeOrderWithFIFOTies(t *testing.T) {
	w := NewWorld(1000, 1)
	var got []string
	mk := func(name string) *Timer {
		tm := &Timer{}
		tm.Fn = func() { got = append(got, name) }
		return tm
	}
	a, b, c, d := mk("a"), mk("b"), mk("c"), mk("d")
	w.At(a, 30)
	w.At(b, 10)
	w.At(c, 10)
	w.At(d, 20)
	w.At(a, 10) // moved: now ties with b and c, queued after them
	require.NoError(t, w.Run(100))
	assert.Equal(t, []string{"b", "c", "a", "d"}, got)
	assert.Equal(t, Time(100), w.Now())
	assert.Equal(t, uint64(4), w.Events())
}

func TestCancelAndReschedule(t *testing.T) {
	w := NewWorld(1000, 1)
	n := 0
	tm := &Timer{Fn: func() { n++ }}
	others := make([]*Timer, 50)
	for i := range others {
		others[i] = &Timer{Fn: func() {}}
		w.At(others[i], Time(i*7%50))
	}
	w.At(tm, 5)
	assert.True(t, tm.Pending())
	w.Cancel(tm)
	assert.False(t, tm.Pending())
	w.Cancel(others[10])
	w.At(tm, 60)
	require.NoError(t, w.Run(59))
	assert.Equal(t, 0, n)
	require.NoError(t, w.Run(61))
	assert.Equal(t, 1, n)
	assert.Equal(t, uint64(50), w.Events())
}

func TestHeapOrderUnderRandomOperations(t *testing.T) {
	w := NewWorld(1000, 7)
	var last Time = -1
	timers := make([]*Timer, 200)
	for i := range timers {
		timers[i] = &Timer{}
		timers[i].Fn = func() {
			require.GreaterOrEqual(t, w.Now(), last)
			last = w.Now()
		}
	}
	for i := 0; i < 5000; i++ {
		tm := timers[w.Rand.IntN(len(timers))]
		if w.Rand.IntN(4) == 0 {
			w.Cancel(tm)
		} else {
			w.At(tm, w.Now()+Time(w.Rand.IntN(1000)))
		}
		if i%10 == 0 {
			w.Step()
		}
	}
	require.NoError(t, w.Run(1<<40))
}

func TestJiffies(t *testing.T) {
	tests := []struct {
		hz      int
		now     Time
		jiffies int64
		ms100   int64
	}{
		{1000, 1500 * Millisecond, 1500, 100},
		{250, 1500 * Millisecond, 375, 25},
		{100, 1234 * Millisecond, 123, 10},
		{300, Second, 300, 30},
		{1024, Second, 1024, 103},
	}
	for _, tc := range tests {
		w := NewWorld(tc.hz, 1)
		require.NoError(t, w.Run(tc.now))
		assert.Equal(t, tc.jiffies, w.Jiffies(), "hz=%d", tc.hz)
		assert.Equal(t, tc.ms100, w.MsecsToJiffies(100), "hz=%d", tc.hz)
		assert.Equal(t, Second, w.JiffiesToTime(int64(tc.hz)))
		// j * Second / HZ (a multiplication when HZ divides Second), up to a day
		// of jiffies either way
		day := 86400 * int64(tc.hz)
		for _, j := range []int64{0, 1, -1, 7, int64(tc.hz) - 1, 123457, day - 1, day, -day} {
			assert.Equal(t, Time(j*int64(Second)/int64(tc.hz)), w.JiffiesToTime(j), "hz=%d j=%d", tc.hz, j)
		}
	}
}

func TestCPUsQueueWhenBusy(t *testing.T) {
	w := NewWorld(1000, 1)
	cpus := w.NewCPUs(2)
	done := map[string]Time{}
	var tasks []*Task
	for i, name := range []string{"a", "b", "c"} {
		tk := w.NewTask(name, i+1, cpus)
		step := 0
		tk.Resume = func() {
			if step == 0 {
				step++
				tk.Compute(10 * Millisecond)
				return
			}
			done[tk.Comm] = w.Now()
			tk.Exit()
		}
		tasks = append(tasks, tk)
		tk.Start()
	}
	require.NoError(t, w.Run(Second))
	assert.Equal(t, 10*Millisecond, done["a"])
	assert.Equal(t, 10*Millisecond, done["b"])
	assert.Equal(t, 20*Millisecond, done["c"], "third task waits for a CPU")
	for _, tk := range tasks {
		assert.Equal(t, 10*Millisecond, tk.CPUTime())
		assert.Equal(t, TaskExited, tk.State())
	}
	assert.Equal(t, 30*Millisecond, cpus.Busy())
}

func TestWaitQueueAndInterruptibleSleep(t *testing.T) {
	w := NewWorld(1000, 1)
	var q WaitQueue
	woke := map[string]Time{}
	mk := func(name string, how func(tk *Task)) *Task {
		tk := w.NewTask(name, 1, nil)
		first := true
		tk.Resume = func() {
			if first {
				first = false
				how(tk)
				return
			}
			woke[name] = w.Now()
		}
		tk.Start()
		return tk
	}
	mk("waiter", func(tk *Task) { tk.Wait(&q) })
	sleeper := mk("sleeper", func(tk *Task) { tk.Sleep(time5s) })
	isleeper := mk("isleeper", func(tk *Task) { tk.SleepInterruptible(time5s) })
	waker := &Timer{Fn: func() {
		q.WakeAll()
		assert.False(t, sleeper.Wake(), "uninterruptible sleep is not woken")
		assert.True(t, isleeper.Wake())
	}}
	w.At(waker, Second)
	require.NoError(t, w.Run(10*Second))
	assert.Equal(t, Second, woke["waiter"])
	assert.Equal(t, time5s, woke["sleeper"])
	assert.Equal(t, Second, woke["isleeper"])
	assert.Equal(t, 0, q.Len())
}

const time5s = 5 * Second

func TestCancelRun(t *testing.T) {
	w := NewWorld(1000, 1)
	tm := &Timer{}
	tm.Fn = func() {
		if w.Now() >= 50*Millisecond {
			w.CancelRun()
		}
		w.After(tm, Millisecond)
	}
	w.At(tm, 0)
	err := w.Run(Second)
	require.ErrorIs(t, err, ErrCancelled)
	assert.Equal(t, 50*Millisecond, w.Now())
}

func BenchmarkEventLoop(b *testing.B) {
	w := NewWorld(1000, 1)
	timers := make([]*Timer, 1000)
	for i := range timers {
		tm := &Timer{}
		tm.Fn = func() { w.After(tm, Time(1+w.Rand.IntN(1000))) }
		timers[i] = tm
		w.At(tm, Time(i))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Step()
	}
}

// refQueue is the original binary heap keyed by (when, seq): the reference order
// the World's heap + same-time FIFO must reproduce exactly.
type refQueue struct {
	now  Time
	seq  uint64
	heap []*refTimer
}

type refTimer struct {
	id   int
	when Time
	seq  uint64
	idx  int
}

func (q *refQueue) less(i, j int) bool {
	a, b := q.heap[i], q.heap[j]
	return a.when < b.when || (a.when == b.when && a.seq < b.seq)
}

func (q *refQueue) swap(i, j int) {
	q.heap[i], q.heap[j] = q.heap[j], q.heap[i]
	q.heap[i].idx, q.heap[j].idx = i+1, j+1
}

func (q *refQueue) fix(i int) {
	for i > 0 && q.less(i, (i-1)/2) {
		q.swap(i, (i-1)/2)
		i = (i - 1) / 2
	}
	for {
		l, m := 2*i+1, i
		if l < len(q.heap) && q.less(l, m) {
			m = l
		}
		if l+1 < len(q.heap) && q.less(l+1, m) {
			m = l + 1
		}
		if m == i {
			return
		}
		q.swap(i, m)
		i = m
	}
}

func (q *refQueue) at(t *refTimer, when Time) {
	when = max(when, q.now)
	q.seq++
	t.when, t.seq = when, q.seq
	if t.idx != 0 {
		q.fix(t.idx - 1)
		return
	}
	q.heap = append(q.heap, t)
	t.idx = len(q.heap)
	q.fix(len(q.heap) - 1)
}

func (q *refQueue) cancel(t *refTimer) {
	if t.idx == 0 {
		return
	}
	i, last := t.idx-1, len(q.heap)-1
	q.swap(i, last)
	q.heap = q.heap[:last]
	t.idx = 0
	if i != last {
		q.fix(i)
	}
}

func (q *refQueue) pop() *refTimer {
	t := q.heap[0]
	q.cancel(t)
	q.now = max(q.now, t.when)
	return t
}

// TestQueueMatchesReferenceOrder drives the World and the reference heap with the
// same random schedule — many same-time events, re-arming earlier and later,
// cancels, operations from inside handlers — and requires the same firing order.
func TestQueueMatchesReferenceOrder(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		w := NewWorld(1000, seed)
		ref := &refQueue{}
		const n = 300
		timers := make([]*Timer, n)
		refs := make([]*refTimer, n)
		var got, want []int
		op := func() {
			i := w.Rand.IntN(n)
			if w.Rand.IntN(500) == 0 {
				w.renumber() // the seq overflow path keeps the order
			}
			switch k := w.Rand.IntN(10); {
			case k < 2:
				w.Cancel(timers[i])
				ref.cancel(refs[i])
			case k < 6: // now (or in the past)
				d := Time(w.Rand.IntN(3)) - 1
				w.At(timers[i], w.Now()+d)
				ref.at(refs[i], w.Now()+d)
			default:
				d := Time(w.Rand.IntN(50))
				w.At(timers[i], w.Now()+d)
				ref.at(refs[i], w.Now()+d)
			}
		}
		for i := range timers {
			refs[i] = &refTimer{id: i}
			timers[i] = &Timer{}
			timers[i].Fn = func() {
				got = append(got, i)
				require.False(t, timers[i].Pending())
				for k := w.Rand.IntN(3); k > 0; k-- {
					op()
				}
				switch w.Rand.IntN(4) { // the firing timer re-arms or cancels itself
				case 0:
					d := Time(w.Rand.IntN(40)) - 1
					w.At(timers[i], w.Now()+d)
					ref.at(refs[i], w.Now()+d)
					if w.Rand.IntN(3) == 0 {
						w.Cancel(timers[i])
						ref.cancel(refs[i])
					}
				case 1:
					w.Cancel(timers[i])
					ref.cancel(refs[i])
				}
			}
		}
		for i := 0; i < 20000; i++ {
			if len(got) > 50000 {
				break
			}
			op()
			if w.Rand.IntN(3) == 0 {
				for k := w.Rand.IntN(5); k > 0; k-- {
					if len(ref.heap) == 0 {
						require.False(t, w.Step())
						break
					}
					want = append(want, ref.pop().id)
					require.True(t, w.Step())
					// the reference pops before the World's handler runs the mirrored ops
					require.Equal(t, want[len(want)-1], got[len(want)-1])
					require.Equal(t, ref.now, w.Now())
				}
			}
		}
		for len(ref.heap) > 0 {
			want = append(want, ref.pop().id)
			require.True(t, w.Step())
		}
		require.False(t, w.Step())
		require.Equal(t, want, got, "seed %d", seed)
		for i := range timers {
			require.Equal(t, refs[i].idx != 0, timers[i].Pending())
		}
	}
}

// BenchmarkTasks is the xfs 100 dd case's event pattern: 100 tasks on 8 CPUs,
// each computing for a few µs and now and then sleeping for milliseconds.
func BenchmarkTasks(b *testing.B) {
	w := NewWorld(1000, 1)
	cpus := w.NewCPUs(8)
	for i := 0; i < 100; i++ {
		t := w.NewTask("dd", i, cpus)
		t.Resume = func() {
			if w.Rand.IntN(8) == 0 {
				t.Sleep(Millisecond + Time(w.Rand.IntN(int(20*Millisecond))))
			} else {
				t.Compute(Microsecond + Time(w.Rand.IntN(int(20*Microsecond))))
			}
		}
		t.Start()
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := w.Events()
	for i := 0; i < b.N; i++ {
		if err := w.Run(w.Now() + 10*Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(w.Events()-start)/float64(b.N), "events/op")
}

func TestEntryOrder(t *testing.T) {
	plain := func(a, b entry) bool {
		return a.when() < b.when() || (a.when() == b.when() && a.key < b.key)
	}
	times := []Time{-1 << 62, -5, -1, 0, 1, 2, 1 << 40, 1<<63 - 1}
	keys := []uint64{0, 1, 2, 1 << 24, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	var es []entry
	for _, tm := range times {
		for _, k := range keys {
			es = append(es, mkEntry(tm, k))
		}
	}
	for _, a := range es {
		require.Equal(t, a.when(), Time(int64(a.at^signBit)))
		for _, b := range es {
			require.Equal(t, plain(a, b), a.before(b), "%v %v", a, b)
			require.Equal(t, plain(a, b), a.less(b) == 1)
		}
	}
}

// TestCPUsPickMatchesListScan: run takes the task's last CPU if it is free, else
// the last free one, as the free-list scan did.
func TestCPUsPickMatchesListScan(t *testing.T) {
	w := NewWorld(1000, 3)
	const n = 6
	cpus := w.NewCPUs(n)
	ref := []int{5, 4, 3, 2, 1, 0}
	var tasks []*Task
	for i := 0; i < 40; i++ {
		tasks = append(tasks, w.NewTask("t", i, cpus))
	}
	var onCPU []*Task
	for i := 0; i < 5000; i++ {
		if len(onCPU) > 0 && (len(ref) == 0 || w.Rand.IntN(2) == 0) {
			k := w.Rand.IntN(len(onCPU))
			tk := onCPU[k]
			onCPU = append(onCPU[:k], onCPU[k+1:]...)
			ref = append(ref, tk.CPU)
			tk.burst = 0
			cpus.release(tk)
			tk.state = TaskRunnable
			continue
		}
		tk := tasks[w.Rand.IntN(len(tasks))]
		if tk.state == TaskOnCPU {
			continue
		}
		k := len(ref) - 1
		for j, id := range ref {
			if id == tk.CPU {
				k = j
				break
			}
		}
		want := ref[k]
		ref[k] = ref[len(ref)-1]
		ref = ref[:len(ref)-1]
		cpus.run(tk)
		require.Equal(t, want, tk.CPU)
		require.Equal(t, ref, cpus.free)
		onCPU = append(onCPU, tk)
	}
}

// TestCPUQueueDoesNotGrow: a CPU queue that never drains reuses its consumed
// front instead of growing, and stays FIFO.
func TestCPUQueueDoesNotGrow(t *testing.T) {
	w := NewWorld(1000, 1)
	cpus := w.NewCPUs(1)
	var order []int
	for i := 0; i < 4; i++ {
		tk := w.NewTask("t", i, cpus)
		tk.Resume = func() {
			order = append(order, i)
			tk.Compute(Microsecond)
		}
		tk.Start()
	}
	require.NoError(t, w.Run(100*Millisecond))
	assert.LessOrEqual(t, cap(cpus.queue), 8)
	require.Greater(t, len(order), 1000)
	for k := 4; k < len(order); k++ {
		require.Equal(t, order[k-4], order[k], "round robin through the FIFO queue")
	}
}
