package engine_test

import (
	"context"
	"fmt"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

// Run one of the Wu 2011 thread's cases for a simulated minute.
func Example() {
	cfg, err := harness.ConfigForCase("thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X")
	if err != nil {
		panic(err)
	}
	cfg.Runtime = engine.Duration(60 * time.Second)
	r, err := engine.Run(context.Background(), cfg)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s on %s: write_bw %.1f MB/s, %d dd tasks, %.0f MB written\n",
		r.Case, r.Device, r.WriteBWMBps, len(r.Tasks), r.WrittenMB)

	// Bad input is an error naming the field and its range.
	cfg.Disks[0].Workload.DD = 0
	_, err = engine.Run(context.Background(), cfg)
	fmt.Println(err)
	// Output:
	// thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X on wu2011-hdd: write_bw 48.3 MB/s, 10 dd tasks, 2899 MB written
	// workload.dd: 0 is out of range 1-10000
}

// Run a machine built by hand from DefaultConfig: two `dd bs=1M count=64
// conv=fsync` on the default disk; each dd's runtime runs from its start to
// fsync's return.
func ExampleRun() {
	cfg := engine.DefaultConfig()
	cfg.Disks[0].Workload = engine.Workload{DD: 2, BS: 1 << 20, Count: 64, Fsync: true}
	cfg.Runtime = engine.Duration(10 * time.Second)
	r, err := engine.Run(context.Background(), cfg)
	if err != nil {
		panic(err)
	}
	for _, task := range r.Tasks {
		fmt.Printf("%s %d: %.0f MB dirtied, done %v after %.2f s\n", task.Comm, task.PID, task.DirtiedMB, task.Done, task.RuntimeS)
	}
	fmt.Printf("%s, %s: %.0f MB written\n", r.Kernel, r.Device, r.WrittenMB)
	// Output:
	// dd 1002: 64 MB dirtied, done true after 1.67 s
	// dd 1003: 64 MB dirtied, done true after 1.97 s
	// 3.1.0-rc9-ioless-full, wu2011-hdd: 128 MB written
}
