package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// A machine's disks: the first is the Config's Device, Filesystem, BDI and
// Workload; Config.Disks adds more, each with its own device (and block layer),
// filesystem, bdi knobs and tasks. Each disk gets its own bdi ("8:0", "8:16", ...
// as sda, sdb ... number them), request queue and, on per-bdi kernels, flusher.

// DiskConfig is one more disk of the machine and the tasks that use it.
type DiskConfig struct {
	Device devices.Spec `json:"device"`
	// Block overrides keys of the kernel's block layer for this disk (Config.Block).
	Block      devices.BlockOverrides `json:"block,omitempty"`
	Filesystem string                 `json:"fs"`
	BDI        kernel.BdiKnobs        `json:"bdi"`
	// Workload is what runs on this disk: its dd writers, readers and editors
	// (dd may be 0).
	Workload Workload `json:"workload"`
}

// Disk limits.
const (
	MaxDisks   = 16 // disks per machine
	MaxEditors = 64 // editors per disk
	// DefaultEditorBytes and DefaultEditorInterval are an editor's save when the
	// Workload leaves them 0: 16 KiB every second.
	DefaultEditorBytes    = 16 << 10
	DefaultEditorInterval = Duration(time.Second)
)

// DiskName is the bdi name of disk i (sda = 8:0, sdb = 8:16, ...).
func DiskName(i int) string { return "8:" + strconv.Itoa(16*i) }

// NumDisks is how many disks the machine has.
func (c *Config) NumDisks() int { return 1 + len(c.Disks) }

// DiskAt is disk i as a DiskConfig (0 is the Config's own device, fs, knobs and workload).
func (c *Config) DiskAt(i int) DiskConfig {
	if i == 0 {
		knobs := kernel.DefaultBdiKnobs()
		if c.BDI != nil {
			knobs = *c.BDI
		}
		return DiskConfig{Device: c.Device, Block: c.Block, Filesystem: c.Filesystem, BDI: knobs, Workload: c.Workload}
	}
	return c.Disks[i-1]
}

// SetDisks makes disks the machine's disk list: the first becomes the Config's
// Device, Filesystem, BDI and Workload, the rest Config.Disks.
func (c *Config) SetDisks(disks []DiskConfig) {
	if len(disks) == 0 {
		return
	}
	d := disks[0]
	c.Device, c.Block, c.Filesystem, c.Workload = d.Device, d.Block, d.Filesystem, d.Workload
	c.BDI = nil
	if d.BDI != kernel.DefaultBdiKnobs() {
		knobs := d.BDI
		c.BDI = &knobs
	}
	c.Disks = append([]DiskConfig(nil), disks[1:]...)
	if len(c.Disks) == 0 {
		c.Disks = nil
	}
}

// minDD is the first disk's smallest dd count: 1 for a one-disk machine without
// editors, else 0 (the tasks may run on other disks).
func (c *Config) minDD() int64 {
	if len(c.Disks) > 0 || c.Workload.Editors > 0 {
		return 0
	}
	return 1
}

// minBS is the first disk's smallest dd block size: 0 is allowed when it has no dd.
func (c *Config) minBS() int64 {
	if c.Workload.DD == 0 && c.Workload.BS == 0 {
		return 0
	}
	return 512
}

// totalDD is the dd count over every disk.
func (c *Config) totalDD() int64 {
	n := int64(c.Workload.DD)
	for _, d := range c.Disks {
		n += int64(d.Workload.DD)
	}
	return n
}

