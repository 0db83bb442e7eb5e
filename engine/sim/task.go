package sim

import "fmt"

// TaskState is what a task is doing.
type TaskState uint8

// Task states. A task is in exactly one of them.
const (
	TaskRunnable TaskState = iota // created or woken, its Resume is queued
	TaskOnCPU                     // running a CPU burst
	TaskQueued                    // waiting for a free CPU
	TaskSleeping                  // timed sleep
	TaskWaiting                   // on a wait queue, no timeout
	TaskExited
)

func (s TaskState) String() string {
	switch s {
	case TaskRunnable:
		return "runnable"
	case TaskOnCPU:
		return "on-cpu"
	case TaskQueued:
		return "cpu-queued"
	case TaskSleeping:
		return "sleeping"
	case TaskWaiting:
		return "waiting"
	case TaskExited:
		return "exited"
	}
	return fmt.Sprintf("TaskState(%d)", uint8(s))
}

// Task is a kernel thread or user process. Its behaviour lives in the actor that owns
// it: Resume is called whenever the task continues (after a CPU burst, a sleep or a
// wake-up), and the actor decides from its own state what to do next.
type Task struct {
	Comm   string // command name as in trace lines, e.g. "flush-8:0", "dd"
	PID    int
	CPU    int    // CPU the task ran on last (trace [cpu] column)
	Resume func() // set by the owner before the task first runs

	w             *World
	cpus          *CPUs
	state         TaskState
	interruptible bool
	timer         Timer
	burst         Time
	cpuTime       Time
	waitQ         *WaitQueue
}

// NewTask creates a task bound to w and cpus (cpus may be nil: bursts then take no CPU).
func (w *World) NewTask(comm string, pid int, cpus *CPUs) *Task {
	t := &Task{Comm: comm, PID: pid, w: w, cpus: cpus, CPU: -1}
	t.timer.task = t
	if cpus != nil && cpus.n > 0 {
		t.CPU = pid % cpus.n
	}
	return t
}

// State reports the task's state.
func (t *Task) State() TaskState { return t.state }

// CPUTime is the CPU time the task has consumed.
func (t *Task) CPUTime() Time { return t.cpuTime }

// fire runs the task's timer event (World.Run has the same body written out).
func (t *Task) fire() {
	switch t.state {
	case TaskOnCPU:
		t.cpuTime += t.burst
		t.cpus.release(t)
		t.burst = 0
	case TaskSleeping:
		if t.waitQ != nil {
			t.waitQ.remove(t)
			t.waitQ = nil
		}
	}
	t.state = TaskRunnable
	t.interruptible = false
	t.Resume()
}

// Start makes the task runnable now; Resume is called from the event loop.
func (t *Task) Start() { t.state = TaskRunnable; t.w.At(&t.timer, t.w.now) }

// StartAt makes the task runnable at time when.
func (t *Task) StartAt(when Time) { t.state = TaskRunnable; t.w.At(&t.timer, when) }

// Compute runs a CPU burst of the given cost, queueing for a CPU if all are busy,
// then calls Resume. A zero cost yields: Resume is queued at the current time.
func (t *Task) Compute(cost Time) {
	if sp := t.w.cpuSpeed; sp != 0 && cost > 0 {
		cost = max(cost*100/Time(sp), 1) // World.SetCPUSpeed
	}
	// the burst's cost on this run: within ±CPUPerMille ‰ of cost (Variation), the
	// draw written here rather than in a function of its own (one call less per
	// burst on wasm)
	if w := t.w; w.varyOn && w.vary.CPUPerMille != 0 && cost > 0 {
		pm := Time(w.vary.CPUPerMille * 1000)
		d := w.uniform(-pm, pm+1) // per million
		cost = max(cost+cost*d/1_000_000, 1)
	}
	if cost <= 0 || t.cpus == nil {
		t.state = TaskRunnable
		if cost > 0 {
			t.cpuTime += cost
		}
		t.w.At(&t.timer, t.w.now+max(cost, 0))
		return
	}
	t.burst = cost
	if c := t.cpus; len(c.free) > 0 {
		c.run(t) // acquire's free-CPU case, without its call
		return
	}
	t.cpus.acquire(t)
}

// Sleep blocks the task for d (TASK_UNINTERRUPTIBLE / TASK_KILLABLE: Wake does not end it).
// With a machine variation the task runs a timer and wakeup latency after d.
func (t *Task) Sleep(d Time) {
	t.state = TaskSleeping
	t.interruptible = false
	t.w.After(&t.timer, d+t.w.timerLatency())
}

// SleepInterruptible blocks the task for d; Wake ends the sleep early (schedule_timeout
// in TASK_INTERRUPTIBLE). A negative d sleeps until woken.
func (t *Task) SleepInterruptible(d Time) {
	t.interruptible = true
	if d < 0 {
		t.state = TaskWaiting
		t.w.Cancel(&t.timer)
		return
	}
	t.state = TaskSleeping
	t.w.After(&t.timer, d+t.w.timerLatency())
}

