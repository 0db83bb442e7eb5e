package repro

import (
	"context"
	"fmt"
	"github.com/wblab/wblab/engine"
	"strings"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// Axboe 2009 (../shared/threads/axboe-2009-per-bdi-flusher-threads.txt): "1) Large
// file writes from a single process 2) Random file writes from multiple (16)
// processes ... Intel X25-E ... ext4 without barriers ... Core 2 Quad with 2G of
// memory": per-bdi vs 2.6.30-rc6 (= 100) TPS 101 / CPU 95 for test 1, TPS 105 /
// CPU 94 for test 2.
var axboe2009 = Experiment{
	Name:   "axboe-2009",
	ID:     "axboe2009",
	Title:  "Axboe 2009",
	Thread: "axboe-2009-per-bdi-flusher-threads.txt",
	Doc: "x25e, ext4, 4 CPUs, 2 GB: (1) one large-file writer, (2) 16 random writers; per-bdi flushers vs " +
		"pdflush (= 100): TPS and CPU (thread: 101/95 and 105/94)",
	Look: "ext4 on an Intel X25-E SSD with 4 CPUs and 2 GB: 2.6.30-rc6 writes back through pdflush threads, the per-bdi " +
		"series gives each device its own flusher. Compare write_bw of A and B for this one large-file writer, and how " +
		"much of the writeback the dd does itself (its CPU in the JSON's cpu_by_actor; the CPU card is the whole machine's).",
	Mode: "ab", TestKernel: "2.6.30-rc6+per-bdi",
	Setup: func() (engine.Config, error) { return axboeSeqConfig("2.6.30-rc6", 1, 8192) },
	run:   runAxboe2009,
}

var axboeKernels = []string{"2.6.30-rc6", "2.6.30-rc6+per-bdi"}

// axboeOutcome is one benchmark run: transactions per second (test 1: MB written
// by write(); test 2: write() calls), the CPU time of the benchmark's own threads
// (the writers: their write() path and the writeback balance_dirty_pages makes them
// do), the CPU time of the whole machine (every thread plus IO completion), and
// who wrote the data back.
type axboeOutcome struct {
	tps, elapsedS float64
	benchCPUS     float64 // the writers' CPU time (ffsb's %CPU Utilization × elapsed)
	sysCPUS       float64 // every thread's CPU time plus interrupt-context IO completion
	ownPages      int64   // pages the writers wrote back themselves
	allPages      int64   // pages written back by anyone
	pd            kernel.PdflushStats
	act           map[string]int64 // switch_activity of the run
}

// axboeMachine is the thread's box: Core 2 Quad, 2 GB, X25-E, ext4 (the model's ext4
// always issues its commit block with FUA; the x25e model has no volatile cache, so
// "without barriers" changes nothing there), v2.6.30 default dirty ratios 20/10.
func axboeMachine(kernelName string, seed uint64, runtime sim.Time) (*sim.World, *kernel.Kernel, error) {
	cfg, err := axboeBase(kernelName, seed, runtime)
	if err != nil {
		return nil, nil, err
	}
	m, err := engine.Build(cfg, engine.BuildOptions{NoWorkload: true, NoSeries: true})
	if err != nil {
		return nil, nil, err
	}
	return m.World(), m.Kernel(), nil
}

// axboeBase is the box's config; the experiment starts its own writers on it.
func axboeBase(kernelName string, seed uint64, runtime sim.Time) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	dev, err := devices.Preset("x25e")
	if err != nil {
		return cfg, err
	}
	cfg.Kernel, cfg.Disks[0].Device, cfg.Disks[0].Filesystem, cfg.Seed = kernelName, dev, "ext4", seed
	cfg.CPUs, cfg.MemoryMB, cfg.DirtyBytes, cfg.DirtyRatio, cfg.DirtyBackgroundRatio = 4, 2048, 0, 20, 10
	cfg.Runtime = engine.Duration(runtime)
	return cfg, nil
}