// validateDisks checks the disk list: each extra disk's device, filesystem,
// knobs and tasks (errors name "disks[i].field"), every disk's knobs against the
// kernel, the min_ratio sum, and that some task runs.
func (c *Config) validateDisks() error {
	if len(c.Disks) > MaxDisks-1 {
		return fmt.Errorf("disks: %d disks, at most %d", c.NumDisks(), MaxDisks)
	}
	preset, err := kernel.LookupPreset(c.Kernel)
	if err != nil {
		return fmt.Errorf("kernel: %w", err)
	}
	v, err := c.Variants.Apply(preset.Variants)
	if err != nil {
		return fmt.Errorf("variants: %w", err)
	}
	minSum := 0
	tasks := 0
	for i := 0; i < c.NumDisks(); i++ {
		d := c.DiskAt(i)
		prefix := ""
		if i > 0 {
			prefix = fmt.Sprintf("disks[%d].", i-1)
			if !slices.Contains(Filesystems(), d.Filesystem) {
				return fmt.Errorf("%sfs: %q is not a modelled filesystem (allowed: %s)", prefix, d.Filesystem, strings.Join(Filesystems(), ", "))
			}
			if err := d.Device.Validate(); err != nil {
				return fmt.Errorf("%sdevice: %w", prefix, err)
			}
			if d.Device.DM {
				// its per-bio cost is the kernel's submit_bio cost (one per machine)
				return fmt.Errorf("%sdevice.dm: device-mapper is modelled on the first disk only", prefix)
			}
			if err := d.Workload.validate(prefix+"workload.", 0); err != nil {
				return err
			}
		} else if err := d.Workload.validateEditors("workload."); err != nil {
			return err
		}
		if err := d.BDI.Validate(v); err != nil {
			return fmt.Errorf("%s%w", prefix, err)
		}
		minSum += d.BDI.MinRatio
		tasks += d.Workload.DD + d.Workload.Readers + d.Workload.Editors
	}
	if minSum >= 100 {
		// bdi_set_min_ratio: the sum over bdis must stay below 100
		return fmt.Errorf("bdi.min_ratio: the disks' min_ratio add up to %d %%, the kernel allows less than 100", minSum)
	}
	if tasks == 0 {
		return fmt.Errorf("workload.dd: no task runs on any disk (give some disk a dd, reader or editor)")
	}
	return nil
}

// validate checks a disk's workload with dd at least minDD, naming fields under prefix.
func (wl Workload) validate(prefix string, minDD int64) error {
	rng := func(field string, v, lo, hi int64) error {
		if v < lo || v > hi {
			return fmt.Errorf("%s%s: %d out of range [%d, %d]", prefix, field, v, lo, hi)
		}
		return nil
	}
	bsMin := int64(512)
	if wl.DD == 0 && wl.BS == 0 {
		bsMin = 0 // no dd: no block size needed
	}
	for _, err := range []error{
		rng("dd", int64(wl.DD), minDD, MaxDD),
		rng("bs", wl.BS, bsMin, MaxBS),
		rng("count", wl.Count, 0, 1<<40/max(wl.BS, 1)),
		rng("readers", int64(wl.Readers), 0, MaxReaders),
		rng("read_bs", wl.ReadBS, 0, MaxBS),
	} {
		if err != nil {
			return err
		}
	}
	return wl.validateEditors(prefix)
}

// validateEditors checks the editor fields.
func (wl Workload) validateEditors(prefix string) error {
	if wl.Editors < 0 || wl.Editors > MaxEditors {
		return fmt.Errorf("%seditors: %d out of range [0, %d]", prefix, wl.Editors, MaxEditors)
	}
	if wl.EditorBytes < 0 || wl.EditorBytes > 64<<20 {
		return fmt.Errorf("%seditor_bytes: %s out of range [0 (16 KiB), 64 MiB]", prefix, devices.FormatBytes(wl.EditorBytes))
	}
	if iv := wl.EditorInterval; iv != 0 && (iv < Duration(10*time.Millisecond) || iv > Duration(time.Hour)) {
		return fmt.Errorf("%seditor_interval: %v out of range [10ms, 1h0m0s] (0 = 1s)", prefix, iv)
	}
	return nil
}

