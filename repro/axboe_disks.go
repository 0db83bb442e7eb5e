package repro

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/stats"
)

// Axboe 2009 with more disks: "I'd expect larger improvements on systems with more
// disks" (../shared/threads/axboe-2009-per-bdi-flusher-threads.txt). The thread
// measured one X25-E; this runs 1, 2 and 4 of them, one large-file dd writer each,
// on the shared pdflush pool and with a flusher per disk.
var axboe2009Disks = Experiment{
	Name:   "axboe-2009-disks",
	ID:     "axboe2009disks",
	Title:  "Axboe 2009, 4 disks",
	Thread: "axboe-2009-per-bdi-flusher-threads.txt",
	Doc: "1, 2 and 4 x25e disks (ext4, 4 CPUs, 2 GB, one dd bs=1M per disk, 60 s): 2.6.30 pdflush vs per-bdi " +
		"flushers: aggregate write MB/s, CPU seconds, and how evenly the disks are served (min/max written)",
	Look: "Four X25-E SSDs each get one large-file dd: A writes back through 2.6.30's shared pdflush pool and B gives each " +
		"disk its own flusher. Compare write_bw and the CPU card of A and B, and each disk's share in the JSON export's \"disks\".",
	Mode: "ab", TestKernel: "2.6.30-rc6+per-bdi",
	Setup: func() (engine.Config, error) { return axboeDisksConfig("2.6.30-rc6", 4, 1, 60*time.Second) },
	run:   runAxboeDisks,
}

func axboeDisksConfig(kernelName string, n int, seed uint64, runtime time.Duration) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	dev, err := devices.Preset("x25e")
	if err != nil {
		return cfg, err
	}
	cfg.Kernel, cfg.Seed = kernelName, seed
	cfg.CPUs, cfg.MemoryMB, cfg.DirtyBytes, cfg.DirtyRatio, cfg.DirtyBackgroundRatio = 4, 2048, 0, 20, 10
	cfg.Runtime = engine.Duration(runtime)
	disks := make([]engine.DiskConfig, n)
	for i := range disks {
		disks[i] = engine.DiskConfig{Device: dev, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(),
			Workload: engine.Workload{DD: 1, BS: 1 << 20}}
	}
	cfg.Disks = disks
	cfg.Case = fmt.Sprintf("axboe-2009-disks/%s-%d", kernelName, n)
	return cfg, cfg.Validate()
}

const axboeDisksSeeds = 3

func runAxboeDisks(ctx context.Context, quick bool) (*Report, error) {
	runtime := 60 * time.Second
	if quick {
		runtime = 20 * time.Second
	}
	rep := &Report{Figures: map[string]float64{}}
	var b strings.Builder
	fmt.Fprintf(&b, "Axboe 2009 with more disks: x25e × N, ext4, one dd bs=1M per disk, %v, means of %d seeds\n\n", runtime, axboeDisksSeeds)
	fmt.Fprintf(&b, "%-20s %5s %12s %10s %10s %14s\n", "kernel", "disks", "write MB/s", "CPU s", "CPU s/GB", "min/max disk")
	for _, kname := range axboeKernels {
		for _, n := range []int{1, 2, 4} {
			var cfgs []engine.Config
			for s := uint64(1); s <= axboeDisksSeeds; s++ {
				cfg, err := axboeDisksConfig(kname, n, s, runtime)
				if err != nil {
					return nil, err
				}
				cfgs = append(cfgs, cfg)
			}
			res, err := engine.RunAll(ctx, cfgs)
			if err != nil {
				return nil, err
			}
			var bw, cpu, perGB, even []float64
			for _, r := range res {
				lo, hi := r.WrittenMB, r.WrittenMB // one disk: Result.Disks stays empty
				if len(r.Disks) > 0 {
					lo, hi = r.Disks[0].WrittenMB, r.Disks[0].WrittenMB
				}
				for _, d := range r.Disks {
					lo, hi = min(lo, d.WrittenMB), max(hi, d.WrittenMB)
				}
				bw = append(bw, r.WrittenMB/r.RuntimeS)
				cpu = append(cpu, r.CPUS)
				perGB = append(perGB, r.CPUS/(r.WrittenMB/1024))
				even = append(even, lo/hi)
			}
			sb, sc, sg, se := stats.Of(bw), stats.Of(cpu), stats.Of(perGB), stats.Of(even)
			key := fmt.Sprintf("%s.%d_disks.", kname, n)
			rep.Figures[key+"write_MBps"] = sb.Mean
			rep.Figures[key+"write_MBps_sd"] = sb.SD
			rep.Figures[key+"cpu_s"] = sc.Mean
			rep.Figures[key+"cpu_s_per_GB"] = sg.Mean
			rep.Figures[key+"min_over_max"] = se.Mean
			fmt.Fprintf(&b, "%-20s %5d %7.1f ±%-4.1f %10.2f %10.3f %14.3f\n", kname, n, sb.Mean, sb.SD, sc.Mean, sg.Mean, se.Mean)
		}
	}
	b.WriteString("\nwrite MB/s: pages written back over the run (± sd over seeds); CPU s: every thread and IO completion;\n" +
		"min/max disk: the least-written disk's MB over the most-written's (1 = evenly served).\n")
	rep.Text = b.String()
	return rep, nil
}
