package engine

import (
	"context"
	"fmt"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/trace"
	"github.com/wblab/wblab/engine/workload"
)

// Machine is one simulated machine built from a Config: the world (virtual clock
// and seed), the kernel, each disk's block queue and filesystem, and the workload's
// tasks. Build is the only place that assembles one (Run, the reproductions, fuzz
// and bench all start here). Tests use it like etcd raft's RawNode: Build, then
// Step or RunUntil, inspecting World, Kernel and Disks in between, and Result at
// the end.
type Machine struct {
	cfg   Config
	opt   RunOptions
	ctx   context.Context
	w     *sim.World
	k     *kernel.Kernel
	disks []Disk
	q     *devices.Queue // disks[0].Queue: the disk the kernel's one BDI writes to
	dds   []*workload.DD
	rds   []*workload.Reader
	tr    *trace.Buffer
	tp    *trace.Printer // the kernel's and the queues' one tracer: renders into tr

	eds []*workload.Editor
	// the disk of each dd / reader beyond the first disk's, and of each editor
	ddDisk, rdDisk, edDisk []int
	maxDirty               []int64 // per bdi: most dirty + writeback pages at a sample

	runEnd      sim.Time
	sampleEvery sim.Time
	sampler     sim.Timer
	samples     [][]float64
	// per-disk series (several disks): DiskSeries per bdi, and each queue's last
	// iostat counters
	diskSamples [][]float64
	diskPrev    []devices.Iostat
	diskPrevT   []sim.Time
	prevStats   devices.Iostat
	prevFl      kernel.FlusherStats
	prevPaused  sim.Time
	prevPauses  int64
	prevT       sim.Time
	x           sampleState // the sampler's per-sample values
	failure     error
	idle        bool       // every dd finished and all pages are clean: the run ended early
	det         *detailRec // with Config.Detail
}

// Disk is one block device of a Machine: its spec (hardware plus the block layer
// the kernel preset and the run's overrides gave it), its request queue and the
// filesystem mounted on it. A machine has one disk today; the list is where more
// go.
type Disk struct {
	Spec  devices.Spec
	Queue *devices.Queue
	FS    kernel.Filesystem
	BDI   string // major:minor as trace lines print it
}

// BuildOptions change what Build puts on the machine, never how a part is built.
type BuildOptions struct {
	// WrapFS, when set, wraps the filesystem model before it is mounted (a
	// reproduction that injects a condition, e.g. ->write_inode returning EAGAIN).
	WrapFS func(kernel.Filesystem) kernel.Filesystem
	// NoWorkload leaves out the Config's dd writers and readers: the caller starts
	// its own tasks on Kernel() (the Config's workload fields are then ignored).
	NoWorkload bool
	// NoSeries leaves out the time-series sampler (Result.Series stays empty).
	NoSeries bool
}

// Build validates cfg and builds its machine at time 0; nothing has run yet.
func Build(cfg Config, opt BuildOptions) (*Machine, error) {
	check := cfg
	if opt.NoWorkload {
		check.Workload = Workload{DD: 1, BS: 4096}
	}
	if err := check.Validate(); err != nil {
		return nil, err
	}
	preset, err := kernel.LookupPreset(cfg.Kernel)
	if err != nil {
		return nil, fmt.Errorf("kernel: %w", err)
	}
	variants, err := cfg.Variants.Apply(preset.Variants)
	if err != nil {
		return nil, fmt.Errorf("variants: %w", err)
	}
	w := sim.NewWorld(cfg.HZ, cfg.Seed)
	w.SetVariation(sim.MachineVariation()) // a real machine's timer, wakeup and CPU variation
	spec, blk, err := diskBlock(cfg.Device, cfg.Block, variants)
	if err != nil {
		return nil, err
	}
	cfg.Device = spec
	q, err := devices.New(w, spec, blk)
	if err != nil {
		return nil, err
	}
	f, err := fs.New(cfg.Filesystem)
	if err != nil {
		return nil, err
	}
	if opt.WrapFS != nil {
		f = opt.WrapFS(f)
	}
	disk := Disk{Spec: spec, Queue: q, FS: f, BDI: "8:0"}
	costs := kernel.DefaultCosts()
	if spec.DM {
		// the filesystem writes to the dm device (its bdi); its bios are cloned
		// onto the disk's queue (devices/dm.go)
		disk.BDI = devices.DMName(0)
		costs.SubmitBio = devices.DMSubmitBio(costs.SubmitBio)
	}
	p := kernel.Params{
		CPUs: cfg.CPUs, MemoryMB: cfg.MemoryMB,
		DirtyBytes: cfg.DirtyBytes, DirtyRatio: cfg.DirtyRatio,
		DirtyBackgroundBytes: cfg.DirtyBackgroundBytes, DirtyBackgroundRatio: cfg.DirtyBackgroundRatio,
		DirtyExpireCs: cfg.DirtyExpireCs, DirtyWritebackCs: cfg.DirtyWritebackCs,
		Variants: variants, Costs: costs, BdiName: disk.BDI,
	}
	if cfg.Reclaim != nil {
		p.Reclaim = &kernel.Reclaim{AnonMB: cfg.Reclaim.AnonMB, Swap: cfg.Reclaim.Swap}
	}
	k, err := kernel.New(w, p, q, f)
	if err != nil {
		return nil, err
	}
	m := &Machine{cfg: cfg, ctx: context.Background(), w: w, k: k, q: q, disks: []Disk{disk}, runEnd: cfg.Runtime.Time()}
	if cfg.Detail {
		m.det = &detailRec{}
	}
	if err := m.buildDisks(variants); err != nil {
		return nil, err
	}
	if cfg.TraceLines > 0 {
		m.tr = trace.New(cfg.TraceLines)
		if cfg.TraceSampled {
			m.tr.SetSampled()
		}
		m.tr.SetWindow(cfg.TraceFrom.Time(), cfg.TraceUntil.Time())
		wording := trace.V32
		if variants.On(kernel.SwTraceV66) {
			wording = trace.V66
		}
		m.tp = trace.NewPrinter(wording, m.tr)
		k.SetTracer(m.tp)
	}
	if !opt.NoWorkload {
		m.startWorkload()
		m.startDiskTasks()
	}
	if m.tp != nil {
		for _, d := range m.disks {
			d.Queue.SetTracer(m.tp)
		}
	}
	if !opt.NoSeries {
		m.sampleEvery = cfg.SampleInterval.Time()
		if m.sampleEvery == 0 {
			m.sampleEvery = max(m.runEnd/600/sim.Millisecond*sim.Millisecond, 10*sim.Millisecond)
		}
		m.samples = make([][]float64, len(Columns))
		m.sampler.Fn = m.sample
		w.At(&m.sampler, 0)
	}
	if cfg.CheckInvariants {
		m.checkInvariants()
	}
	return m, nil
}