// buildDisks mounts Config.Disks on the kernel (after the first disk) and sets the
// first disk's knobs.
func (m *Machine) buildDisks(variants kernel.Variants) error {
	k := m.k
	if m.cfg.BDI != nil {
		if err := k.SetKnobs(k.BDI, *m.cfg.BDI); err != nil {
			return err
		}
	}
	for i := range m.cfg.Disks {
		d := &m.cfg.Disks[i]
		spec, blk, err := diskBlock(d.Device, d.Block, variants)
		if err != nil {
			return fmt.Errorf("disks[%d].block: %w", i, err)
		}
		d.Device = spec
		q, err := devices.New(m.w, spec, blk)
		if err != nil {
			return fmt.Errorf("disks[%d].device: %w", i, err)
		}
		name := DiskName(i + 1)
		q.SetDevName(name)
		f, err := fs.New(d.Filesystem)
		if err != nil {
			return fmt.Errorf("disks[%d].fs: %w", i, err)
		}
		if _, err := k.AddDisk(name, q, f, d.BDI); err != nil {
			return fmt.Errorf("disks[%d].%w", i, err)
		}
		m.disks = append(m.disks, Disk{Spec: spec, Queue: q, FS: f, BDI: name})
	}
	return nil
}

// startDiskTasks starts the first disk's editors, then every further disk's dd
// writers, readers and editors, at time 0.
func (m *Machine) startDiskTasks() {
	bdis := m.k.BDIs()
	for i := range bdis {
		wl := m.cfg.DiskAt(i).Workload
		if i > 0 {
			for range wl.DD {
				d := workload.NewDDOn(m.k, bdis[i], wl.BS, wl.Count, wl.Fsync)
				d.Start(0)
				m.dds = append(m.dds, d)
				m.ddDisk = append(m.ddDisk, i)
			}
			for j := 0; j < wl.Readers; j++ {
				r := workload.NewReaderOn(m.k, bdis[i], j, max(wl.ReadBS, 4096), wl.ReadRandom)
				r.Start(0)
				m.rds = append(m.rds, r)
				m.rdDisk = append(m.rdDisk, i)
			}
		}
		bytes, iv := wl.EditorBytes, wl.EditorInterval
		if bytes == 0 {
			bytes = DefaultEditorBytes
		}
		if iv == 0 {
			iv = DefaultEditorInterval
		}
		for range wl.Editors {
			e := workload.NewEditorOn(m.k, bdis[i], bytes, iv.Time())
			e.Start(0)
			m.eds = append(m.eds, e)
			m.edDisk = append(m.edDisk, i)
		}
	}
}

func latencyResult(s workload.LatencyStats) LatencyResult {
	ms := func(t sim.Time) float64 { return float64(t) / 1e6 }
	return LatencyResult{N: s.N, P50Ms: ms(s.P50), P99Ms: ms(s.P99), MaxMs: ms(s.Max)}
}

// sampleDisks records each bdi's dirty + writeback high-water mark and, with
// several disks, the per-disk series (DiskSeries).
func (m *Machine) sampleDisks() {
	bdis := m.k.BDIs()
	if len(m.maxDirty) < len(bdis) {
		m.maxDirty = make([]int64, len(bdis))
	}
	for i, b := range bdis {
		m.maxDirty[i] = max(m.maxDirty[i], b.Stats.Reclaimable+b.Stats.Writeback)
	}
	if len(bdis) < 2 {
		return
	}
	if m.diskSamples == nil {
		m.diskSamples = make([][]float64, len(bdis)*len(DiskSeries))
		m.diskPrev = make([]devices.Iostat, len(bdis))
		m.diskPrevT = make([]sim.Time, len(bdis))
	}
	now := m.w.Now()
	_, thresh, _, setpoint := m.k.DirtyLimits()
	for i, b := range bdis {
		st := b.Q.Stats()
		x := diskSample{b: b, thresh: m.k.BdiThresh(b), io: devices.Rates(m.diskPrev[i], st, now-m.diskPrevT[i])}
		m.diskPrev[i], m.diskPrevT[i] = st, now
		// bdi_position_ratio (v3.2): bdi_setpoint = setpoint * (bdi_thresh << 16 / (thresh + 1)) >> 16
		x.setpoint = setpoint * (min(x.thresh, thresh) << 16 / (thresh + 1)) >> 16
		for j, c := range DiskSeries {
			k := i*len(DiskSeries) + j
			m.diskSamples[k] = append(m.diskSamples[k], c.sample(&x))
		}
	}
}

