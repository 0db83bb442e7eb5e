package sim_test

import (
	"fmt"

	"github.com/wblab/wblab/engine/sim"
)

// A World fires timers in time order (same-time timers in the order they were
// queued); a timer's Fn may re-arm it. Run stops at its until: later events stay
// queued for the next Run.
func ExampleWorld() {
	w := sim.NewWorld(1000, 1) // HZ=1000, seed 1
	var tick, once sim.Timer
	tick.Fn = func() {
		fmt.Printf("%v ms: tick (jiffies %d)\n", w.Now()/sim.Millisecond, w.Jiffies())
		w.After(&tick, 500*sim.Millisecond)
	}
	once.Fn = func() { fmt.Printf("%v ms: once\n", w.Now()/sim.Millisecond) }
	w.After(&tick, 0)
	w.At(&once, 700*sim.Millisecond)

	if err := w.Run(sim.Second); err != nil {
		panic(err)
	}
	fmt.Println("stopped at", w.Now().Seconds(), "s; tick pending:", tick.Pending())
	// Output:
	// 0 ms: tick (jiffies 0)
	// 500 ms: tick (jiffies 500)
	// 700 ms: once
	// 1000 ms: tick (jiffies 1000)
	// stopped at 1 s; tick pending: true
}

// A task's behaviour is its Resume function, called each time the task goes on:
// here a 10 ms CPU burst, a 5 ms sleep, then exit. Three such tasks on two CPUs:
// the third queues for a CPU until one is free.
func ExampleTask() {
	w := sim.NewWorld(1000, 1)
	cpus := w.NewCPUs(2)
	for i, name := range []string{"a", "b", "c"} {
		t := w.NewTask(name, 100+i, cpus)
		step := 0
		t.Resume = func() {
			switch step {
			case 0:
				step = 1
				t.Compute(10 * sim.Millisecond)
			case 1:
				step = 2
				fmt.Printf("%s computed by %v ms\n", t.Comm, w.Now()/sim.Millisecond)
				t.Sleep(5 * sim.Millisecond)
			default:
				fmt.Printf("%s exits at %v ms, %v ms on a CPU\n", t.Comm, w.Now()/sim.Millisecond, t.CPUTime()/sim.Millisecond)
				t.Exit()
			}
		}
		t.Start()
	}
	if err := w.Run(sim.Second); err != nil {
		panic(err)
	}
	// Output:
	// a computed by 10 ms
	// b computed by 10 ms
	// a exits at 15 ms, 10 ms on a CPU
	// b exits at 15 ms, 10 ms on a CPU
	// c computed by 20 ms
	// c exits at 25 ms, 10 ms on a CPU
}