// Wait blocks the task on q until q wakes it.
func (t *Task) Wait(q *WaitQueue) {
	if t.waitQ == q && t.state == TaskWaiting {
		return // already waiting there (a second submission while blocked)
	}
	t.state = TaskWaiting
	t.interruptible = false
	t.w.Cancel(&t.timer)
	t.waitQ = q
	q.tasks = append(q.tasks, t)
}

// WaitTimeout blocks the task on q until q wakes it or d passes.
func (t *Task) WaitTimeout(q *WaitQueue, d Time) {
	t.Wait(q)
	t.state = TaskSleeping
	t.w.After(&t.timer, d+t.w.timerLatency())
}

// Wake is wake_up_process: it ends an interruptible sleep (SleepInterruptible). It
// reports whether the task was woken; tasks running, runnable or blocked
// uninterruptibly (Sleep, Wait on a queue) are left alone.
func (t *Task) Wake() bool {
	if !t.interruptible || (t.state != TaskSleeping && t.state != TaskWaiting) {
		return false
	}
	t.wakeNow()
	return true
}

func (t *Task) wakeNow() {
	if t.waitQ != nil {
		t.waitQ.remove(t)
		t.waitQ = nil
	}
	t.interruptible = false
	t.state = TaskRunnable
	t.w.At(&t.timer, t.w.now+t.w.wakeupLatency())
}

// Exit ends the task.
func (t *Task) Exit() {
	t.w.Cancel(&t.timer)
	if t.waitQ != nil {
		t.waitQ.remove(t)
		t.waitQ = nil
	}
	t.state = TaskExited
}

// WaitQueue is a wait_queue_head_t: tasks blocked until an event.
type WaitQueue struct{ tasks []*Task }

// Len is the number of waiting tasks.
func (q *WaitQueue) Len() int { return len(q.tasks) }

func (q *WaitQueue) remove(t *Task) {
	for i, x := range q.tasks {
		if x == t {
			copy(q.tasks[i:], q.tasks[i+1:])
			q.tasks[len(q.tasks)-1] = nil
			q.tasks = q.tasks[:len(q.tasks)-1]
			return
		}
	}
}

// WakeAll wakes every waiting task, in the order they started waiting.
func (q *WaitQueue) WakeAll() {
	for len(q.tasks) > 0 {
		q.tasks[0].wakeNow()
	}
}

// WakeOne wakes the longest waiting task.
func (q *WaitQueue) WakeOne() bool {
	if len(q.tasks) == 0 {
		return false
	}
	q.tasks[0].wakeNow()
	return true
}

// CPUs is a pool of identical CPUs. A task computing takes one CPU for its burst;
// when all are busy, tasks queue FIFO.
type CPUs struct {
	w     *World
	n     int
	free  []int // free CPUs; run takes the task's last CPU or else the last one
	slot  []int // slot[cpu] is cpu's index in free, -1 when busy
	queue []*Task
	head  int
	busy  Time // total busy time, for utilisation
}

// NewCPUs creates n CPUs.
func (w *World) NewCPUs(n int) *CPUs {
	c := &CPUs{w: w, n: n, slot: make([]int, n)}
	for i := n - 1; i >= 0; i-- {
		c.slot[i] = len(c.free)
		c.free = append(c.free, i)
	}
	return c
}

// N is the number of CPUs.
func (c *CPUs) N() int { return c.n }

// Busy is the CPU time consumed so far by all tasks' completed bursts.
func (c *CPUs) Busy() Time { return c.busy }

// Queued is the number of tasks waiting for a CPU.
func (c *CPUs) Queued() int { return len(c.queue) - c.head }

func (c *CPUs) acquire(t *Task) {
	if len(c.free) == 0 {
		t.state = TaskQueued
		if c.head > 0 && len(c.queue) == cap(c.queue) {
			// a queue that never drains: reuse its consumed front, don't grow
			n := copy(c.queue, c.queue[c.head:])
			clear(c.queue[n:])
			c.queue, c.head = c.queue[:n], 0
		}
		c.queue = append(c.queue, t)
		return
	}
	c.run(t)
}

func (c *CPUs) run(t *Task) {
	// prefer the CPU the task ran on last (cache affinity), else the last free one
	last := len(c.free) - 1
	k := last
	if id := t.CPU; uint(id) < uint(len(c.slot)) && c.slot[id] >= 0 {
		k = c.slot[id]
	}
	cpu, moved := c.free[k], c.free[last]
	c.free[k], c.slot[moved] = moved, k
	c.free, c.slot[cpu] = c.free[:last], -1
	t.CPU = cpu
	t.state = TaskOnCPU
	c.w.At(&t.timer, c.w.now+t.burst)
}

func (c *CPUs) release(t *Task) {
	c.busy += t.burst
	c.slot[t.CPU] = len(c.free)
	c.free = append(c.free, t.CPU)
	if c.head < len(c.queue) {
		next := c.queue[c.head]
		c.queue[c.head] = nil
		c.head++
		if c.head == len(c.queue) {
			c.queue, c.head = c.queue[:0], 0
		}
		c.run(next)
	}
}