// diskSample is what one disk's series sample reads.
type diskSample struct {
	b                *kernel.BDI
	thresh, setpoint int64
	io               devices.IostatRates
}

// DiskColumn is one per-disk series: on a machine with several disks the series has
// it once per disk, named "diskN_" + Name (N = 1 for the first disk, in mount order).
type DiskColumn struct {
	Name, Unit, Doc, Kernel string
	sample                  func(x *diskSample) float64
}

// DiskSeries are the per-disk series of a machine with several disks.
var DiskSeries = []DiskColumn{
	{"dirty_MB", "MB", "the disk's dirty pages", "BDI_RECLAIMABLE (bdi_dirty_state reclaimable=)",
		func(x *diskSample) float64 { return mb(x.b.Stats.Reclaimable) }},
	{"writeback_MB", "MB", "the disk's pages under writeback", "BDI_WRITEBACK (bdi_dirty_state writeback=)",
		func(x *diskSample) float64 { return mb(x.b.Stats.Writeback) }},
	{"bdi_thresh_MB", "MB", "the disk's share of the dirty threshold", "bdi_dirty_limit / __wb_calc_thresh (bdi_dirty_state thresh=)",
		func(x *diskSample) float64 { return mb(x.thresh) }},
	{"bdi_setpoint_MB", "MB", "the disk's setpoint: the global setpoint scaled by its share", "bdi_position_ratio's bdi_setpoint (balance_dirty_pages bdi_setpoint=)",
		func(x *diskSample) float64 { return mb(x.setpoint) }},
	{"write_bw_MBps", "MB/s", "the disk's estimated write bandwidth", "bdi->write_bandwidth (bdi_dirty_ratelimit write_bw=)",
		func(x *diskSample) float64 { return mb(x.b.WriteBandwidth) }},
	{"avgqu_sz", "requests", "the disk's mean queue length", "iostat -x avgqu-sz of the disk",
		func(x *diskSample) float64 { return x.io.AvgQuSz }},
}

// diskSeriesNames are the per-disk columns of n disks, in Series order.
func diskSeriesNames(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		for _, c := range DiskSeries {
			out = append(out, report.DiskColumnName(i, c.Name))
		}
	}
	return out
}

// diskResults fills Result.Disks (only for several disks or editors: a one-disk
// Result stays as it was).
func (m *Machine) diskResults(r *Result) {
	if m.cfg.NumDisks() == 1 && len(m.eds) == 0 {
		return
	}
	runtime := m.w.Now().Seconds()
	for i, b := range m.k.BDIs() {
		d := m.cfg.DiskAt(i)
		dr := DiskResult{BDI: b.Name, Device: d.Device.Name, Filesystem: d.Filesystem,
			WrittenMB: mb(b.Stats.Written), DirtiedMB: mb(b.Stats.Dirtied), BdiThreshMB: mb(m.k.BdiThresh(b))}
		if runtime > 0 {
			dr.WriteMBps = dr.WrittenMB / runtime
		}
		if i < len(m.maxDirty) {
			dr.MaxDirtyMB = mb(m.maxDirty[i])
		}
		dr.FullAtS, _ = m.fullAt(i)
		for j, dd := range m.dds {
			if m.ddDiskOf(j) == i && dd.Done {
				dr.DDExitS = max(dr.DDExitS, dd.Ended.Seconds())
			}
		}
		for j, e := range m.eds {
			if m.edDisk[j] == i {
				lr := latencyResult(e.Saves())
				lr.InFlightMs = float64(e.InFlight()) / 1e6
				dr.Editors = append(dr.Editors, lr)
			}
		}
		for j, rd := range m.rds {
			if m.rdDiskOf(j) == i {
				dr.Readers = append(dr.Readers, latencyResult(rd.Latency()))
			}
		}
		r.Disks = append(r.Disks, dr)
	}
}

// ddDiskOf is the disk of dd j (the first disk's dd come first, untracked).
func (m *Machine) ddDiskOf(j int) int {
	first := len(m.dds) - len(m.ddDisk)
	if j < first {
		return 0
	}
	return m.ddDisk[j-first]
}

// rdDiskOf is the disk of reader j.
func (m *Machine) rdDiskOf(j int) int {
	first := len(m.rds) - len(m.rdDisk)
	if j < first {
		return 0
	}
	return m.rdDisk[j-first]
}

// DiskKeys are the keys of the --disk form beside the device's own keys
// (devices.Keys), with their meaning, for help texts.
var DiskKeys = []struct{ Key, Doc string }{
	{"fs", "filesystem on the disk (default generic)"},
	{"dd", "dd writers on the disk (default 0)"},
	{"bs", "their block size (default 4k)"},
	{"count", "blocks each writes; 0 = until the run ends"},
	{"fsync", "conv=fsync after the last block (on/off)"},
	{"readers", "synchronous readers of the disk"},
	{"read_bs", "bytes per read (default 4k)"},
	{"read_random", "random reads (on/off)"},
	{"editors", "editors saving a small file with fsync every interval"},
	{"editor_bytes", "bytes per save (default 16k)"},
	{"editor_interval", "time between saves (default 1s)"},
	{"min_ratio", "bdi min_ratio, percent (2.6.25+)"},
	{"max_ratio", "bdi max_ratio, percent (2.6.25+, default 100)"},
	{"strictlimit", "/sys/class/bdi strict_limit (6.3+: variant bdi_knobs_v63 on 6.1; before, only FUSE mounts; on/off)"},
	{"min_bytes", "bdi min_bytes (6.3+: variant bdi_knobs_v63), converted to a ratio of the dirty threshold"},
	{"max_bytes", "bdi max_bytes (6.3+: variant bdi_knobs_v63), converted to a ratio of the dirty threshold"},
}

// ParseDisk parses the --disk form "DEVICE[,key=value...]": a device preset, then
// the DiskKeys and the device's override keys in any order, e.g.
// "usb2-stick,fs=ext4,dd=1,count=1024,bs=1M,max_ratio=5". Errors name the key.
func ParseDisk(text string) (DiskConfig, error) {
	parts := strings.Split(text, ",")
	d := DiskConfig{Filesystem: "generic", BDI: kernel.DefaultBdiKnobs()}
	var devParts []string
	onOff := func(key, v string) (bool, error) {
		switch strings.ToLower(v) {
		case "1", "on", "true", "yes":
			return true, nil
		case "0", "off", "false", "no":
			return false, nil
		}
		return false, fmt.Errorf("disk: %s=%q: want on or off", key, v)
	}
	for _, kv := range parts[1:] {
		key, v, ok := strings.Cut(kv, "=")
		key, v = strings.TrimSpace(key), strings.TrimSpace(v)
		if !ok {
			return DiskConfig{}, fmt.Errorf("disk %s: %q is not key=value (keys: %s, and the device's: %s)",
				parts[0], kv, diskKeyList(), strings.Join(devices.Keys(), ", "))
		}
		num := func(dst *int, lo, hi int) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi {
				return fmt.Errorf("disk: %s=%q: want an integer in [%d, %d]", key, v, lo, hi)
			}
			*dst = n
			return nil
		}
		size := func(dst *int64) error {
			n, err := devices.ParseBytes(v)
			if err != nil {
				return fmt.Errorf("disk: %s=%q: %v", key, v, err)
			}
			*dst = n
			return nil
		}
		var err error
		wl := &d.Workload
		switch key {
		case "fs":
			d.Filesystem = v
		case "dd":
			err = num(&wl.DD, 0, MaxDD)
		case "bs":
			err = size(&wl.BS)
		case "count":
			var n int64
			n, err = strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				err = fmt.Errorf("disk: count=%q: want a non-negative integer", v)
			}
			wl.Count = n
		case "fsync":
			wl.Fsync, err = onOff(key, v)
		case "readers":
			err = num(&wl.Readers, 0, MaxReaders)
		case "read_bs":
			err = size(&wl.ReadBS)
		case "read_random":
			wl.ReadRandom, err = onOff(key, v)
		case "editors":
			err = num(&wl.Editors, 0, MaxEditors)
		case "editor_bytes":
			err = size(&wl.EditorBytes)
		case "editor_interval":
			wl.EditorInterval, err = ParseDuration(v)
		case "min_ratio":
			err = num(&d.BDI.MinRatio, 0, 100)
		case "max_ratio":
			err = num(&d.BDI.MaxRatio, 1, 100)
		case "strictlimit":
			d.BDI.StrictLimit, err = onOff(key, v)
		case "min_bytes":
			err = size(&d.BDI.MinBytes)
		case "max_bytes":
			err = size(&d.BDI.MaxBytes)
		default:
			devParts = append(devParts, kv)
		}
		if err != nil {
			return DiskConfig{}, err
		}
	}
	if d.Workload.DD > 0 && d.Workload.BS == 0 {
		d.Workload.BS = 4096
	}
	spec, blk, err := devices.ParseSpec(strings.Join(append([]string{parts[0]}, devParts...), ","))
	if err != nil {
		return DiskConfig{}, fmt.Errorf("disk: %w (disk keys: %s)", err, diskKeyList())
	}
	d.Device, d.Block = spec, blk
	return d, nil
}

