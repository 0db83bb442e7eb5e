package engine

import (
	"context"
	"fmt"
	"slices"

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
// and bench all start here); its recorder samples the time series and assembles
// the Result. Tests use it like etcd raft's RawNode: Build, then Step or RunUntil,
// inspecting World, Kernel and Disks in between, and Result at the end.
type Machine struct {
	cfg   Config
	ctx   context.Context
	w     *sim.World
	k     *kernel.Kernel
	disks []Disk
	dds   []*workload.DD
	rds   []*workload.Reader
	eds   []*workload.Editor
	// the disk of each dd, reader and editor
	ddDisk, rdDisk, edDisk []int
	tr                     *trace.Buffer
	tp                     *trace.Printer // the kernel's and the queues' one tracer: renders into tr

	runEnd  sim.Time
	failure error
	idle    bool      // every dd finished and all pages are clean: the run ended early
	rec     *recorder // the time series and the Result
}

// Disk is one block device of a Machine: its spec (hardware plus the block layer
// the kernel preset and the run's overrides gave it), its request queue and the
// filesystem mounted on it.
type Disk struct {
	Spec  devices.Spec
	Queue *devices.Queue
	FS    kernel.Filesystem
	BDI   string // major:minor as trace lines print it
}

// BuildOptions change what Build puts on the machine, never how a part is built.
type BuildOptions struct {
	// WrapFS, when set, wraps each disk's filesystem model before it is mounted (a
	// reproduction that injects a condition, e.g. ->write_inode returning EAGAIN).
	WrapFS func(kernel.Filesystem) kernel.Filesystem
	// NoWorkload leaves out the Config's dd writers, readers and editors: the
	// caller starts its own tasks on Kernel() (the first disk's workload fields are
	// then ignored).
	NoWorkload bool
	// NoSeries leaves out the time-series sampler (Result.Series stays empty).
	NoSeries bool
}

// Build validates cfg and builds its machine at time 0; nothing has run yet.
func Build(cfg Config, opt BuildOptions) (*Machine, error) {
	check := cfg
	if opt.NoWorkload && len(cfg.Disks) > 0 {
		check.Disks = slices.Clone(cfg.Disks)
		check.Disks[0].Workload = Workload{DD: 1, BS: 4096}
	}
	r, err := check.Resolve()
	if err != nil {
		return nil, err
	}
	cfg.Disks = slices.Clone(cfg.Disks) // the caller's slice stays as it was
	for i := range cfg.Disks {
		cfg.Disks[i].Device = r.Config.Disks[i].Device // as built
	}
	w := sim.NewWorld(cfg.HZ, cfg.Seed)
	w.SetCPUSpeed(cfg.CPUSpeedPct)
	w.SetVariation(sim.MachineVariation()) // a real machine's timer, wakeup and CPU variation
	k, err := kernel.New(w, r.Params)
	if err != nil {
		return nil, err
	}
	m := &Machine{cfg: cfg, ctx: context.Background(), w: w, k: k, runEnd: cfg.Runtime.Time()}
	for i, d := range cfg.Disks {
		if err := m.mount(i, d, r.Disks[i], opt.WrapFS); err != nil {
			return nil, err
		}
	}
	m.rec = newRecorder(m)
	if cfg.TraceLines > 0 {
		m.tr = trace.New(cfg.TraceLines)
		if cfg.TraceSampled {
			m.tr.SetSampled()
		}
		m.tr.SetWindow(cfg.TraceFrom.Time(), cfg.TraceUntil.Time())
		wording := trace.V32
		if r.Params.Variants.On(kernel.SwTraceV66) {
			wording = trace.V66
		}
		m.tp = trace.NewPrinter(wording, m.tr)
		k.SetTracer(m.tp)
	}
	if !opt.NoWorkload {
		m.startWorkload()
	}
	if m.tp != nil {
		for _, d := range m.disks {
			d.Queue.SetTracer(m.tp)
		}
	}
	if !opt.NoSeries {
		m.rec.start(cfg.SampleInterval.Time())
	}
	if cfg.CheckInvariants {
		m.checkInvariants()
	}
	return m, nil
}

// mount builds disk i's request queue and filesystem and mounts it on the kernel.
func (m *Machine) mount(i int, d DiskConfig, r ResolvedDisk, wrap func(kernel.Filesystem) kernel.Filesystem) error {
	prefix := diskPrefix(i)
	q, err := devices.New(m.w, d.Device, r.Block)
	if err != nil {
		return fmt.Errorf("%sdevice: %w", prefix, err)
	}
	if i > 0 {
		q.SetDevName(r.BDI)
	}
	f, err := fs.New(d.Filesystem)
	if err != nil {
		return fmt.Errorf("%sfs: %w", prefix, err)
	}
	if wrap != nil {
		f = wrap(f)
	}
	if _, err := m.k.AddDisk(r.BDI, q, f, d.BDI); err != nil {
		return fmt.Errorf("%s%w", prefix, err)
	}
	m.disks = append(m.disks, Disk{Spec: d.Device, Queue: q, FS: f, BDI: r.BDI})
	return nil
}

// startWorkload starts every disk's dd writers, readers and editors at time 0,
// disk by disk.
func (m *Machine) startWorkload() {
	for i, b := range m.k.BDIs() {
		wl := m.cfg.Disks[i].Workload
		for range wl.DD {
			d := workload.NewDDOn(m.k, b, wl.BS, wl.Count, wl.Fsync)
			d.Start(0)
			m.dds = append(m.dds, d)
			m.ddDisk = append(m.ddDisk, i)
		}
		for j := range wl.Readers {
			r := workload.NewReaderOn(m.k, b, j, max(wl.ReadBS, 4096), wl.ReadRandom)
			r.Start(0)
			m.rds = append(m.rds, r)
			m.rdDisk = append(m.rdDisk, i)
		}
		bytes, iv := wl.EditorBytes, wl.EditorInterval
		if bytes == 0 {
			bytes = DefaultEditorBytes
		}
		if iv == 0 {
			iv = DefaultEditorInterval
		}
		for range wl.Editors {
			e := workload.NewEditorOn(m.k, b, bytes, iv.Time())
			e.Start(0)
			m.eds = append(m.eds, e)
			m.edDisk = append(m.edDisk, i)
		}
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

// Result is what the machine measured so far (the whole run after Run).
func (m *Machine) Result() *Result { return m.rec.result() }
