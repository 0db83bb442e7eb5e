package repro

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/stats"
)

// The USB-stick stall (LWN, "The pernicious USB-stick stall problem", 2013): a
// large copy to a slow USB stick while an editor on the fast disk saves a small
// file with fsync every second and a reader reads from it. Nothing here branches
// on the experiment: it builds two-disk machines from the presets and measures.
var usbStickStall = Experiment{
	Name:   "usb-stick-stall",
	ID:     "usbstick",
	Title:  "USB-stick stall",
	Thread: "(LWN 2013, \"The pernicious USB-stick stall problem\"; no thread copy)",
	Doc: "dd bs=1M of 1 GiB to a usb2-stick (ext4) next to a wu2011-hdd (ext4) with an editor (16 KiB + fsync every 1 s) " +
		"and a random 4k reader, on a 4 GiB desktop whose applications hold 3.5 GiB (swap on) with page reclaim; " +
		"2.6.30 pdflush, 3.1 IO-full, 3.2 IO-less and 6.1, 3.2 with 1 GiB more page cache, and the remedies dirty_bytes=16M, " +
		"the stick's max_ratio=1 (3.2 and 6.1), 6.2's strict_limit (alone, with max_ratio=1, with max_bytes=16M), wbt off, and 6.12 (alone, with strict_limit and max_bytes=16M): editor and reader latency, " +
		"per-bdi thresholds and dirty pages, direct-reclaim sleeps, copier exit, final sync",
	Look: "A 1 GiB copy to a slow USB stick runs beside the 2011 HDD on a desktop whose applications hold 3.5 of its 4 GiB, " +
		"where an editor saves a small file with fsync every second and a reader reads at random; A has 3.2's throttling and " +
		"reclaim and B has Linux 6.1's. Look at the Per disk cards (the reader's and editor's latency, the copier's exit) and " +
		"the Per disk chart (each bdi's dirty pages and threshold), and `wblab experiment usb-stick-stall` prints every kernel and remedy.",
	Mode: "ab", TestKernel: "6.1",
	Setup: func() (engine.Config, error) { return usbConfig(usbCases[2], 1024, 600*time.Second, 1) },
	run:   runUSBStickStall,
}

// usbCase is one row: a kernel preset, its switch overrides and a change to the machine.
type usbCase struct {
	name, kernel string
	variants     kernel.Overrides
	edit         func(c *engine.Config)
	anonMB       int64 // memory the applications hold; 0: usbAnonMB
}

var usbCases = []usbCase{
	{name: "2.6.30 pdflush", kernel: "2.6.30-rc6"},
	// 3.1's balance_dirty_pages is the 2.6.35-3.1 IO-full pause/backoff loop of the
	// 2.6.36 presets; 3.1 also scales the writeback chunk (writeback_chunk_size)
	{name: "3.1 IO-full", kernel: "2.6.36-rc1+fix", variants: kernel.Overrides{"scaled_chunk": true, "wait_iff_congested": true}},
	{name: "3.2 IO-less", kernel: kernel.DefaultPreset},
	{name: "6.1", kernel: "6.1"},
	// the same machine with 1.5 GiB more page cache: the dirty pages no longer fill the inactive list
	{name: "3.2 apps 2 GiB", kernel: kernel.DefaultPreset, anonMB: 2048},
	{name: "3.2 dirty_bytes=16M", kernel: kernel.DefaultPreset, edit: smallDirtyBytes},
	{name: "3.2 stick max_ratio=1", kernel: kernel.DefaultPreset, edit: func(c *engine.Config) { c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 1} }},
	{name: "6.1 dirty_bytes=16M", kernel: "6.1", edit: smallDirtyBytes},
	{name: "6.1 stick max_ratio=1", kernel: "6.1", edit: func(c *engine.Config) { c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 1} }},
	// strictlimit and max_bytes are 6.2's sysfs knobs (before 6.2 only FUSE mounts
	// get BDI_CAP_STRICTLIMIT): the 6.1 preset with the bdi_knobs_v62 variant
	{name: "6.1+6.2 knobs strictlimit", kernel: "6.1", variants: knobsV62, edit: func(c *engine.Config) {
		c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true}
	}},
	// strictlimit with a small max_ratio: the usual advice (FUSE's setting)
	{name: "6.1+6.2 knobs strict+max_ratio=1", kernel: "6.1", variants: knobsV62, edit: func(c *engine.Config) {
		c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 1, StrictLimit: true}
	}},
	{name: "6.1+6.2 knobs strict+max_bytes=16M", kernel: "6.1", variants: knobsV62, edit: func(c *engine.Config) {
		c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true, MaxBytes: 16 << 20}
	}},
	{name: "6.1 wbt off", kernel: "6.1", variants: kernel.Overrides{"wbt": false}},
	// 6.12 has the 6.2 knobs
	{name: "6.12", kernel: "6.12"},
	{name: "6.12 stick strict+max_bytes=16M", kernel: "6.12", edit: func(c *engine.Config) {
		c.Disks[0].BDI = kernel.BdiKnobs{MaxRatio: 100, StrictLimit: true, MaxBytes: 16 << 20}
	}},
}

