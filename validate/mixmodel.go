package validate

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
)

// Harness 2's model side (issue 33): each run's scenario and controls on the 6.1
// preset, set up from the log's own H lines only (MixConfig), with seeds 1..MixSeeds.

// MixSeeds is how many seeds wblab runs each harness 2 run with (seeds 1..MixSeeds).
const MixSeeds = 5

// mixSyncLimit bounds the final sync after the kill (the stick's dirty share at
// 5 MiB/s: measured up to about 2 minutes).
const mixSyncLimit = 600 * time.Second

// mixStep is the model's sampling step for the writers' bytes and the disks' sectors.
const mixStep = engine.Time(100 * time.Millisecond)

// Latencies are the editor's save latencies: count, mean and quantiles (linear
// between the order statistics, the same on both sides), in seconds.
type Latencies struct {
	N                             int
	MeanS, P50S, P90S, P99S, MaxS float64
}

// latenciesOf summarises v (seconds).
func latenciesOf(v []float64) Latencies {
	l := Latencies{N: len(v)}
	if len(v) == 0 {
		return l
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	for _, x := range s {
		l.MeanS += x
	}
	l.MeanS /= float64(len(s))
	l.P50S, l.P90S, l.P99S, l.MaxS = quantile(s, 0.5), quantile(s, 0.9), quantile(s, 0.99), s[len(s)-1]
	return l
}

// quantile of sorted s, linear between the order statistics (q·(n-1)).
func quantile(s []float64, q float64) float64 {
	x := q * float64(len(s)-1)
	i := int(math.Floor(x))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (x-float64(i))*(s[i+1]-s[i])
}

// MixModel is one seed's wblab run of a harness 2 run: the scenario over the same
// window as the measurement, the kill, the final sync, and each writer alone.
type MixModel struct {
	Seed        uint64
	Figures     Figures   // global series figures over the window
	WriterMBps  []float64 // each writer's dirtying rate in the window
	AloneMBps   []float64 // each writer alone (its control) over the control's window; -1: no control
	DiskMBps    []float64 // each disk's write rate in the window
	BdiDirtyMB  []float64 // each disk's bdi: mean dirty + writeback
	BdiThreshMB []float64 // each disk's bdi: mean threshold
	Editor      Latencies // saves started before the kill
	ExitS       []float64 // each writer's exit after the kill (-1: ended before)
	SyncS       float64   // the final sync
}

// MixDiskRate is the rate wblab gives a harness 2 disk: the rate the guest got on
// it in the window (write sectors over io_ticks, DiskRateOf) when the disk was busy
// at least DiskBoundUtil of it; otherwise (a disk that idled, e.g. with the editor
// only) its QEMU throttle, as the busy rate of a mostly idle disk is the bucket's
// burst, not its rate.
func MixDiskRate(l *Log, d Disk, w Window) float64 {
	rate, util, err := l.DiskRateOf(d.Name, w)
	if err != nil || util < DiskBoundUtil {
		return float64(d.ThrottleBps)
	}
	return rate
}

// MixConfig is the 6.1 preset on a harness 2 run, from the log's H lines: the
// guest's vCPUs, MemTotal and dirty sysctls as read back; each disk the capped
// device at MixDiskRate with its queue as read back (DeviceFor; blk-wbt off where
// wbt_lat_usec is 0), its filesystem (fs=, fs_vdb=) and bdi max_ratio
// (max_ratio_vdX=); each writer a dd of its bs (count from count_MiB) on its disk;
// the editor (4 KiB + fsync every second) on its disk. The runtime leaves room for
// the kill and the final sync (runMix). ddOf maps each writer to its index in
// the machine's DDs (disk by disk, in the writers' order).
func MixConfig(l *Log, m *Mix) (cfg engine.Config, ddOf []int, err error) {
	c, err := CaseOf(l)
	if err != nil {
		return engine.Config{}, nil, err
	}
	cfg = engine.DefaultConfig()
	cfg.Case = "validate/" + c.Name
	cfg.Kernel = presetFor(c.Kernel)
	cfg.Variants = nil // each disk's block overrides say whether it has blk-wbt
	cfg.CPUs = c.CPUs
	cfg.HZ = guestHZ
	cfg.CPUSpeedPct = GuestCPUSpeedPct
	cfg.MemoryMB = c.MemTotalKB / 1024
	cfg.DirtyBytes, cfg.DirtyRatio = c.DirtyBytes, c.DirtyRatio
	cfg.DirtyBackgroundBytes, cfg.DirtyBackgroundRatio = c.DirtyBackgroundBytes, c.DirtyBackgroundRatio
	cfg.DirtyExpireCs, cfg.DirtyWritebackCs = c.DirtyExpireCs, c.DirtyWritebackCs
	cfg.Runtime = engine.Duration(time.Duration(c.RunS*float64(time.Second)) + mixSyncLimit)
	cfg.Disks = nil
	ddOf = make([]int, len(m.Writers))
	next := 0
	for i, d := range l.Disks {
		dev, blk, err := DeviceFor(d, MixDiskRate(l, d, m.Window))
		if err != nil {
			return engine.Config{}, nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		if d.WBTLatUs == 0 {
			if blk == nil {
				blk = devices.BlockOverrides{}
			}
			blk["wbt"] = "off"
		}
		fsName := c.FS
		if i > 0 && l.Header["fs_"+d.Name] != "" {
			fsName = l.Header["fs_"+d.Name]
		}
		dc := engine.DiskConfig{Device: dev, Block: blk, Filesystem: fsName, BDI: kernel.DefaultBdiKnobs()}
		if v, ok := l.Header["max_ratio_"+d.Name]; ok {
			if dc.BDI.MaxRatio, err = strconv.Atoi(v); err != nil {
				return engine.Config{}, nil, fmt.Errorf("%s: header max_ratio_%s=%q is not an integer percent", c.Name, d.Name, v)
			}
		}
		for j, w := range m.Writers {
			if w.Disk != d.Name {
				continue
			}
			wl := &dc.Workload
			if wl.DD > 0 && (wl.BS != w.BS || wl.Count != w.CountMiB<<20/w.BS) {
				return engine.Config{}, nil, fmt.Errorf("%s: writers on %s differ in bs or count; a wblab disk's dd share one", c.Name, d.Name)
			}
			wl.DD++
			wl.BS, wl.Count = w.BS, w.CountMiB<<20/w.BS
			ddOf[j] = next
			next++
		}
		if m.Editor != "" && int(m.Editor[0]-'a') == i {
			dc.Workload.Editors, dc.Workload.EditorBytes, dc.Workload.EditorInterval = 1, 4096, engine.Duration(time.Second)
		}
		cfg.Disks = append(cfg.Disks, dc)
	}
	for _, w := range m.Writers {
		found := false
		for _, d := range l.Disks {
			found = found || d.Name == w.Disk
		}
		if !found {
			return engine.Config{}, nil, fmt.Errorf("%s: writer %s on %s: no such disk", c.Name, w.Name, w.Disk)
		}
	}
	if m.Editor != "" && int(m.Editor[0]-'a') >= len(l.Disks) {
		return engine.Config{}, nil, fmt.Errorf("%s: editor on %q: no such disk", c.Name, m.Editor)
	}
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, nil, fmt.Errorf("%s: %w", c.Name, err)
	}
	return cfg, ddOf, nil
}

// controlConfig is cfg with only writer j's dd (no editor, no other writer): its
// control, run for ctlS seconds.
func controlConfig(cfg engine.Config, m *Mix, j int, ctlS float64) engine.Config {
	c := cfg.Clone()
	for i := range c.Disks {
		c.Disks[i].Workload = engine.Workload{}
	}
	w := m.Writers[j]
	c.Disks[diskOfWriter(cfg, m, j)].Workload = engine.Workload{DD: 1, BS: w.BS, Count: w.CountMiB << 20 / w.BS}
	c.Runtime = engine.Duration(time.Duration(ctlS * float64(time.Second)))
	return c
}

// diskOfWriter is the index of writer j's disk in cfg (MixConfig's order).
func diskOfWriter(cfg engine.Config, m *Mix, j int) int {
	n := 0
	for i, d := range cfg.Disks {
		for k := 0; k < d.Workload.DD; k++ {
			if n == j {
				return i
			}
			n++
		}
	}
	return -1
}

// mixTrace is what runMix samples every mixStep: each dd's bytes, each disk's
// write sectors and its bdi's dirty + writeback and threshold (pages), as the guest
// samples /sys/block/*/stat and the bdi's debugfs stats.
type mixTrace struct {
	t                   []float64
	written             [][]int64
	sectors             [][]int64
	bdiDirty, bdiThresh [][]int64
}

func (tr *mixTrace) sample(m *engine.Machine) {
	tr.t = append(tr.t, m.Now().Seconds())
	var w, s []int64
	for _, d := range m.DDs() {
		w = append(w, d.Written())
	}
	for _, d := range m.Disks() {
		s = append(s, d.Queue.Stats().Sectors[devices.Write])
	}
	var bd, bt []int64
	k := m.Kernel()
	for _, b := range k.BDIs() {
		bd, bt = append(bd, b.Stats.Reclaimable+b.Stats.Writeback), append(bt, k.BdiThresh(b))
	}
	tr.written, tr.sectors = append(tr.written, w), append(tr.sectors, s)
	tr.bdiDirty, tr.bdiThresh = append(tr.bdiDirty, bd), append(tr.bdiThresh, bt)
}

// meanMB is the mean of v(i) (pages) over the samples in w, in MB.
func (tr *mixTrace) meanMB(w Window, v func(i int) int64) float64 {
	sum, n := 0.0, 0
	for i, t := range tr.t {
		if t >= w.FromS-1e-9 && t <= w.ToS+1e-9 {
			sum += float64(v(i))
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n) / pagesPerMB
}

// rate is (v(last) - v(first)) / their time apart over the samples in w.
func (tr *mixTrace) rate(w Window, v func(i int) int64) float64 {
	a, b := -1, -1
	for i, t := range tr.t {
		if t >= w.FromS-1e-9 && t <= w.ToS+1e-9 {
			if a < 0 {
				a = i
			}
			b = i
		}
	}
	if a < 0 || b <= a {
		return 0
	}
	return float64(v(b)-v(a)) / (1 << 20) / (tr.t[b] - tr.t[a])
}

// runMix runs one harness 2 scenario the way init.sh does: the writers and the
// editor until runS, then SIGTERM to every dd (DD.Kill), each dd's exit, and a
// timed sync(1) (syncAll) while the editor goes on. With sync false it stops at
// the kill (a control).
func runMix(ctx context.Context, cfg engine.Config, runS float64, w Window, sync bool) (MixModel, *mixTrace, error) {
	mm := MixModel{Seed: cfg.Seed}
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return mm, nil, err
	}
	tr := &mixTrace{}
	tr.sample(m)
	kill := engine.Time(time.Duration(runS * float64(time.Second)))
	for t := mixStep; t <= kill && !m.Done(); t += mixStep {
		if err := m.RunUntil(ctx, t); err != nil {
			return mm, nil, err
		}
		tr.sample(m)
	}
	if !sync {
		return mm, tr, nil
	}
	dds := m.DDs()
	for _, d := range dds {
		if d.Done {
			mm.ExitS = append(mm.ExitS, -1)
			continue
		}
		d.Kill()
		mm.ExitS = append(mm.ExitS, 0)
	}
	exited := func() bool {
		for _, d := range dds {
			if !d.Done {
				return false
			}
		}
		return true
	}
	const exitStep = engine.Time(10 * time.Millisecond)
	for t := m.Now() + exitStep; !exited(); t += exitStep {
		if m.Done() {
			return mm, nil, fmt.Errorf("the writers did not exit after the kill")
		}
		if err := m.RunUntil(ctx, t); err != nil {
			return mm, nil, err
		}
	}
	for i, d := range dds {
		if mm.ExitS[i] == 0 {
			mm.ExitS[i] = (d.Ended - kill).Seconds()
		}
	}
	if mm.SyncS, err = syncAll(ctx, m, mixStep); err != nil {
		return mm, nil, err
	}
	res := m.Result()
	if mm.Figures, err = FiguresOf(res.Series, w, nil); err != nil {
		return mm, nil, err
	}
	for i := range m.Disks() {
		mm.BdiThreshMB = append(mm.BdiThreshMB, tr.meanMB(w, func(k int) int64 { return tr.bdiThresh[k][i] }))
		mm.BdiDirtyMB = append(mm.BdiDirtyMB, tr.meanMB(w, func(k int) int64 { return tr.bdiDirty[k][i] }))
		mm.DiskMBps = append(mm.DiskMBps, tr.rate(w, func(k int) int64 { return tr.sectors[k][i] * sectorSize }))
	}
	if eds := m.Editors(); len(eds) > 0 {
		pts, _ := eds[0].Series()
		var v []float64
		for _, p := range pts {
			if p.At < kill {
				v = append(v, p.Latency.Seconds())
			}
		}
		mm.Editor = latenciesOf(v)
	}
	return mm, tr, nil
}

// modelMix runs a harness 2 run's scenario and each writer's control with seeds
// 1..MixSeeds, in parallel (engine.Parallel).
func modelMix(ctx context.Context, l *Log, mx *Mix) (engine.Config, []MixModel, error) {
	cfg, ddOf, err := MixConfig(l, mx)
	if err != nil {
		return cfg, nil, err
	}
	c, _ := CaseOf(l)
	cfg.Seed = 1
	seeds := engine.SeedConfigs(cfg, MixSeeds)
	type job struct {
		seed int
		ctl  int // -1: the scenario
	}
	var jobs []job
	for s := range seeds {
		jobs = append(jobs, job{s, -1})
		for j := range mx.Writers {
			if controlOf(mx, j) != nil {
				jobs = append(jobs, job{s, j})
			}
		}
	}
	out := make([]MixModel, len(seeds))
	alone := make([][]float64, len(seeds))
	for s := range alone {
		alone[s] = make([]float64, len(mx.Writers))
		for j := range alone[s] {
			alone[s][j] = -1
		}
	}
	var mu sync.Mutex
	var firstErr error
	engine.Parallel(ctx, len(jobs), func(i int) {
		jb := jobs[i]
		var err error
		if jb.ctl < 0 {
			var mm MixModel
			var tr *mixTrace
			if mm, tr, err = runMix(ctx, seeds[jb.seed], c.RunS, mx.Window, true); err == nil {
				for _, k := range ddOf {
					mm.WriterMBps = append(mm.WriterMBps, tr.rate(mx.Window, func(x int) int64 { return tr.written[x][k] }))
				}
				mm.ExitS = reorder(mm.ExitS, ddOf)
				mu.Lock()
				out[jb.seed] = mm
				mu.Unlock()
			}
		} else {
			k := controlOf(mx, jb.ctl)
			var tr *mixTrace
			if _, tr, err = runMix(ctx, controlConfig(seeds[jb.seed], mx, jb.ctl, k.Window.ToS), k.Window.ToS, k.Window, false); err == nil {
				r := tr.rate(k.Window, func(x int) int64 { return tr.written[x][0] })
				mu.Lock()
				alone[jb.seed][jb.ctl] = r
				mu.Unlock()
			}
		}
		if err != nil {
			mu.Lock()
			if firstErr == nil {
				firstErr = fmt.Errorf("%s: wblab run (seed %d): %w", l.Name, seeds[jb.seed].Seed, err)
			}
			mu.Unlock()
		}
	})
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	if firstErr != nil {
		return cfg, nil, firstErr
	}
	for s := range out {
		out[s].AloneMBps = alone[s]
	}
	return cfg, out, nil
}

// reorder puts per-dd values (machine order) into writer order.
func reorder(v []float64, ddOf []int) []float64 {
	out := make([]float64, len(ddOf))
	for j, k := range ddOf {
		out[j] = v[k]
	}
	return out
}

// controlOf is writer j's measured control, nil without one.
func controlOf(m *Mix, j int) *Control {
	for i := range m.Controls {
		if m.Controls[i].Writer.Name == m.Writers[j].Name {
			return &m.Controls[i]
		}
	}
	return nil
}
