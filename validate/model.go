package validate

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
)

// Kernel is the wblab preset the references are compared with.
const Kernel = "6.1"

// qemuBurstMs is the token bucket depth of QEMU's write throttle: with
// throttling.bps-write set and bps-write-max not, QEMU's leaky bucket holds a tenth
// of a second at the rate (util/throttle.c, throttle_fix_bucket: max = avg / 10).
const qemuBurstMs = 100

// virtioQueueDepth is the guest's hardware queue depth on a virtio disk: QEMU 7.2's
// virtio-blk queue-size default (256), which 6.1's virtblk_probe makes the tag
// set's queue_depth (blk-wbt's maximum is then 3/4 of it, rq_depth_calc_max_depth).
const virtioQueueDepth = 256

// GuestCPUSpeedPct is the QEMU guest's vCPU speed in percent of the core wblab's
// CPU costs are calibrated on (engine.Config.CPUSpeedPct), calibrated once: in
// s1-ext4.r4's control (multi-threaded TCG on this 2-core host) a lone ext4 dd
// bs=1M ran at 96 % of a vCPU and dirtied 83.0 MB/s, 86.5 MB per vCPU-second;
// the 6.1 preset's ext4 dd at 100 % dirties 1220 MB per CPU-second. Harness 2's
// guests (MixConfig) run at it; harness 1's ran single-threaded TCG (-smp 1), which
// no control of theirs calibrates, and keep the model's 100.
const GuestCPUSpeedPct = 7

// guestHZ is the reference kernels' CONFIG_HZ: Debian's amd64 6.1 and 6.12 images
// are built with CONFIG_HZ_250 (config-6.1.0-57-amd64 in the linux-image package).
const guestHZ = 250

// DeviceFor is the wblab device for a measured virtio disk: the capped model (a token
// bucket) at the write rate the guest got, with the queue the guest reported
// (mq-deadline, rotational flag) and the block-layer settings it reported
// (nr_requests, blk-wbt latency) as overrides of the kernel's.
func DeviceFor(d Disk, rateBps float64) (devices.Spec, devices.BlockOverrides, error) {
	if d.Sched != "mq-deadline" && d.Sched != "none" {
		return devices.Spec{}, nil, fmt.Errorf("disk %s: scheduler %q has no wblab model (mq-deadline or none)", d.Name, d.Sched)
	}
	elev := devices.ElevatorDeadline
	if d.Sched == "none" {
		elev = devices.ElevatorNoop
	}
	rot := "off"
	if d.Rotational {
		rot = "on"
	}
	spec := fmt.Sprintf("capped,bw=%d,iops=0,burst_ms=%d,qd=%d,elevator=%s,rotational=%s,nr_requests=%d",
		int64(math.Round(rateBps)), qemuBurstMs, virtioQueueDepth, elev, rot, d.NrRequests)
	if d.WBTLatUs > 0 {
		spec += fmt.Sprintf(",wbt_lat_us=%d", d.WBTLatUs)
	}
	if d.WriteCache == "write_back" {
		// the guest sees a volatile write cache (QUEUE_FLAG_WC, which blk-wbt's
		// wakeups read); QEMU's cache=direct,no-flush keeps none the capped device
		// would model, so its size is nominal
		spec += ",wcache=1"
	}
	return devices.ParseSpec(spec)
}

// ConfigFor is the 6.1 preset on a measured case, with the disk rate the guest got
// (for the two-disk case, rateBps is the fast disk's and stickBps the stick's).
func ConfigFor(c Case, rateBps float64) (engine.Config, error) { return configFor(c, rateBps, 0) }

func configFor(c Case, rateBps, stickBps float64) (engine.Config, error) {
	if c.Work != "dd" && c.Work != "stick" {
		return engine.Config{}, fmt.Errorf("%s: workload %q has no wblab model", c.Name, c.Work)
	}
	dev, blk, err := DeviceFor(c.Disks[0], rateBps)
	if err != nil {
		return engine.Config{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	cfg := engine.DefaultConfig()
	cfg.Case = "validate/" + c.Name
	cfg.Kernel = presetFor(c.Kernel) // the preset of the log's H kernel= (preset.go)
	cfg.Disks[0].Filesystem = c.FS
	cfg.Disks[0].Device, cfg.Disks[0].Block = dev, blk
	if c.Disks[0].WBTLatUs == 0 { // blk-wbt off (wbt_lat_usec = 0); the 6.1 preset decides wbt
		cfg.Variants = kernel.Overrides{"wbt": false}
	}
	cfg.CPUs = c.CPUs
	cfg.HZ = guestHZ
	cfg.MemoryMB = c.MemTotalKB / 1024
	cfg.DirtyBytes, cfg.DirtyRatio = c.DirtyBytes, c.DirtyRatio
	cfg.DirtyBackgroundBytes, cfg.DirtyBackgroundRatio = c.DirtyBackgroundBytes, c.DirtyBackgroundRatio
	cfg.DirtyExpireCs, cfg.DirtyWritebackCs = c.DirtyExpireCs, c.DirtyWritebackCs
	cfg.Disks[0].Workload = engine.Workload{DD: c.DD, BS: c.BS}
	cfg.Runtime = engine.Duration(time.Duration(c.RunS * float64(time.Second)))
	if c.Work == "stick" {
		if len(c.Disks) < 2 {
			return engine.Config{}, fmt.Errorf("%s: a stick case needs two disks", c.Name)
		}
		// init.sh: on vda an editor, dd bs=4k count=1 conv=fsync,notrunc once a
		// second; on vdb (the stick, the same filesystem) the copier, dd bs=1M
		// count=copy_MB; then a timed sync (runStick)
		stick, sblk, err := DeviceFor(c.Disks[1], stickBps)
		if err != nil {
			return engine.Config{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		if c.Disks[1].WBTLatUs == 0 {
			if sblk == nil {
				sblk = devices.BlockOverrides{}
			}
			sblk["wbt"] = "off"
		}
		if c.Disks[0].WBTLatUs == 0 {
			if blk == nil {
				blk = devices.BlockOverrides{}
			}
			blk["wbt"] = "off"
		}
		fast := engine.DiskConfig{Device: dev, Block: blk, Filesystem: c.FS, BDI: kernel.DefaultBdiKnobs(),
			Workload: engine.Workload{Editors: 1, EditorBytes: 4096, EditorInterval: engine.Duration(time.Second)}}
		slow := engine.DiskConfig{Device: stick, Block: sblk, Filesystem: c.FS, BDI: kernel.DefaultBdiKnobs(),
			Workload: engine.Workload{DD: 1, BS: 1 << 20, Count: c.CopyMB}}
		cfg.Variants = nil // each disk's block overrides say whether it has blk-wbt
		cfg.Runtime = engine.Duration(stickRunLimit)
		cfg.Disks = []engine.DiskConfig{fast, slow}
	}
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, fmt.Errorf("%s: %w", c.Name, err)
	}
	return cfg, nil
}

// Comparison is one reference case: what was measured and what wblab computes.
type Comparison struct {
	Case         Case
	Window       Window
	NominalBps   float64 // the QEMU throttle on the first disk
	DiskRateBps  float64 // the rate the first disk got over the window, while busy
	DiskUtil     float64 // its busy fraction of the window
	Measured     Figures
	Model        *Figures // nil: no model for this case (NoModel says why)
	NoModel      string
	Stick        *Stick
	Mix          *Mix       // a harness 2 run (writers that share a machine): figures and held check
	ModelStick   *Stick     // the two-disk case in wblab: editor, copier exit, sync
	MixModels    []MixModel // a harness 2 run in wblab, one per seed (1..MixSeeds)
	StickRateBps float64    // the two-disk case: the rate the stick got while it wrote
	Config       *engine.Config
	// DiskBound: the disk was busy at least DiskBoundUtil of the window, so the disk,
	// not the writers' CPU, set the pace. Under TCG the emulated guest CPU can leave
	// the disk idle (many writers, 1 GB limits); wblab's writers are never that slow.
	DiskBound bool
	// Held: disk-bound, and the measured dirty+writeback averaged at least the
	// freerun point ((thresh + bg_thresh) / 2), above which balance_dirty_pages
	// throttles: the dirty limits, not the writers' speed, held the writers. Under
	// TCG the writers dirty only a few MB/s and do not reach a 1 GB limit's freerun
	// point within the run; wblab's writers do within seconds.
	Held bool
}

// Compare derives the measured figures of a log and, where wblab models the case, runs
// the 6.1 preset on it over the same window.
func Compare(ctx context.Context, l *Log) (Comparison, error) {
	c, err := CaseOf(l)
	if err != nil {
		return Comparison{}, err
	}
	cmp := Comparison{Case: c, NominalBps: float64(c.Disks[0].ThrottleBps)}
	if c.Work == "mix" {
		return compareMix(ctx, l, cmp)
	}
	if c.Work == "stick" {
		st, err := StickOf(l)
		if err != nil {
			return Comparison{}, err
		}
		cmp.Stick = &st
		cmp.Window = Window{FromS: 0, ToS: st.CopierExitS}
	} else {
		cmp.Window = SteadyWindow(c.RunS)
	}
	if cmp.Measured, err = FiguresOf(l.Series(), cmp.Window, l.BdiThresh()); err != nil {
		return Comparison{}, fmt.Errorf("%s: %w", l.Name, err)
	}
	if cmp.DiskRateBps, cmp.DiskUtil, err = l.DiskRate(cmp.Window); err != nil {
		return Comparison{}, err
	}
	cmp.DiskBound = cmp.DiskUtil >= DiskBoundUtil
	m := cmp.Measured
	cmp.Held = cmp.DiskBound && m.DirtyWritebackMB >= (m.ThreshMB+m.BgThreshMB)/2
	if cmp.Stick != nil {
		// the stick's rate while it wrote: the final sync (the copy fits under the
		// dirty limit, so the stick writes from the copier's start to the sync's end)
		sync := Window{FromS: 0, ToS: cmp.Stick.CopierExitS + cmp.Stick.SyncS}
		stickBps, _, err := l.DiskRateOf(c.Disks[1].Name, sync)
		if err != nil {
			return Comparison{}, err
		}
		cmp.StickRateBps = stickBps
		// the fast disk idles between the editor's saves: its throttle, not its rate
		cfg, err := configFor(c, cmp.NominalBps, stickBps)
		if err != nil {
			return Comparison{}, err
		}
		cmp.Config = &cfg
		ms, f, err := runStick(ctx, cfg, cmp.Window)
		if err != nil {
			return Comparison{}, fmt.Errorf("%s: wblab run: %w", l.Name, err)
		}
		cmp.ModelStick, cmp.Model = &ms, &f
		return cmp, nil
	}
	cfg, err := ConfigFor(c, cmp.DiskRateBps)
	if err != nil {
		return Comparison{}, err
	}
	cmp.Config = &cfg
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		return Comparison{}, fmt.Errorf("%s: wblab run: %w", l.Name, err)
	}
	f, err := FiguresOf(res.Series, cmp.Window, nil)
	if err != nil {
		return Comparison{}, fmt.Errorf("%s: wblab series: %w", l.Name, err)
	}
	cmp.Model = &f
	return cmp, nil
}

// compareMix is a harness 2 run: the measured figures, the held check from its
// controls (MixOf), and wblab's runs of it (MixConfig, seeds 1..MixSeeds).
func compareMix(ctx context.Context, l *Log, cmp Comparison) (Comparison, error) {
	m, err := MixOf(l)
	if err != nil {
		return Comparison{}, err
	}
	cmp.Mix, cmp.Window = &m, m.Window
	if cmp.Measured, err = FiguresOf(l.Series(), cmp.Window, l.BdiThresh()); err != nil {
		return Comparison{}, fmt.Errorf("%s: %w", l.Name, err)
	}
	if cmp.DiskRateBps, cmp.DiskUtil, err = l.DiskRate(cmp.Window); err != nil {
		cmp.DiskRateBps, cmp.DiskUtil = 0, 0 // idle through the window
	}
	cmp.DiskBound = cmp.DiskUtil >= DiskBoundUtil
	cmp.Held = m.Held
	cfg, runs, err := modelMix(ctx, l, &m)
	if err != nil {
		return Comparison{}, err
	}
	cmp.Config, cmp.MixModels = &cfg, runs
	return cmp, nil
}

// stickRunLimit bounds the two-disk run (copy, then sync); the measured case took 37 s.
const stickRunLimit = 600 * time.Second

// runStick runs the two-disk case the way init.sh does: until the copier exits,
// then sync(1) (sync_inodes_sb on every disk) until no page is dirty or under
// writeback. It returns the stick figures and the series figures over w.
func runStick(ctx context.Context, cfg engine.Config, w Window) (Stick, Figures, error) {
	var st Stick
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return st, Figures{}, err
	}
	copier := m.DDs()[0]
	step := engine.Time(100 * time.Millisecond)
	for t := step; !copier.Done && !m.Done(); t += step {
		if err := m.RunUntil(ctx, t); err != nil {
			return st, Figures{}, err
		}
	}
	if !copier.Done {
		return st, Figures{}, fmt.Errorf("the copier did not exit within %v", stickRunLimit)
	}
	st.CopierExitS = copier.Ended.Seconds()
	if st.SyncS, err = syncAll(ctx, m, step); err != nil {
		return st, Figures{}, err
	}
	ed := m.Editors()[0]
	saves := ed.Saves()
	st.FsyncCount = int(saves.N)
	st.FsyncMeanS, st.FsyncMaxS = ed.MeanSave().Seconds(), saves.Max.Seconds()
	st.StickNominalB = float64(cfg.Disks[len(cfg.Disks)-1].Device.BandwidthBps) // the last disk is the stick
	// the first disk's bdi_thresh, as the measured figure is vda's BdiDirtyThresh
	series := m.Result().Series
	bt, _ := series.Column("disk1_bdi_thresh_MB")
	f, err := FiguresOf(series, w, bt)
	return st, f, err
}

// syncAll is sync(1) the way the harness times it: sync_inodes_sb on every disk,
// run in steps of step until every work is done and no page is dirty or under
// writeback. It returns the sync's duration in seconds; the machine's tasks (an
// editor) go on meanwhile.
func syncAll(ctx context.Context, m *engine.Machine, step engine.Time) (float64, error) {
	k := m.Kernel()
	syncStart := m.Now()
	var works []*kernel.WbWritebackWork
	for _, b := range k.BDIs() {
		works = append(works, k.SyncInodesSbOn(b))
	}
	synced := func() bool {
		for _, wk := range works {
			if !wk.Done() {
				return false
			}
		}
		return k.G.NrFileDirty+k.G.NrWriteback == 0
	}
	for t := syncStart + step; !synced(); t += step {
		if m.Done() {
			return 0, fmt.Errorf("sync did not end by the run's end (%v)", m.Config().Runtime)
		}
		if err := m.RunUntil(ctx, t); err != nil {
			return 0, err
		}
	}
	return (m.Now() - syncStart).Seconds(), nil
}

// DiskBoundUtil is the busy fraction above which a case counts as disk-bound.
const DiskBoundUtil = 0.9

// Figure names one compared figure, its unit and how to read it from Figures.
type Figure struct {
	Name, Unit string
	Get        func(Figures) float64
}

// ComparedFigures are the figures validate prints per case and averages overall.
var ComparedFigures = []Figure{
	{"write_bw", "MB/s", func(f Figures) float64 { return f.WriteBWMBps }},
	{"dirty", "MB", func(f Figures) float64 { return f.DirtyMB }},
	{"dirty+writeback", "MB", func(f Figures) float64 { return f.DirtyWritebackMB }},
	{"bdi_thresh", "MB", func(f Figures) float64 { return f.BdiThreshMB }},
	{"thresh", "MB", func(f Figures) float64 { return f.ThreshMB }},
	{"bg_thresh", "MB", func(f Figures) float64 { return f.BgThreshMB }},
	{"bdi_write_bw_est", "MB/s", func(f Figures) float64 { return f.BdiWriteBWMBps }},
	{"dirtied_rate", "MB/s", func(f Figures) float64 { return f.DirtiedMBps }},
}

// MeanErrors are, per compared figure, the mean absolute error (model - measured, in
// the figure's unit) and the mean absolute relative error (percent of measured) over
// the comparisons that have a model (and, with heldOnly, are Held).
func MeanErrors(cs []Comparison, heldOnly bool) (abs, rel []float64, n int) {
	abs, rel = make([]float64, len(ComparedFigures)), make([]float64, len(ComparedFigures))
	for _, c := range cs {
		if c.Model == nil || (heldOnly && !c.Held) {
			continue
		}
		n++
		for i, f := range ComparedFigures {
			m, w := f.Get(c.Measured), f.Get(*c.Model)
			abs[i] += math.Abs(w - m)
			rel[i] += RelErr(m, w)
		}
	}
	for i := range abs {
		if n > 0 {
			abs[i] /= float64(n)
			rel[i] /= float64(n)
		}
	}
	return abs, rel, n
}

// RelErr is |model - measured| / measured in percent (0 when both are 0).
func RelErr(measured, model float64) float64 {
	if measured == 0 {
		if model == 0 {
			return 0
		}
		return 100
	}
	return 100 * math.Abs(model-measured) / math.Abs(measured)
}