var knobsV62 = kernel.Overrides{"bdi_knobs_v62": true}

func smallDirtyBytes(c *engine.Config) {
	c.DirtyRatio, c.DirtyBackgroundRatio, c.DirtyBytes, c.DirtyBackgroundBytes = 0, 0, 16<<20, 8<<20
}

// usbConfig is the two-disk machine: the stick with the copier (sda, so the page's
// form carries its dd), the fast disk with the editor and the reader (sdb). A 4 GiB desktop with the default ratios (dirty 20 %,
// background 10 %: ~750 MB may be dirty).
func usbConfig(c usbCase, copyMB int64, runtime time.Duration, seed uint64) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	cfg.Kernel, cfg.Seed = c.kernel, seed
	cfg.Variants = c.variants
	cfg.DirtyBytes, cfg.DirtyRatio, cfg.DirtyBackgroundRatio = 0, 20, 10
	cfg.CPUs, cfg.MemoryMB = 4, 4096
	// a desktop whose applications hold most of its memory, with swap
	anon := usbAnonMB
	if c.anonMB > 0 {
		anon = c.anonMB
	}
	cfg.Reclaim = &engine.ReclaimConfig{AnonMB: anon, Swap: true}
	cfg.Runtime = engine.Duration(runtime)
	stick, fast, err := stickAndHDD()
	if err != nil {
		return cfg, err
	}
	cfg.Disks = []engine.DiskConfig{
		{Device: stick, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(),
			Workload: engine.Workload{DD: 1, BS: 1 << 20, Count: copyMB}},
		{Device: fast, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(),
			Workload: engine.Workload{Editors: 1, Readers: 1, ReadRandom: true}},
	}
	if c.edit != nil {
		c.edit(&cfg)
	}
	cfg.Case = "usb-stick-stall/" + strings.ReplaceAll(c.name, " ", "_")
	return cfg, cfg.Validate()
}

// usbAnonMB is the memory the desktop's applications hold, of its 4 GiB: the page
// cache is the other ~500 MB, less than the 20 % dirty limit (~790 MB) that the
// kernels before 3.14 compute over all of memory with swap on (anonymous pages
// count as dirtyable), so the stick's dirty pages can fill the page cache.
const usbAnonMB int64 = 3584

// usbOutcome is what one run measured.
type usbOutcome struct {
	editorP50, editorP99, editorMax float64 // ms, saves during the copy and the sync
	readerP99                       float64 // ms, during the copy and the sync
	stickMBps                       float64 // the stick's completions while the copy ran
	fastReadMBps, fastWriteMBps     float64 // the fast disk's reads and writes while the copy ran
	copierExitS                     float64 // when the copier's last write() returned and it exited
	syncS                           float64 // sync of the stick after that: until its last page is clean
	stickThreshMB, fastThreshMB     float64 // mean bdi_thresh while the copy ran
	stickDirtyMB                    float64 // mean dirty + writeback on the stick while the copy ran
	bgThreshMB                      float64 // mean background threshold while the copy ran
	reclaimSleeps                   float64 // direct reclaimers' throttle sleeps over the run
	reclaimSleepS                   float64 // their total time asleep, s
	synced                          bool
}

// runUSBOne runs one machine: until the copier exits, then a sync of the stick
// (sync_inodes_sb on its bdi) until its pages are clean or the runtime ends.
func runUSBOne(ctx context.Context, cfg engine.Config) (usbOutcome, error) {
	var o usbOutcome
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return o, err
	}
	k := m.Kernel()
	stick, fast := k.BDIs()[0], k.BDIs()[1]
	copier := m.DDs()[0]
	step := 100 * sim.Millisecond
	var nSamples int64
	var sumStickT, sumFastT, sumStickDirty, sumBg int64
	for t := step; !copier.Done && !m.Done(); t += step {
		if err := m.RunUntil(ctx, t); err != nil {
			return o, err
		}
		nSamples++
		sumStickT += k.BdiThresh(stick)
		sumFastT += k.BdiThresh(fast)
		sumStickDirty += stick.Stats.Reclaimable + stick.Stats.Writeback
		bg, _, _, _ := k.DirtyLimits()
		sumBg += bg
	}
	copyEnd := m.Now()
	if copier.Done {
		o.copierExitS = copier.Ended.Seconds()
	}
	if nSamples > 0 {
		o.stickThreshMB = mbOf(sumStickT / nSamples)
		o.fastThreshMB = mbOf(sumFastT / nSamples)
		o.stickDirtyMB = mbOf(sumStickDirty / nSamples)
		o.bgThreshMB = mbOf(sumBg / nSamples)
	}
	ed, rd := m.Editors()[0], m.Readers()[0]
	if s := copyEnd.Seconds(); s > 0 {
		o.stickMBps = mbOf(stick.Stats.Written) / s
		o.fastWriteMBps = mbOf(fast.Stats.Written) / s
		o.fastReadMBps = float64(rd.Latency().N) * 4096 / (1 << 20) / s
	}
	// sync(1) of the stick once the copier exited
	if copier.Done {
		work := k.SyncInodesSbOn(stick)
		for t := copyEnd + step; !m.Done(); t += step {
			if err := m.RunUntil(ctx, t); err != nil {
				return o, err
			}
			if work.Done() && stick.Stats.Reclaimable+stick.Stats.Writeback == 0 {
				o.synced = true
				break
			}
		}
		o.syncS = (m.Now() - copyEnd).Seconds()
	}
	// the editor's saves and the reader's reads over the copy and the sync
	es, rs := ed.Saves(), rd.Latency()
	ms := func(t sim.Time) float64 { return float64(t) / 1e6 }
	o.editorP50, o.editorP99, o.editorMax = ms(es.P50), ms(es.P99), ms(max(es.Max, ed.InFlight()))
	o.readerP99 = ms(rs.P99)
	st := k.ReclaimStats()
	o.reclaimSleeps, o.reclaimSleepS = float64(st.ThrottleSleeps), st.ThrottleTime.Seconds()
	return o, nil
}

// usbSeeds is how many seeds each row runs (the figures are seed means; the spread
// is reported for the editor's p99).
const usbSeeds = 3

func runUSBStickStall(ctx context.Context, quick bool) (*Report, error) {
	// quick is the same: the whole experiment simulates in about a second
	copyMB, runtime := int64(1024), 600*time.Second
	rep := &Report{Figures: map[string]float64{}}
	var b strings.Builder
	fmt.Fprintf(&b, "USB-stick stall: dd bs=1M count=%d to usb2-stick/ext4 beside wu2011-hdd/ext4 (editor 16 KiB+fsync every 1 s, random 4k reader);\n", copyMB)
	fmt.Fprintf(&b, "4 GiB RAM of which applications hold %d MiB (swap on), the rest page cache with page reclaim; dirty_ratio 20,\n", usbAnonMB)
	fmt.Fprintf(&b, "background 10; means of %d seeds (editor p99 range in brackets); latencies over the copy and the sync after it,\nthroughputs while the copy runs\n\n", usbSeeds)
	fmt.Fprintf(&b, "%-34s %9s %18s %9s %9s %8s %8s %8s %8s %8s %8s %8s\n", "kernel / remedy", "edit p50", "edit p99 [min-max]", "edit max",
		"read p99", "stick", "fast", "copier", "sync", "stick", "stick", "reclaim")
	fmt.Fprintf(&b, "%-34s %9s %18s %9s %9s %8s %8s %8s %8s %8s %8s %8s\n", "", "ms", "ms", "ms", "ms", "MB/s", "MB/s", "exit s", "s", "thr MB", "dirty MB", "sleep s")
	for _, c := range usbCases {
		outs, err := runSeeds(ctx, c.name, usbSeeds, func(s uint64) (engine.Config, error) {
			return usbConfig(c, copyMB, runtime, s)
		}, runUSBOne)
		if err != nil {
			return nil, err
		}
		mean := func(f func(usbOutcome) float64) float64 { return meanOf(outs, f) }
		p99 := make([]float64, len(outs))
		for i, o := range outs {
			p99[i] = o.editorP99
		}
		sp := stats.Of(p99)
		key := strings.NewReplacer(" ", "_", "=", "_", ".", "_").Replace(c.name)
		figs := map[string]float64{
			"editor_p50_ms":   mean(func(o usbOutcome) float64 { return o.editorP50 }),
			"editor_p99_ms":   sp.Mean,
			"editor_max_ms":   mean(func(o usbOutcome) float64 { return o.editorMax }),
			"reader_p99_ms":   mean(func(o usbOutcome) float64 { return o.readerP99 }),
			"stick_MBps":      mean(func(o usbOutcome) float64 { return o.stickMBps }),
			"fast_read_MBps":  mean(func(o usbOutcome) float64 { return o.fastReadMBps }),
			"fast_write_MBps": mean(func(o usbOutcome) float64 { return o.fastWriteMBps }),
			"copier_exit_s":   mean(func(o usbOutcome) float64 { return o.copierExitS }),
			"sync_s":          mean(func(o usbOutcome) float64 { return o.syncS }),
			"stick_thresh_MB": mean(func(o usbOutcome) float64 { return o.stickThreshMB }),
			"fast_thresh_MB":  mean(func(o usbOutcome) float64 { return o.fastThreshMB }),
			"stick_dirty_MB":  mean(func(o usbOutcome) float64 { return o.stickDirtyMB }),
			"fast_MBps":       mean(func(o usbOutcome) float64 { return o.fastReadMBps + o.fastWriteMBps }),
			"bg_thresh_MB":    mean(func(o usbOutcome) float64 { return o.bgThreshMB }),
			"reclaim_sleeps":  mean(func(o usbOutcome) float64 { return o.reclaimSleeps }),
			"reclaim_sleep_s": mean(func(o usbOutcome) float64 { return o.reclaimSleepS }),
		}
		for name, v := range figs {
			rep.Figures[key+"."+name] = v
		}
		synced := ""
		for _, o := range outs {
			if !o.synced {
				synced = " (sync unfinished at the run's end)"
			}
		}
		fmt.Fprintf(&b, "%-34s %9.1f %7.1f [%4.0f-%4.0f] %9.1f %9.1f %8.2f %8.3f %8.1f %8.1f %8.1f %8.1f %8.1f%s\n", c.name,
			figs["editor_p50_ms"], sp.Mean, sp.Min, sp.Max, figs["editor_max_ms"], figs["reader_p99_ms"],
			figs["stick_MBps"], figs["fast_MBps"], figs["copier_exit_s"], figs["sync_s"],
			figs["stick_thresh_MB"], figs["stick_dirty_MB"], figs["reclaim_sleep_s"], synced)
	}
	b.WriteString("\nstick thr/dirty: the stick's mean bdi_thresh and dirty+writeback while the copy ran; copier exit: when dd's last\n" +
		"write() returned (it exits at once: no fsync); sync: sync_inodes_sb of the stick from then until its last page is clean;\n" +
		"fast: the HDD's reads and writes; reclaim sleep: the time direct reclaimers (the reader's and editor's page allocations,\n" +
		"the copier's) slept in congestion_wait / wait_iff_congested / reclaim_throttle because the LRU's tail held the stick's\n" +
		"dirty and writeback pages.\n")
	rep.Text = b.String()
	return rep, nil
}

// stickAndHDD are the presets of the two-disk desktop the stick experiments build:
// the USB 2.0 stick and the 2011 HDD.
func stickAndHDD() (stick, hdd devices.Spec, err error) {
	if stick, err = devices.Preset("usb2-stick"); err != nil {
		return
	}
	hdd, err = devices.Preset("wu2011-hdd")
	return
}
