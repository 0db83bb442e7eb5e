package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/wblab/wblab/engine/report"
	"sort"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
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
	m.opt = opt
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
func (s *Machine) ddThreads() []*kernel.Thread {
	out := make([]*kernel.Thread, len(s.dds))
	for i, d := range s.dds {
		out[i] = d.Thread()
	}
	return out
}

func (s *Machine) fail(err error) {
	cfgJSON, _ := json.Marshal(s.cfg)
	s.failure = fmt.Errorf("%w (at t=%.6fs, seed %d; config %s)", err, s.w.Now().Seconds(), s.cfg.Seed, cfgJSON)
	s.w.CancelRun()
}

// finished reports that the workload is over: every dd has a count and has exited,
// there are no readers, and no page is dirty or under writeback.
func (s *Machine) finished() bool {
	if len(s.dds) == 0 || len(s.rds) > 0 || len(s.eds) > 0 || s.k.G.NrFileDirty > 0 || s.k.G.NrWriteback > 0 {
		return false
	}
	for _, d := range s.dds {
		if !d.Done {
			return false
		}
	}
	return true
}

const pagesPerMB = 256.0

func (s *Machine) sample() {
	if s.ctx.Err() != nil {
		s.w.CancelRun()
		return
	}
	k := s.k
	now := s.w.Now()
	x := &s.x
	x.now, x.k = now, k
	x.bg, x.thresh, x.limit, x.setpoint = k.DirtyLimits()
	st := s.q.Stats()
	x.io = devices.Rates(s.prevStats, st, now-s.prevT)
	s.prevStats, s.prevT = st, now
	x.wbt = s.q.WBT()
	fl := k.Flusher().Stats
	x.wrote, x.chunk = 0, 0
	if n := fl.InodeCalls - s.prevFl.InodeCalls; n > 0 {
		x.wrote = mb((fl.WrotePages - s.prevFl.WrotePages) / n)
	}
	if n := fl.ChunkCalls - s.prevFl.ChunkCalls; n > 0 {
		x.chunk = mb((fl.ChunkPages - s.prevFl.ChunkPages) / n)
	}
	s.prevFl = fl
	var paused sim.Time
	var pauses int64
	for _, th := range k.Threads() {
		paused += th.Stats.Paused
		pauses += th.Stats.Pauses
	}
	x.pauseMs = 0
	if n := pauses - s.prevPauses; n > 0 {
		x.pauseMs = float64(paused-s.prevPaused) / float64(n) / 1e6
	}
	s.prevPaused, s.prevPauses = paused, pauses
	x.dirtyList, x.ioList, x.moreIOList = k.BDI.ListLens()
	row := make([]float64, len(Columns))
	for i := range Columns {
		row[i] = Columns[i].sample(x)
		s.samples[i] = append(s.samples[i], row[i])
	}
	if s.det != nil {
		s.det.sample(k, s.ddThreads(), now)
	}
	s.sampleDisks()
	if s.opt.Sample != nil {
		s.opt.Sample(row)
	}
	if s.opt.Progress != nil {
		s.opt.Progress(now, s.runEnd)
	}
	if s.finished() {
		s.idle = true
		s.w.CancelRun()
		return
	}
	if next := now + s.sampleEvery; next <= s.runEnd {
		s.w.At(&s.sampler, next)
	}
}

func mb(pages int64) float64 { return float64(pages) / pagesPerMB }

