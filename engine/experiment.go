package engine

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Experiment is a named reproduction of a source thread's measurement: it builds its
// configs from presets (kernels, devices, filesystems), runs them and reports flat
// figures next to the thread's. Nothing in the model knows the experiment's name.
type Experiment struct {
	Name   string
	Thread string // the source thread file under ../shared/threads
	Doc    string
	run    func(ctx context.Context, quick bool) (*ExperimentReport, error)
}

// ExperimentReport is what an experiment measured: flat figures (JSON keys) and a
// text table for people.
type ExperimentReport struct {
	Name    string
	Figures map[string]float64
	Text    string
}

var experiments = map[string]*Experiment{}

func registerExperiment(e *Experiment) { experiments[e.Name] = e }

// Experiments lists the experiments by name.
func Experiments() []*Experiment {
	out := make([]*Experiment, 0, len(experiments))
	for _, e := range experiments {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupExperiment finds an experiment by name.
func LookupExperiment(name string) (*Experiment, error) {
	if e, ok := experiments[name]; ok {
		return e, nil
	}
	var names []string
	for _, e := range Experiments() {
		names = append(names, e.Name)
	}
	return nil, fmt.Errorf("%q is not an experiment (experiments: %s)", name, strings.Join(names, ", "))
}

// Run runs the experiment. quick shortens it (smaller files, shorter runs) for tests.
func (e *Experiment) Run(ctx context.Context, quick bool) (*ExperimentReport, error) {
	r, err := e.run(ctx, quick)
	if err != nil {
		return nil, fmt.Errorf("experiment %s: %w", e.Name, err)
	}
	r.Name = e.Name
	return r, nil
}

// runAll runs configs concurrently (one goroutine each) and returns their results
// in order.
func runAll(ctx context.Context, cfgs []Config) ([]*Result, error) {
	res := make([]*Result, len(cfgs))
	errs := make([]error, len(cfgs))
	var wg sync.WaitGroup
	for i := range cfgs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			res[i], errs[i] = Run(ctx, cfgs[i])
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", cfgs[i].Kernel, cfgs[i].Filesystem, err)
		}
	}
	return res, nil
}

// ddRateMBps is the first dd's rate (bytes written by write() over its lifetime).
func ddRateMBps(r *Result) float64 {
	if len(r.Tasks) == 0 {
		return 0
	}
	return r.Tasks[0].RateMBps
}
