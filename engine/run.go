package engine

import (
	"context"
	"encoding/json"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Time is simulated time in nanoseconds.
type Time = sim.Time

// RunOptions tune a run without changing its result.
type RunOptions struct {
	// Progress, when set, is called from the simulation loop at every time-series
	// sample with the simulated time reached and the run length.
	Progress func(done, total Time)
	// Sample, when set, is called at every time-series sample, before Progress, with
	// the new row: one value per SeriesNames entry, in order. The row is the
	// callee's to keep (the page streams rows to its charts while a run goes).
	Sample func(row []float64)
}

// Run simulates cfg and returns what it measured. The same Config gives the same
// Result on every platform. ctx cancels the run between events.
func Run(ctx context.Context, cfg Config) (*Result, error) { return RunWith(ctx, cfg, RunOptions{}) }

// RunWith is Run with options. A run that ctx stopped returns ctx's error with what
// it measured up to then (Result.RuntimeS is where it stopped).
func RunWith(ctx context.Context, cfg Config, opt RunOptions) (*Result, error) {
	m, err := Build(cfg, BuildOptions{})
	if err != nil {
		return nil, err
	}
	m.rec.opt = opt
	if err := m.Run(ctx); err != nil {
		if ctx.Err() != nil { // stopped: what it measured up to then (RuntimeS)
			return m.Result(), err
		}
		return nil, err
	}
	return m.Result(), nil
}

// diskBlock is a disk as the kernel sets it up: the block layer the kernel puts in
// front of the device (kernel.Variants.Block) with the run's overrides, and the
// scheduler the kernel runs for the one the device names (kernel.ElevatorFor).
func diskBlock(d devices.Spec, o devices.BlockOverrides, v kernel.Variants) (devices.Spec, devices.Block, error) {
	d.Elevator = kernel.ElevatorFor(v, d.Elevator)
	blk, err := o.Apply(v.Block(d))
	return d, blk, err
}

// ddThreads are the dd writers' threads, in start order.
func (m *Machine) ddThreads() []*kernel.Thread {
	out := make([]*kernel.Thread, len(m.dds))
	for i, d := range m.dds {
		out[i] = d.Thread()
	}
	return out
}

func (m *Machine) fail(err error) {
	cfgJSON, _ := json.Marshal(m.cfg)
	m.failure = &FailureError{Err: err, AtS: m.w.Now().Seconds(), Seed: m.cfg.Seed, Config: cfgJSON}
	m.w.CancelRun()
}

// finished reports that the workload is over: every dd has a count and has exited,
// there are no readers, and no page is dirty or under writeback.
func (m *Machine) finished() bool {
	if len(m.dds) == 0 || len(m.rds) > 0 || len(m.eds) > 0 || m.k.G.NrFileDirty > 0 || m.k.G.NrWriteback > 0 {
		return false
	}
	for _, d := range m.dds {
		if !d.Done || d.Enospc { // after ENOSPC the run goes on to its runtime
			return false
		}
	}
	return true
}