// axboeSeqConfig is test 1 as a plain run (the page's A/B): one dd of sizeMB, bs=1M.
func axboeSeqConfig(kernelName string, seed uint64, sizeMB int64) (engine.Config, error) {
	cfg, err := axboeBase(kernelName, seed, sim.Time(sizeMB)*sim.Second)
	cfg.Disks[0].Workload = engine.Workload{DD: 1, BS: 1 << 20, Count: sizeMB}
	return cfg, err
}

// axboeCPU is the CPU column. The thread's benchmark was ffsb (the series' commit
// message: "A sample ffsb workload that does random writes to files"), whose output
// has "Transactions per Second" and "% CPU Utilization". ffsb takes the latter from
// getrusage() of its own process (util.c: ffsb_getrusage, RUSAGE_SELF and
// RUSAGE_CHILDREN; main.c is not in the stored sources, but a stored FFSB 6.0-RC2
// report prints "0.5% User Time, 10.8% System Time, 11.3% CPU Utilization": the
// last is the sum, a share of the run time): user + system time of the benchmark's
// threads (one process, pthreads) over the run, not the machine's /proc/stat.
// That includes the kernel work done in their context (the write() path,
// balance_dirty_pages and the writeback it makes a dirtier do) and excludes the
// pdflush and flush-8:0 threads. Interrupt-context IO completion is left out too:
// 2.6.30's tick-sampled accounting charges it to whatever task is running, and the
// writers run 4-12% of the time.
func axboeCPU(k *kernel.Kernel, writers []*kernel.Thread) (o axboeOutcome) {
	for _, th := range writers {
		o.benchCPUS += th.Task.CPUTime().Seconds()
		o.ownPages += th.Stats.PagesSubmitted
	}
	sys := k.IrqCPU()
	for _, th := range k.Threads() {
		sys += th.Task.CPUTime()
		o.allPages += th.Stats.PagesSubmitted
	}
	o.sysCPUS = sys.Seconds()
	o.pd = k.PdflushStats()
	o.act = k.SwitchActivity()
	return o
}

// axboeSequential is test 1: one dd writing a file of sizeMB with bs=1M; TPS is its
// MB/s from start to exit.
func axboeSequential(ctx context.Context, kernelName string, seed uint64, sizeMB int64) (axboeOutcome, error) {
	w, k, err := axboeMachine(kernelName, seed, sim.Time(sizeMB)*sim.Second)
	if err != nil {
		return axboeOutcome{}, err
	}
	d := workload.NewDD(k, 1<<20, sizeMB, false)
	d.Start(0)
	for !d.Done && w.Now() < sim.Time(sizeMB)*sim.Second {
		if err := ctx.Err(); err != nil {
			return axboeOutcome{}, err
		}
		if err := w.Run(w.Now() + sim.Second); err != nil {
			return axboeOutcome{}, err
		}
	}
	if !d.Done {
		return axboeOutcome{}, fmt.Errorf("%s: the writer did not finish", kernelName)
	}
	o := axboeCPU(k, []*kernel.Thread{d.Thread()})
	o.elapsedS = (d.Ended - d.Started).Seconds()
	o.tps = float64(sizeMB) / o.elapsedS
	return o, nil
}

// axboeRandom is test 2: 16 processes writing 4 KiB at random offsets of their own
// 1 GB files for runtime; TPS is write() calls per second.
func axboeRandom(ctx context.Context, kernelName string, seed uint64, runtime sim.Time) (axboeOutcome, error) {
	w, k, err := axboeMachine(kernelName, seed, runtime)
	if err != nil {
		return axboeOutcome{}, err
	}
	var ws []*workload.RandomWriter
	for range 16 {
		r := workload.NewRandomWriter(k, 4096, 1<<30, 0)
		r.Start(0)
		ws = append(ws, r)
	}
	for w.Now() < runtime {
		if err := ctx.Err(); err != nil {
			return axboeOutcome{}, err
		}
		if err := w.Run(min(w.Now()+sim.Second, runtime)); err != nil {
			return axboeOutcome{}, err
		}
	}
	var n int64
	var ths []*kernel.Thread
	for _, r := range ws {
		n += r.Writes
		ths = append(ths, r.Thread())
	}
	o := axboeCPU(k, ths)
	o.elapsedS = runtime.Seconds()
	o.tps = float64(n) / o.elapsedS
	return o, nil
}

