package engine

import (
	"context"
	"runtime"
	"sync"
)

// Workers is how many simulations run at once: one per usable CPU (GOMAXPROCS).
// A run is single-threaded, so more would only share the CPUs.
func Workers() int { return max(runtime.GOMAXPROCS(0), 1) }

// Parallel is the one worker pool: it runs job(0..n-1) on at most Workers()
// goroutines and waits for them. Jobs not yet started are skipped once ctx is
// done; a job in flight sees ctx itself.
func Parallel(ctx context.Context, n int, job func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(Workers(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				job(i)
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
}

// RunAll runs every config through Parallel and returns the results in the
// configs' order. The first error stops the runs not yet started and cancels
// those in flight; it is returned with the index of its config.
func RunAll(parent context.Context, cfgs []Config) ([]*Result, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	res := make([]*Result, len(cfgs))
	var (
		mu       sync.Mutex
		firstErr error
		errAt    int
	)
	Parallel(ctx, len(cfgs), func(i int) {
		r, err := Run(ctx, cfgs[i])
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr, errAt = err, i
			}
			mu.Unlock()
			cancel()
			return
		}
		res[i] = r
	})
	if firstErr != nil {
		return nil, &RunError{Index: errAt, Config: cfgs[errAt], Err: firstErr}
	}
	for _, r := range res {
		if r == nil { // cancelled between runs
			return nil, parent.Err()
		}
	}
	return res, nil
}

// RunError is RunAll's error: which config failed.
type RunError struct {
	Index  int
	Config Config
	Err    error
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }
