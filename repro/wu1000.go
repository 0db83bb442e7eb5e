package repro

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Wu's "writeback: hard throttle 1000+ dd on a slow USB stick" (commit
// 1df647197c5b, v3.2): 1000 dd on a USB stick beside one dd on the 2011 HDD, on
// 3.2's IO-less balance_dirty_pages with and without the hard throttle (the
// variant bdp_global_exit is the loop exit of 3.2-rc before the commit). Nothing
// here branches on the experiment: it builds the machines and measures.
var wu2011Stick = Experiment{
	Name:   "wu-2011-1000dd-stick",
	ID:     "wu2011stick",
	Title:  "Wu 2011, 1000 dd on a USB stick",
	Thread: "(commit 1df647197c5b, \"writeback: hard throttle 1000+ dd on a slow USB stick\"; no thread copy)",
	Doc: "1000 dd bs=4k on a usb2-stick (ext4) beside 1 dd on a wu2011-hdd (ext4), 3.2 IO-less throttling with and " +
		"without Wu's hard throttle (variant bdp_global_exit = 3.2-rc before it): the stick dd's task_ratelimit (its " +
		"minimum, and how often it is 0), the stick's dirty pages against its bdi_thresh and the global limit, the HDD " +
		"dd's throughput",
	Look: "1000 dd write to a slow USB stick while one dd writes to the HDD; A leaves balance_dirty_pages once the global " +
		"dirty count is under the limit (3.2-rc), B keeps a dd whose task_ratelimit rounded to 0 asleep (3.2). Compare " +
		"the Per disk chart (dirty, bdi_thresh) and cards, where the HDD's write rate shows which dd got through.",
	Mode: "ab", TestKernel: kernel.DefaultPreset,
	Setup: func() (engine.Config, error) { return wuStickConfig(true, 60*time.Second, 1) },
	run:   runWuStick,
}

const (
	wuStickDD    = 1000
	wuStickSeeds = 3
	wuStickWarm  = 60 * sim.Second
)

// wuStickConfig is the machine: the stick with the 1000 dd (sda), the HDD with
// one dd (sdb); 4 GiB, dirty_ratio 20, background 10.
func wuStickConfig(globalExit bool, runtime time.Duration, seed uint64) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	cfg.Kernel, cfg.Seed = kernel.DefaultPreset, seed
	if globalExit {
		cfg.Variants = kernel.Overrides{"bdp_global_exit": true}
	}
	cfg.DirtyBytes, cfg.DirtyRatio, cfg.DirtyBackgroundRatio = 0, 20, 10
	cfg.CPUs, cfg.MemoryMB = 4, 4096
	cfg.Runtime = engine.Duration(runtime)
	stick, hdd, err := stickAndHDD()
	if err != nil {
		return cfg, err
	}
	cfg.Disks = []engine.DiskConfig{
		{Device: stick, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(), Workload: engine.Workload{DD: wuStickDD, BS: 4096}},
		{Device: hdd, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(), Workload: engine.Workload{DD: 1, BS: 4096}},
	}
	cfg.Case = fmt.Sprintf("wu-2011-1000dd-stick/global_exit=%v", globalExit)
	return cfg, cfg.Validate()
}

// wuStickOutcome is what one run measured after the first 10 s.
type wuStickOutcome struct {
	minTaskKBps       float64 // the smallest task_ratelimit of a stick dd at a sample
	zeroShare         float64 // samples × stick dd whose last task_ratelimit was 0
	stickRateKBps     float64 // mean dirty_ratelimit of the stick's bdi
	stickDirtyMB      float64 // mean dirty + writeback on the stick
	stickMaxMB        float64
	stickThreshMB     float64 // mean bdi_thresh of the stick
	globalMB, limitMB float64 // mean global dirty + writeback, and the dirty threshold
	hddMBps           float64 // the HDD's write-back rate
	stickMBps         float64
	exitDiffers       float64 // balance_dirty_pages exits where the two rules differ
}

func runWuStickOne(ctx context.Context, cfg engine.Config) (wuStickOutcome, error) {
	var o wuStickOutcome
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return o, err
	}
	k := m.Kernel()
	stick, hdd := k.BDIs()[0], k.BDIs()[1]
	dds := m.DDs()[:wuStickDD]
	// the 1000 dd's first rounds overshoot the global limit (each is allowed
	// dirty_poll_interval pages below freerun); figures are taken once the
	// stick has written that back
	warm := wuStickWarm
	if err := m.RunUntil(ctx, warm); err != nil {
		return o, err
	}
	hdd0, stick0 := hdd.Stats.Written, stick.Stats.Written
	step := 100 * sim.Millisecond
	var n, zero, ddSamples int64
	var sumRate, sumDirty, sumThresh, sumGlobal, sumLimit, maxDirty int64
	minTask := int64(-1)
	for t := warm + step; !m.Done(); t += step {
		if err := m.RunUntil(ctx, t); err != nil {
			return o, err
		}
		n++
		for _, d := range dds {
			bw := d.Thread().Stats.LastTaskBW
			if d.Thread().Stats.Pauses == 0 {
				continue
			}
			ddSamples++
			if bw == 0 {
				zero++
			}
			if minTask < 0 || bw < minTask {
				minTask = bw
			}
		}
		sumRate += stick.DirtyRatelimit
		dirty := stick.Stats.Reclaimable + stick.Stats.Writeback
		sumDirty += dirty
		maxDirty = max(maxDirty, dirty)
		sumThresh += k.BdiThresh(stick)
		sumGlobal += k.G.NrFileDirty + k.G.NrWriteback
		_, thresh, _, _ := k.DirtyLimits()
		sumLimit += thresh
	}
	if n == 0 {
		return o, fmt.Errorf("run shorter than the %v warm-up", wuStickWarm)
	}
	secs := (m.Now() - warm).Seconds()
	kb := func(pages int64) float64 { return float64(pages) * 4 }
	o.minTaskKBps = kb(max(minTask, 0))
	if ddSamples > 0 {
		o.zeroShare = float64(zero) / float64(ddSamples)
	}
	o.stickRateKBps = kb(sumRate / n)
	o.stickDirtyMB, o.stickMaxMB = mbOf(sumDirty/n), mbOf(maxDirty)
	o.stickThreshMB = mbOf(sumThresh / n)
	o.globalMB, o.limitMB = mbOf(sumGlobal/n), mbOf(sumLimit/n)
	o.hddMBps = mbOf(hdd.Stats.Written-hdd0) / secs
	o.stickMBps = mbOf(stick.Stats.Written-stick0) / secs
	o.exitDiffers = float64(m.Result().SwitchActivity["balance_dirty_pages.loop_exit_differs"])
	return o, nil
}

func runWuStick(ctx context.Context, quick bool) (*Report, error) {
	// quick is the same: the six runs take about 20 s
	runtime := 120 * time.Second
	rep := &Report{Figures: map[string]float64{}}
	var b strings.Builder
	fmt.Fprintf(&b, "%d dd bs=4k on usb2-stick/ext4 beside 1 dd on wu2011-hdd/ext4, %s (3.2 IO-less), 4 GiB, dirty_ratio 20;\n",
		wuStickDD, kernel.DefaultPreset)
	fmt.Fprintf(&b, "%v, figures after the first %.0f s (the start's overshoot written back), means of %d seeds\n\n", runtime, wuStickWarm.Seconds(), wuStickSeeds)
	fmt.Fprintf(&b, "%-26s %9s %7s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n", "balance_dirty_pages exit", "min task", "rate 0",
		"stick", "stick", "stick", "stick", "global", "dirty", "HDD", "stick", "exits")
	fmt.Fprintf(&b, "%-26s %9s %7s %9s %9s %9s %9s %9s %9s %9s %8s %8s\n", "", "KB/s", "share", "rate KB/s", "dirty MB",
		"max MB", "thr MB", "dirty MB", "thr MB", "MB/s", "MB/s", "differ")
	for _, row := range []struct {
		name       string
		key        string
		globalExit bool
	}{
		{"3.2-rc: dirty < limit", "global_exit", true},
		{"3.2: hard throttle", "hard_throttle", false},
	} {
		outs, err := runSeeds(ctx, row.name, wuStickSeeds, func(s uint64) (engine.Config, error) {
			return wuStickConfig(row.globalExit, runtime, s)
		}, runWuStickOne)
		if err != nil {
			return nil, err
		}
		mean := func(f func(wuStickOutcome) float64) float64 { return meanOf(outs, f) }
		figs := []struct {
			name string
			v    float64
		}{
			{"min_task_ratelimit_KBps", mean(func(o wuStickOutcome) float64 { return o.minTaskKBps })},
			{"zero_rate_share", mean(func(o wuStickOutcome) float64 { return o.zeroShare })},
			{"stick_dirty_ratelimit_KBps", mean(func(o wuStickOutcome) float64 { return o.stickRateKBps })},
			{"stick_dirty_MB", mean(func(o wuStickOutcome) float64 { return o.stickDirtyMB })},
			{"stick_dirty_max_MB", mean(func(o wuStickOutcome) float64 { return o.stickMaxMB })},
			{"stick_thresh_MB", mean(func(o wuStickOutcome) float64 { return o.stickThreshMB })},
			{"global_dirty_MB", mean(func(o wuStickOutcome) float64 { return o.globalMB })},
			{"dirty_thresh_MB", mean(func(o wuStickOutcome) float64 { return o.limitMB })},
			{"hdd_MBps", mean(func(o wuStickOutcome) float64 { return o.hddMBps })},
			{"stick_MBps", mean(func(o wuStickOutcome) float64 { return o.stickMBps })},
			{"loop_exit_differs", mean(func(o wuStickOutcome) float64 { return o.exitDiffers })},
		}
		for _, f := range figs {
			rep.Figures[row.key+"."+f.name] = f.v
		}
		fmt.Fprintf(&b, "%-26s %9.2f %7.3f %9.1f %9.1f %9.1f %9.1f %9.1f %9.1f %9.2f %8.2f %8.0f\n", row.name,
			figs[0].v, figs[1].v, figs[2].v, figs[3].v, figs[4].v, figs[5].v, figs[6].v, figs[7].v, figs[8].v, figs[9].v, figs[10].v)
	}
	b.WriteString("\nmin task: the smallest task_ratelimit of a stick dd at any 100 ms sample; rate 0: the share of stick-dd samples\n" +
		"whose last task_ratelimit was 0 (pos_ratio 0 at the global limit, or dirty_ratelimit at its floor); stick rate: the bdi's\n" +
		"dirty_ratelimit; thr: its bdi_thresh; global: NR_FILE_DIRTY + NR_WRITEBACK, against the dirty threshold;\n" +
		"exits differ: balance_dirty_pages decisions after a pause where the hard-throttle and the global rule disagree.\n")
	rep.Text = b.String()
	return rep, nil
}
