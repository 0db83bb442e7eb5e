package repro

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// A strictlimit bdi that sat idle (issue 34): a USB stick with strict_limit=1 is
// first left idle while the HDD beside it is written, so its share of the
// writeout completions (the fprop fraction behind wb_thresh) decays towards 0;
// then a copy to it starts. 6.12.118's __wb_calc_thresh has no floor for that
// case (Jim Zhao's "raise wb_thresh to prevent write blocking with strictlimit"
// is 6.13), so the copier is throttled against a threshold near 0 until the
// stick's own completions raise it. Nothing here branches on the experiment.
var strictlimitIdle = Experiment{
	Name:   "strictlimit-idle",
	ID:     "strictlimitidle",
	Title:  "strictlimit stick after idle",
	Thread: "(issue 34; 6.13's \"mm/page-writeback: raise wb_thresh to prevent write blocking with strictlimit\"; no thread copy)",
	Doc: "a usb2-stick (ext4) with strict_limit=1 beside a wu2011-hdd (ext4) written by dd bs=1M: the stick idle for 60 s, " +
		"then dd bs=1M count=256 to it; 6.1 without the knob, 6.1 with the 6.2 knobs, 6.12 with strict_limit (after idle, and at " +
		"boot) and without: the stick's bdi_thresh when the copy starts, the copier's first-5-s MB, its " +
		"longest balance_dirty_pages pause and copy time",
	Look: "A copy to a USB stick with strict_limit=1 runs beside a dd on the 2011 HDD; A has Linux 6.1 with the 6.2 bdi knobs " +
		"and B Linux 6.12. The page starts the copy at once, and `wblab experiment strictlimit-idle` first leaves the stick " +
		"idle for 60 s, then compares the copier's pauses and the stick's bdi_thresh (Per disk chart and cards).",
	Mode: "ab", TestKernel: "6.12",
	Setup: func() (engine.Config, error) { return strictConfig(strictCases[1], true, 300*time.Second, 1) },
	run:   runStrictlimitIdle,
}

// strictCase is one row: a kernel, its overrides, strict_limit on the stick and
// how long the stick sits idle before the copy.
type strictCase struct {
	name, kernel string
	variants     kernel.Overrides
	strict       bool
	idle         sim.Time
}

const (
	strictIdle    = 60 * sim.Second
	strictCopyMB  = 256
	strictSeeds   = 3
	strictRuntime = 300 * time.Second
)

var strictCases = []strictCase{
	{name: "6.1 (no strict_limit)", kernel: "6.1", idle: strictIdle},
	{name: "6.1+6.2 knobs strict_limit", kernel: "6.1", variants: knobsV62, strict: true, idle: strictIdle},
	{name: "6.12 strict_limit", kernel: "6.12", strict: true, idle: strictIdle},
	{name: "6.12 strict_limit, copy at boot", kernel: "6.12", strict: true},
	{name: "6.12 (no strict_limit)", kernel: "6.12", idle: strictIdle},
}

// strictConfig is the two-disk machine: the stick (sda) and the HDD with its dd
// (sdb), 4 GiB, dirty_ratio 20, background 10. With copy the stick's dd is in the
// config (it starts at 0); runStrictOne adds it itself after the idle time.
func strictConfig(c strictCase, copy bool, runtime time.Duration, seed uint64) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	cfg.Kernel, cfg.Seed = c.kernel, seed
	cfg.Variants = c.variants
	cfg.DirtyBytes, cfg.DirtyRatio, cfg.DirtyBackgroundRatio = 0, 20, 10
	cfg.CPUs, cfg.MemoryMB = 4, 4096
	cfg.Runtime = engine.Duration(runtime)
	stick, hdd, err := stickAndHDD()
	if err != nil {
		return cfg, err
	}
	knobs := kernel.DefaultBdiKnobs()
	knobs.StrictLimit = c.strict
	var wl engine.Workload
	if copy {
		wl = engine.Workload{DD: 1, BS: 1 << 20, Count: strictCopyMB}
	}
	cfg.Disks = []engine.DiskConfig{
		{Device: stick, Filesystem: "ext4", BDI: knobs, Workload: wl},
		{Device: hdd, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(), Workload: engine.Workload{DD: 1, BS: 1 << 20}},
	}
	cfg.Case = "strictlimit-idle/" + strings.NewReplacer(" ", "_", ",", "").Replace(c.name)
	return cfg, cfg.Validate()
}

