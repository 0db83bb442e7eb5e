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
	}
	for _, tc := range tests {
		w := NewWorld(tc.hz, 1)
		require.NoError(t, w.Run(tc.now))
		assert.Equal(t, tc.jiffies, w.Jiffies(), "hz=%d", tc.hz)
		assert.Equal(t, tc.ms100, w.MsecsToJiffies(100), "hz=%d", tc.hz)
		assert.Equal(t, Second, w.JiffiesToTime(int64(tc.hz)))
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