// axboeSeeds is how many seeds each (kernel, test) runs: Axboe ran each test three
// times on each kernel.
const axboeSeeds = 3

// axboeSpread is a per-seed figure's mean and range over the seeds.
type axboeSpread struct{ mean, min, max float64 }

func spreadOf(xs []float64) axboeSpread {
	s := axboeSpread{min: xs[0], max: xs[0]}
	for _, x := range xs {
		s.mean += x / float64(len(xs))
		s.min, s.max = min(s.min, x), max(s.max, x)
	}
	return s
}

func runAxboe2009(ctx context.Context, quick bool) (*Report, error) {
	sizeMB, runtime := int64(8192), 120*sim.Second
	if quick {
		sizeMB, runtime = 3072, 30*sim.Second
	}
	// out[seed][i]: seq pdflush, seq per-bdi, rand pdflush, rand per-bdi
	out := make([][4]axboeOutcome, axboeSeeds)
	errs := make([]error, 4*axboeSeeds)
	parallel(4*axboeSeeds, func(j int) {
		seed, i := j/4, j%4
		kn := axboeKernels[i%2]
		if i < 2 {
			out[seed][i], errs[j] = axboeSequential(ctx, kn, uint64(seed+1), sizeMB)
		} else {
			out[seed][i], errs[j] = axboeRandom(ctx, kn, uint64(seed+1), runtime)
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	// CPU is the writers' CPU utilisation over the benchmark (axboeCPU); sys_cpu is
	// the whole machine's, for comparison. Ratios are paired by seed.
	util := func(o axboeOutcome) float64 { return o.benchCPUS / o.elapsedS }
	sys := func(o axboeOutcome) float64 { return o.sysCPUS / o.elapsedS }
	own := func(o axboeOutcome) float64 { return float64(o.ownPages) / float64(max(o.allPages, 1)) }
	tps := func(o axboeOutcome) float64 { return o.tps }
	// over the seeds: fn of run i
	each := func(i int, fn func(axboeOutcome) float64) axboeSpread {
		xs := make([]float64, axboeSeeds)
		for s := range out {
			xs[s] = fn(out[s][i])
		}
		return spreadOf(xs)
	}
	// per-bdi over pdflush, ×100, paired by seed: base run i, test run i+1
	rel := func(i int, fn func(axboeOutcome) float64) axboeSpread {
		xs := make([]float64, axboeSeeds)
		for s := range out {
			xs[s] = 100 * fn(out[s][i+1]) / fn(out[s][i])
		}
		return spreadOf(xs)
	}
	f := map[string]float64{"seeds": axboeSeeds}
	put := func(key string, sp axboeSpread) {
		f[key], f[key+"_min"], f[key+"_max"] = sp.mean, sp.min, sp.max
	}
	put("seq_tps", rel(0, tps))
	put("seq_cpu", rel(0, util))
	put("rand_tps", rel(2, tps))
	put("rand_cpu", rel(2, util))
	put("seq_sys_cpu", rel(0, sys))
	put("rand_sys_cpu", rel(2, sys))
	for i, name := range []string{"seq_pdflush", "seq_perbdi", "rand_pdflush", "rand_perbdi"} {
		unit := "_MBps"
		if i >= 2 {
			unit = "_tps"
		}
		f[name+unit] = each(i, tps).mean
		f[name+"_cpu_util"] = each(i, util).mean
		f[name+"_sys_util"] = each(i, sys).mean
		f[name+"_own_share"] = each(i, own).mean
		// the paths behind who writes back: congestion_wait sleeps (2.6.30's
		// pdflush and balance_dirty_pages) and WB_SYNC_NONE writebacks that found
		// the inode under I_SYNC (a dirtier finding the flusher on its file)
		f[name+"_congestion_waits"] = each(i, func(o axboeOutcome) float64 { return float64(o.act["congestion_wait"]) }).mean
		f[name+"_i_sync_skips"] = each(i, func(o axboeOutcome) float64 { return float64(o.act["i_sync_skip"]) }).mean
	}
	maxThreads := func(i int) float64 {
		return each(i, func(o axboeOutcome) float64 { return float64(o.pd.MaxThreads) }).max
	}
	f["seq_pdflush_threads"], f["rand_pdflush_threads"] = maxThreads(0), maxThreads(2)

	var b strings.Builder
	fmt.Fprintf(&b, "axboe-2009: x25e, ext4, 4 CPUs, 2 GB; test 1: %d MB dd bs=1M, test 2: 16 random 4k writers for %.0f s; seeds 1-%d\n",
		sizeMB, runtime.Seconds(), axboeSeeds)
	fmt.Fprintf(&b, "CPU = the writers' own CPU time / run time (ffsb's %%CPU Utilization); sys = the whole machine's\n")
	fmt.Fprintf(&b, "per-bdi / pdflush × 100, paired by seed: mean [min-max]\n")
	fmt.Fprintf(&b, "%-10s %-5s %-17s %-17s %-17s  thread\n", "Kernel", "Test", "TPS", "CPU", "sys")
	cell := func(key string) string {
		return fmt.Sprintf("%5.1f [%.1f-%.1f]", f[key], f[key+"_min"], f[key+"_max"])
	}
	fmt.Fprintf(&b, "%-10s %-5d %-17s %-17s %-17s  100 100\n", "Baseline", 1, "100", "100", "100")
	fmt.Fprintf(&b, "%-10s %-5d %-17s %-17s %-17s  101  95\n", "Writeback", 1, cell("seq_tps"), cell("seq_cpu"), cell("seq_sys_cpu"))
	fmt.Fprintf(&b, "%-10s %-5d %-17s %-17s %-17s  100 100\n", "Baseline", 2, "100", "100", "100")
	fmt.Fprintf(&b, "%-10s %-5d %-17s %-17s %-17s  105  94\n", "Writeback", 2, cell("rand_tps"), cell("rand_cpu"), cell("rand_sys_cpu"))
	fmt.Fprintf(&b, "absolute, means (pdflush / per-bdi): test 1 %.1f / %.1f MB/s, test 2 %.0f / %.0f writes/s\n",
		f["seq_pdflush_MBps"], f["seq_perbdi_MBps"], f["rand_pdflush_tps"], f["rand_perbdi_tps"])
	fmt.Fprintf(&b, "  writers' CPU utilisation: test 1 %.3f / %.3f, test 2 %.3f / %.3f; machine: %.3f / %.3f and %.3f / %.3f\n",
		f["seq_pdflush_cpu_util"], f["seq_perbdi_cpu_util"], f["rand_pdflush_cpu_util"], f["rand_perbdi_cpu_util"],
		f["seq_pdflush_sys_util"], f["seq_perbdi_sys_util"], f["rand_pdflush_sys_util"], f["rand_perbdi_sys_util"])
	fmt.Fprintf(&b, "  pages the writers wrote back themselves: test 1 %.0f%% / %.0f%%, test 2 %.0f%% / %.0f%%\n",
		100*f["seq_pdflush_own_share"], 100*f["seq_perbdi_own_share"], 100*f["rand_pdflush_own_share"], 100*f["rand_perbdi_own_share"])
	fmt.Fprintf(&b, "  congestion_wait sleeps: test 1 %.0f / %.0f, test 2 %.0f / %.0f; I_SYNC skips: test 1 %.0f / %.0f, test 2 %.0f / %.0f\n",
		f["seq_pdflush_congestion_waits"], f["seq_perbdi_congestion_waits"], f["rand_pdflush_congestion_waits"], f["rand_perbdi_congestion_waits"],
		f["seq_pdflush_i_sync_skips"], f["seq_perbdi_i_sync_skips"], f["rand_pdflush_i_sync_skips"], f["rand_perbdi_i_sync_skips"])
	for i, name := range []string{"test 1", "test 2"} {
		pd := out[0][2*i].pd
		fmt.Fprintf(&b, "  pdflush pool, %s, seed 1: up to %d threads (%d started, %d exited), pdflush_operation %d ok / %d failed\n",
			name, pd.MaxThreads, pd.Started, pd.Exited, pd.Operations, pd.Failed)
	}
	return &Report{Figures: f, Text: b.String()}, nil
}