// startWorkload starts the Config's dd writers and readers at time 0.
func (m *Machine) startWorkload() {
	wl := m.cfg.Workload
	for i := 0; i < wl.DD; i++ {
		d := workload.NewDD(m.k, wl.BS, wl.Count, wl.Fsync)
		d.Start(0)
		m.dds = append(m.dds, d)
	}
	for i := 0; i < wl.Readers; i++ {
		bs := wl.ReadBS
		if bs == 0 {
			bs = 4096
		}
		r := workload.NewReader(m.k, i, bs, wl.ReadRandom)
		r.Start(0)
		m.rds = append(m.rds, r)
	}
}

// checkInvariants checks the model's invariants after every event.
func (m *Machine) checkInvariants() {
	w, k := m.w, m.k
	last := sim.Time(0)
	w.AfterEvent = func() {
		if m.failure != nil {
			return
		}
		if w.Now() < last {
			m.fail(fmt.Errorf("invariant time-monotonic: %v after %v", w.Now(), last))
			return
		}
		last = w.Now()
		if err := k.CheckInvariants(); err != nil {
			m.fail(err)
			return
		}
		for _, d := range m.disks {
			if n, qd := d.Queue.Inflight(), d.Queue.Spec().QueueDepth; n > qd {
				m.fail(fmt.Errorf("invariant device-queue-depth: bdi %s: %d requests at the device, queue depth %d", d.BDI, n, qd))
			}
		}
	}
}

// Config is the machine's Config (the device as built, after the kernel preset's
// block layer).
func (m *Machine) Config() Config { return m.cfg }

// World is the machine's event loop and virtual clock.
func (m *Machine) World() *sim.World { return m.w }

// Kernel is the machine's kernel model.
func (m *Machine) Kernel() *kernel.Kernel { return m.k }

// Disks lists the machine's disks.
func (m *Machine) Disks() []Disk { return m.disks }

// DDs lists the Config's dd writers, in start order.
func (m *Machine) DDs() []*workload.DD { return m.dds }

// Now is the simulated time reached.
func (m *Machine) Now() Time { return m.w.Now() }

// Step fires the next event and reports whether there was one.
func (m *Machine) Step() bool { return m.w.Step() }

// RunUntil runs events up to simulated time t (at most the Config's runtime). It
// returns an invariant failure, ctx's error when cancelled, or nil (also when the
// workload ended early).
func (m *Machine) RunUntil(ctx context.Context, t Time) error {
	m.ctx = ctx
	err := m.w.Run(min(t, m.runEnd))
	if m.failure == nil {
		// bio-inside-device is checked on every run, not only with CheckInvariants
		for _, d := range m.disks {
			if e := d.Queue.CapacityErr(); e != nil {
				m.fail(e)
				break
			}
		}
	}
	if m.failure != nil {
		return m.failure
	}
	if m.idle {
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return nil
}

// Run runs the machine to the end of the Config's runtime (or until its
// count-limited workload is done).
func (m *Machine) Run(ctx context.Context) error { return m.RunUntil(ctx, m.runEnd) }

// Done reports that the run is over: the runtime was reached or the workload ended.
func (m *Machine) Done() bool { return m.idle || m.w.Now() >= m.runEnd }