// strictOutcome is what one run measured of the stick's copy.
type strictOutcome struct {
	threshMB   float64 // the stick's bdi_thresh when the copy starts
	thresh5MB  float64 // and 5 s later
	first5MB   float64 // what the copier's write() calls got through in its first 5 s
	maxPauseMs float64 // its longest balance_dirty_pages pause
	copyS      float64 // from its start until its last write() returned
	done       bool
}

func runStrictOne(ctx context.Context, c strictCase, cfg engine.Config) (strictOutcome, error) {
	var o strictOutcome
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return o, err
	}
	k := m.Kernel()
	stick := k.BDIs()[0]
	if err := m.RunUntil(ctx, c.idle); err != nil {
		return o, err
	}
	o.threshMB = mbOf(k.BdiThresh(stick))
	d := workload.NewDDOn(k, stick, 1<<20, strictCopyMB, false)
	d.Start(c.idle)
	if err := m.RunUntil(ctx, c.idle+5*sim.Second); err != nil {
		return o, err
	}
	o.first5MB = float64(d.Written()) / (1 << 20)
	o.thresh5MB = mbOf(k.BdiThresh(stick))
	for t := c.idle + 6*sim.Second; !d.Done && !m.Done(); t += sim.Second {
		if err := m.RunUntil(ctx, t); err != nil {
			return o, err
		}
	}
	o.done = d.Done
	end := m.Now()
	if d.Done {
		end = d.Ended
	}
	o.copyS = (end - d.Started).Seconds()
	o.maxPauseMs = float64(d.Thread().Stats.MaxPause) / 1e6
	return o, nil
}

func runStrictlimitIdle(ctx context.Context, quick bool) (*Report, error) {
	rep := &Report{Figures: map[string]float64{}}
	var b strings.Builder
	fmt.Fprintf(&b, "strictlimit after idle: usb2-stick/ext4 (strict_limit as listed) beside wu2011-hdd/ext4 written by dd bs=1M;\n")
	fmt.Fprintf(&b, "the stick idle for %.0f s (unless listed), then dd bs=1M count=%d to it; 4 GiB, dirty_ratio 20, background 10;\nmeans of %d seeds\n\n",
		strictIdle.Seconds(), strictCopyMB, strictSeeds)
	fmt.Fprintf(&b, "%-32s %10s %10s %10s %10s %10s\n", "kernel / stick", "thresh MB", "thresh MB", "first 5 s", "max pause", "copy")
	fmt.Fprintf(&b, "%-32s %10s %10s %10s %10s %10s\n", "", "at start", "at 5 s", "MB", "ms", "s")
	for _, c := range strictCases {
		outs, err := runSeeds(ctx, c.name, strictSeeds, func(s uint64) (engine.Config, error) {
			return strictConfig(c, false, strictRuntime, s)
		}, func(ctx context.Context, cfg engine.Config) (strictOutcome, error) { return runStrictOne(ctx, c, cfg) })
		if err != nil {
			return nil, err
		}
		mean := func(f func(strictOutcome) float64) float64 { return meanOf(outs, f) }
		key := strings.NewReplacer(" ", "_", "=", "_", ".", "_", ",", "", "(", "", ")", "").Replace(c.name)
		figs := map[string]float64{
			"thresh_MB":    mean(func(o strictOutcome) float64 { return o.threshMB }),
			"thresh5_MB":   mean(func(o strictOutcome) float64 { return o.thresh5MB }),
			"first5_MB":    mean(func(o strictOutcome) float64 { return o.first5MB }),
			"max_pause_ms": mean(func(o strictOutcome) float64 { return o.maxPauseMs }),
			"copy_s":       mean(func(o strictOutcome) float64 { return o.copyS }),
		}
		for n, v := range figs {
			rep.Figures[key+"."+n] = v
		}
		unfinished := ""
		for _, o := range outs {
			if !o.done {
				unfinished = " (copy unfinished at the run's end)"
			}
		}
		fmt.Fprintf(&b, "%-32s %10.2f %10.2f %10.1f %10.0f %10.1f%s\n", c.name, figs["thresh_MB"], figs["thresh5_MB"], figs["first5_MB"],
			figs["max_pause_ms"], figs["copy_s"], unfinished)
	}
	b.WriteString("\nthresh: the stick's bdi_thresh (wb_thresh) when the copy starts and 5 s later; first 5 s: what the copier's write() calls got\n" +
		"through; max pause: its longest balance_dirty_pages sleep; copy: until its last write() returned (no fsync).\n")
	rep.Text = b.String()
	return rep, nil
}