// Result is what the machine measured so far (the whole run after Run).
func (s *Machine) Result() *Result {
	k, cfg := s.k, s.cfg
	runtime := s.w.Now().Seconds()
	r := &Result{
		Case: cfg.Case, Kernel: cfg.Kernel, Device: cfg.Device.Name, Filesystem: cfg.Filesystem,
		Seed: cfg.Seed, RuntimeS: runtime, Events: s.w.Events(), BusyLoops: k.BusyLoops(),
		WrittenMB: mb(k.G.NrWritten), DirtiedMB: mb(k.G.NrDirtied),
		SwitchActivity: k.SwitchActivity(),
	}
	if bw, _, ok := k.HarnessWriteBW(); ok {
		r.WriteBWMBps, r.WriteBWMethod = bw/pagesPerMB, "harness"
	} else if runtime > 0 {
		r.WriteBWMBps, r.WriteBWMethod = mb(k.G.NrWritten)/runtime, "average"
	}
	// CPU by actor
	for j, d := range s.dds {
		th := d.Thread()
		tr := TaskResult{Disk: s.ddDiskOf(j), Comm: th.Task.Comm, PID: th.Task.PID, DirtiedMB: float64(d.Written()) / (1 << 20),
			Pauses: th.Stats.Pauses, PausedS: th.Stats.Paused.Seconds(), MaxPauseMs: float64(th.Stats.MaxPause) / 1e6,
			CPUS: th.Task.CPUTime().Seconds(), Done: d.Done}
		end := s.w.Now()
		if d.Done {
			end = d.Ended
			tr.RuntimeS = (d.Ended - d.Started).Seconds()
		}
		if el := (end - d.Started).Seconds(); el > 0 {
			tr.RateMBps = tr.DirtiedMB / el
		}
		r.Tasks = append(r.Tasks, tr)
	}
	fl := k.Flusher()
	flCPU := fl.Thread().Task.CPUTime()
	// every thread's CPU, grouped by comm in order of creation (dd, flush-8:0,
	// pdflush, kjournald, btrfs workers, readers ...), then IO completion
	total := k.IrqCPU()
	idx := map[string]int{}
	for _, th := range k.Threads() {
		c := th.Task.CPUTime()
		total += c
		i, ok := idx[th.Task.Comm]
		if !ok {
			i = len(r.CPUByActor)
			idx[th.Task.Comm] = i
			r.CPUByActor = append(r.CPUByActor, ActorCPU{Actor: th.Task.Comm})
		}
		r.CPUByActor[i].CPUS += c.Seconds()
	}
	r.CPUByActor = append(r.CPUByActor, ActorCPU{Actor: "irq", CPUS: k.IrqCPU().Seconds()})
	r.CPUS = total.Seconds()
	if name, ok := kernel.PresetFor(k.P.Variants); ok {
		r.KernelSwitchesEqual = name
	}
	works := map[string]int64{}
	for reason, n := range fl.Stats.Works {
		if n > 0 {
			works[kernel.Reason(reason).String()] = n
		}
	}
	r.Flusher = FlusherResult{Works: works, InodeCalls: fl.Stats.InodeCalls, Wakeups: fl.Stats.Wakeups, CPUS: flCPU.Seconds()}
	// dirty age
	var sumAge sim.Time
	var calls int64
	for _, in := range k.Inodes() {
		st := in.Stats()
		sumAge += st.SumAge
		calls += st.WritebackCalls
		r.DirtyAge.MaxS = max(r.DirtyAge.MaxS, st.MaxAge.Seconds())
		r.DirtyAge.MaxMetaS = max(r.DirtyAge.MaxMetaS, st.MaxMetaAge.Seconds())
		ir := InodeResult{Ino: in.Ino, DirtiedMB: mb(in.Dirtied()), WrittenMB: mb(in.Written()), Calls: st.WritebackCalls,
			MaxAgeS: st.MaxAge.Seconds(), MaxMetaAgeS: st.MaxMetaAge.Seconds()}
		if st.WritebackCalls > 0 {
			ir.MeanAgeS = (st.SumAge / sim.Time(st.WritebackCalls)).Seconds()
		}
		r.Inodes = append(r.Inodes, ir)
	}
	if calls > 0 {
		r.DirtyAge.MeanS = (sumAge / sim.Time(calls)).Seconds()
	}
	sort.Slice(r.Inodes, func(i, j int) bool { return r.Inodes[i].Ino < r.Inodes[j].Ino })
	s.diskResults(r)
	// iostat over the run
	io := devices.Rates(devices.Iostat{}, s.q.Stats(), s.w.Now())
	r.Iostat = IostatSummary{
		ReadIOPS: io.RPS, WriteIOPS: io.WPS, ReadMBps: io.RMBps, WriteMBps: io.WMBps, AvgRqSz: io.AvgRqSz,
		AvgQuSz: io.AvgQuSz, AwaitMs: io.Await, ReadAwaitMs: io.RAwait, WriteAwaitMs: io.WAwait, UtilPct: io.Util,
		WriteMergesS: io.WMergeS,
	}
	if m, ok := s.q.Media(); ok && s.w.Now() > 0 {
		sec, pct := s.w.Now().Seconds(), 100/float64(s.w.Now())
		r.Media = &MediaSummary{OpsS: float64(m.Ops) / sec, SeeksS: float64(m.Seeks) / sec,
			SeekPct: float64(m.SeekTime) * pct, RotatePct: float64(m.RotateTime) * pct, XferPct: float64(m.XferTime) * pct}
	}
	if sr, ok := k.FS.(fs.StatsReporter); ok {
		for _, st := range sr.Stats() {
			r.FSStats = append(r.FSStats, report.Stat(st))
		}
	}
	wbt := s.q.WBT()
	r.WBT = WBTSummary{Enabled: wbt.Enabled, FinalStep: wbt.Step, Scales: wbt.Scales, Exceeded: wbt.Exceeded}
	for _, rd := range s.rds {
		st := rd.Stats()
		r.Reads.Count += st.Reads
		r.Reads.MaxMs = max(r.Reads.MaxMs, float64(st.Max)/1e6)
		r.Reads.P99Ms = max(r.Reads.P99Ms, float64(st.P99)/1e6)
		r.Reads.MeanMs += float64(st.Mean) / 1e6 / float64(len(s.rds))
	}
	r.Series = &Series{IntervalS: s.sampleEvery.Seconds(), Names: SeriesNames(), Data: s.samples}
	if len(s.diskSamples) > 0 {
		r.Series.Names = append(r.Series.Names, diskSeriesNames(len(k.BDIs()))...)
		r.Series.Data = append(r.Series.Data, s.diskSamples...)
	}
	if s.det != nil {
		r.Detail = s.det.result(s.ddThreads(), k)
		r.DirtyAge.MaxDataS = s.det.maxData.Seconds()
	}
	if s.tr != nil {
		r.Trace = s.tr.Lines()
		r.TraceDropped = s.tr.Dropped()
	}
	return r
}
