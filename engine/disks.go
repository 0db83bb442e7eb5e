package engine

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/workload"
)

// A machine's disks: Config.Disks, each with its own device (and block layer),
// filesystem, bdi knobs and tasks. Each disk gets its own bdi ("8:0", "8:16", ...
// as sda, sdb ... number them), request queue and, on per-bdi kernels, flusher.

// DiskConfig is one disk of the machine and the tasks that use it.
type DiskConfig struct {
	Device devices.Spec `json:"device"`
	// Block overrides keys of the block layer the kernel preset puts in front of
	// the device (kernel.Variants.Block): "wbt": "off", "max_sectors_kb": "256".
	Block      devices.BlockOverrides `json:"block,omitempty"`
	Filesystem string                 `json:"fs"` // generic (ext3, ext4, xfs, btrfs come with their models)
	// BDI is the disk's /sys/class/bdi knobs (JSON: absent is min_ratio 0, max_ratio 100).
	BDI kernel.BdiKnobs `json:"bdi"`
	// Workload is what runs on this disk: its dd writers, readers and editors
	// (dd may be 0 when another disk runs a task).
	Workload Workload `json:"workload"`
}

// UnmarshalJSON decodes a disk; an absent "bdi" is the default knobs.
func (d *DiskConfig) UnmarshalJSON(b []byte) error {
	type plain DiskConfig
	p := plain{BDI: kernel.DefaultBdiKnobs()}
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*d = DiskConfig(p)
	return nil
}

// DefaultDisk is the disk of DefaultConfig: the default device with the generic
// filesystem, default bdi knobs, and one dd writing 4 KiB blocks.
func DefaultDisk() DiskConfig {
	dev, _ := devices.Preset(DefaultDevice)
	return DiskConfig{Device: dev, Filesystem: "generic", BDI: kernel.DefaultBdiKnobs(), Workload: Workload{DD: 1, BS: 4096}}
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

// Clone is c with its own disk list (and block overrides and switch overrides):
// a copied Config shares its Disks with the original, so a copy whose disks
// change is made with Clone.
func (c Config) Clone() Config {
	c.Variants = maps.Clone(c.Variants)
	c.Disks = slices.Clone(c.Disks)
	for i := range c.Disks {
		c.Disks[i].Block = maps.Clone(c.Disks[i].Block)
	}
	return c
}

// NumDisks is how many disks the machine has.
func (c *Config) NumDisks() int { return len(c.Disks) }

// totalDD is the dd count over every disk.
func (c *Config) totalDD() int64 {
	n := int64(0)
	for _, d := range c.Disks {
		n += int64(d.Workload.DD)
	}
	return n
}

// diskPrefix names disk i's fields in errors: none for the first disk (the
// forms' own keys: "fs", "workload.dd"), "disks[i]." for the others.
func diskPrefix(i int) string {
	if i == 0 {
		return ""
	}
	return fmt.Sprintf("disks[%d].", i)
}

// validateDisks checks the disk list: each disk's device, block overrides,
// filesystem, knobs (against the kernel's switches v) and tasks, the min_ratio
// sum, and that some task runs.
func (c *Config) validateDisks(v kernel.Variants) error {
	if len(c.Disks) == 0 {
		return fmt.Errorf("disks: the machine has no disk")
	}
	if len(c.Disks) > MaxDisks {
		return fmt.Errorf("disks: %d disks, at most %d", c.NumDisks(), MaxDisks)
	}
	minSum := 0
	tasks := 0
	for i, d := range c.Disks {
		prefix := diskPrefix(i)
		if !slices.Contains(Filesystems(), d.Filesystem) {
			return fmt.Errorf("%sfs: %q is not a filesystem (allowed: %s)", prefix, d.Filesystem, strings.Join(Filesystems(), ", "))
		}
		if err := d.Device.Validate(); err != nil {
			if i == 0 {
				return err
			}
			return fmt.Errorf("%sdevice: %w", prefix, err)
		}
		if i > 0 && d.Device.DM {
			// its per-bio cost is the kernel's submit_bio cost (one per machine)
			return fmt.Errorf("%sdevice.dm: device-mapper is modelled on the first disk only", prefix)
		}
		if err := d.Block.Validate(); err != nil {
			if i == 0 {
				return err
			}
			return fmt.Errorf("%sblock: %w", prefix, err)
		}
		minDD := int64(0)
		if len(c.Disks) == 1 && d.Workload.Editors == 0 {
			minDD = 1 // a one-disk machine without editors runs a dd
		}
		if err := d.Workload.validate(prefix+"workload.", minDD); err != nil {
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
	bsMin := int64(512)
	if wl.DD == 0 && wl.BS == 0 {
		bsMin = 0 // no dd: no block size needed
	}
	for _, err := range []error{
		rng(prefix+"dd", int64(wl.DD), minDD, MaxDD),
		rng(prefix+"bs", wl.BS, bsMin, MaxBS),
		rng(prefix+"count", wl.Count, 0, 1<<40/max(wl.BS, 1)),
		rng(prefix+"readers", int64(wl.Readers), 0, MaxReaders),
		rng(prefix+"read_bs", wl.ReadBS, 0, MaxBS),
	} {
		if err != nil {
			return err
		}
	}
	if bs := wl.BS; bs != 0 && bs%4096 != 0 && 4096%bs != 0 {
		return fmt.Errorf("%sbs: %d must divide 4096 (512, 1024, 2048) or be a multiple of 4096", prefix, bs)
	}
	if rb := wl.ReadBS; rb != 0 && (rb < 4096 || rb%4096 != 0) {
		return fmt.Errorf("%sread_bs: %d must be a multiple of 4096", prefix, rb)
	}
	if wl.Fsync && wl.Count == 0 {
		return fmt.Errorf("%sfsync: conv=fsync needs %scount > 0 (the dd must finish to fsync)", prefix, prefix)
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