func diskKeyList() string {
	var ks []string
	for _, k := range DiskKeys {
		ks = append(ks, k.Key)
	}
	return strings.Join(ks, ", ")
}

// String is the disk in ParseDisk form: the device (preset and overrides), then
// the disk keys that differ from ParseDisk's defaults.
func (d DiskConfig) String() string {
	var b strings.Builder
	b.WriteString(d.Device.String() + d.Block.String())
	add := func(k, v string) { b.WriteString("," + k + "=" + v) }
	onOff := func(v bool) string {
		if v {
			return "on"
		}
		return "off"
	}
	wl := d.Workload
	add("fs", d.Filesystem)
	if wl.DD != 0 {
		add("dd", strconv.Itoa(wl.DD))
		add("bs", devices.FormatBytes(wl.BS))
	}
	if wl.Count != 0 {
		add("count", strconv.FormatInt(wl.Count, 10))
	}
	if wl.Fsync {
		add("fsync", "on")
	}
	if wl.Readers != 0 {
		add("readers", strconv.Itoa(wl.Readers))
	}
	if wl.ReadBS != 0 {
		add("read_bs", devices.FormatBytes(wl.ReadBS))
	}
	if wl.ReadRandom {
		add("read_random", "on")
	}
	if wl.Editors != 0 {
		add("editors", strconv.Itoa(wl.Editors))
	}
	if wl.EditorBytes != 0 {
		add("editor_bytes", devices.FormatBytes(wl.EditorBytes))
	}
	if wl.EditorInterval != 0 {
		add("editor_interval", wl.EditorInterval.String())
	}
	if d.BDI.MinRatio != 0 {
		add("min_ratio", strconv.Itoa(d.BDI.MinRatio))
	}
	if d.BDI.MaxRatio != 100 {
		add("max_ratio", strconv.Itoa(d.BDI.MaxRatio))
	}
	if d.BDI.StrictLimit {
		add("strictlimit", onOff(true))
	}
	if d.BDI.MinBytes != 0 {
		add("min_bytes", devices.FormatBytes(d.BDI.MinBytes))
	}
	if d.BDI.MaxBytes != 0 {
		add("max_bytes", devices.FormatBytes(d.BDI.MaxBytes))
	}
	return b.String()
}

// Editors lists the editors of every disk, in start order.
func (m *Machine) Editors() []*workload.Editor { return m.eds }

// Readers lists the readers of every disk, in start order.
func (m *Machine) Readers() []*workload.Reader { return m.rds }
