// Package repro holds wblab's reproductions of the source threads' measurements.
// Each one builds its configs from the presets (kernels, devices, filesystems),
// runs them through engine.Build/Run and reports flat figures next to the
// thread's; it also gives the page its Reproduce entry (the A config, B's kernel
// or the thread's matrix, and what to look at). Nothing in the model knows a
// reproduction's name.
package repro

import (
	"context"
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/stats"
)

// Experiment is one reproduction.
type Experiment struct {
	Name   string // CLI name: "kara-2016"
	ID     string // the page's id (share links): "kara2016"
	Title  string // the page's menu entry: "Kara 2016"
	Thread string // the source thread file under ../shared/threads
	Doc    string // one paragraph for --help: what runs and which figures
	// Look says in two sentences what the page shows and where to look; it
	// states no result (the run computes those).
	Look string
	// Mode is the page's mode: "ab" (Setup on A, TestKernel on B) or "matrix"
	// (Matrix's cases with its kernels, Setup as every case's base).
	Mode       string
	Matrix     string // matrix mode: a harness matrix name ("wu-2011-T1")
	TestKernel string // B's kernel preset
	// Setup is A's config: the thread's machine and workload under the base kernel.
	Setup func() (engine.Config, error)
	run   func(ctx context.Context, quick bool) (*Report, error)
}

// Report is what an experiment measured: flat figures (JSON keys) and a text
// table for people.
type Report struct {
	Name    string
	Figures map[string]float64
	Text    string
}

// experiments is the table of reproductions, in the page's menu order.
var experiments = []*Experiment{&chinner2010, &wu2011, &axboe2009, &modernVs2011, &kara2016, &usbStickStall, &axboe2009Disks, &wu2011Stick, &strictlimitIdle}

// Experiments lists the reproductions in the page's menu order.
func Experiments() []*Experiment { return append([]*Experiment(nil), experiments...) }

// LookupExperiment finds an experiment by name (or by its page id).
func LookupExperiment(name string) (*Experiment, error) {
	var names []string
	for _, e := range experiments {
		if e.Name == name || e.ID == name {
			return e, nil
		}
		names = append(names, e.Name)
	}
	return nil, fmt.Errorf("%q is not an experiment (experiments: %s)", name, strings.Join(names, ", "))
}

// runSeeds runs one machine per seed 1..n (cfgFor builds it, one measures it), in
// seed order; errors name the row and the seed.
func runSeeds[T any](ctx context.Context, row string, n uint64, cfgFor func(seed uint64) (engine.Config, error),
	one func(context.Context, engine.Config) (T, error)) ([]T, error) {
	var outs []T
	for s := uint64(1); s <= n; s++ {
		cfg, err := cfgFor(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", row, err)
		}
		o, err := one(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", row, s, err)
		}
		outs = append(outs, o)
	}
	return outs, nil
}

// meanOf is the mean of f over the outcomes.
func meanOf[T any](outs []T, f func(T) float64) float64 {
	xs := make([]float64, len(outs))
	for i, o := range outs {
		xs[i] = f(o)
	}
	return stats.Of(xs).Mean
}

// Kernels lists the kernel presets the page entry needs (A's and B's).
func (e *Experiment) Kernels() []string {
	c, err := e.Setup()
	if err != nil {
		return []string{e.TestKernel}
	}
	return []string{c.Kernel, e.TestKernel}
}

// Run runs the experiment. quick shortens it (smaller files, shorter runs) for tests.
func (e *Experiment) Run(ctx context.Context, quick bool) (*Report, error) {
	r, err := e.run(ctx, quick)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	r.Name = e.Name
	return r, nil
}

// runAll runs configs through engine.RunAll's bounded pool and returns their
// results in order.
func runAll(ctx context.Context, cfgs []engine.Config) ([]*engine.Result, error) {
	res, err := engine.RunAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// parallel runs jobs 0..n-1 through engine's one worker pool and waits for them.
func parallel(n int, job func(i int)) { engine.Parallel(context.Background(), n, job) }

// ddRateMBps is the first dd's rate (bytes written by write() over its lifetime).
func ddRateMBps(r *engine.Result) float64 {
	if len(r.Tasks) == 0 {
		return 0
	}
	return r.Tasks[0].RateMBps
}

// mbOf converts pages to MB (2^20 bytes).
func mbOf(pages int64) float64 { return float64(pages) / 256 }
