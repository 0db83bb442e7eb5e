package engine

import (
	"context"
	"runtime"
	"sync"
)

// Workers is how many simulations RunAll runs at once: one per usable CPU
// (GOMAXPROCS). A run is single-threaded, so more would only share the CPUs.
func Workers() int { return max(runtime.GOMAXPROCS(0), 1) }

// RunAll runs every config, at most Workers() at a time, and returns the results
// in the configs' order. The first error stops the runs not yet started and
// cancels those in flight; it is returned with the index of its config.
func RunAll(parent context.Context, cfgs []Config) ([]*Result, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	res := make([]*Result, len(cfgs))
	var (
		mu       sync.Mutex
		firstErr error
		errAt    int
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range min(Workers(), len(cfgs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := Run(ctx, cfgs[i])
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr, errAt = err, i
					}
					mu.Unlock()
					cancel()
					continue
				}
				res[i] = r
			}
		}()
	}
feed:
	for i := range cfgs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
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
