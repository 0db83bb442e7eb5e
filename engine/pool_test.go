package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wblab/wblab/engine/sim"

	"github.com/stretchr/testify/assert"
)

// TestParallel: every job runs once, never more than Workers() at a time, and
// jobs not yet started are skipped once the context is cancelled.
func TestParallel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		cancelAt int // cancel when this job starts; -1: never
	}{
		{"none", 0, -1},
		{"one", 1, -1},
		{"many", 50, -1},
		{"cancelled", 50, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			ran := make([]int, tc.n)
			var inFlight, most atomic.Int32
			Parallel(ctx, tc.n, func(i int) {
				now := inFlight.Add(1)
				for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
				}
				if i == tc.cancelAt {
					cancel()
				}
				mu.Lock()
				ran[i]++
				mu.Unlock()
				inFlight.Add(-1)
			})
			total := 0
			for i, c := range ran {
				assert.LessOrEqual(t, c, 1, "job %d ran %d times", i, c)
				total += c
			}
			assert.LessOrEqual(t, int(most.Load()), Workers())
			if tc.cancelAt < 0 {
				assert.Equal(t, tc.n, total)
			} else {
				assert.Less(t, total, tc.n, "jobs after the cancel still started")
			}
		})
	}
}

// TestRunAllError: the first failing config's index comes back in a RunError.
func TestRunAllError(t *testing.T) {
	good := DefaultConfig()
	good.Runtime = Duration(sim.Second)
	bad := good
	bad.DirtyBytes = -1
	_, err := RunAll(context.Background(), []Config{good, bad})
	var re *RunError
	if assert.ErrorAs(t, err, &re) {
		assert.Equal(t, 1, re.Index)
	}
}
