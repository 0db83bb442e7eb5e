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

// diskErrors are the disk list's errors: each disk's device, block overrides,
// filesystem, knobs (against the kernel's switches v) and tasks, the min_ratio
// sum, and that some task runs.
func (c *Config) diskErrors(v kernel.Variants) []error {
	if len(c.Disks) == 0 {
		return []error{fmt.Errorf("disks: the machine has no disk")}
	}
	if len(c.Disks) > MaxDisks {
		return []error{fmt.Errorf("disks: %d disks, at most %d", c.NumDisks(), MaxDisks)}
	}
	var errs []error
	minSum := 0
	tasks := 0
	for i, d := range c.Disks {
		prefix := diskPrefix(i)
		if !slices.Contains(Filesystems(), d.Filesystem) {
			errs = append(errs, fmt.Errorf("%sfs: %q is not a filesystem (allowed: %s)", prefix, d.Filesystem, strings.Join(Filesystems(), ", ")))
		}
		if err := d.Device.Validate(); err != nil {
			if i > 0 {
				err = fmt.Errorf("%sdevice: %w", prefix, err)
			}
			errs = append(errs, err)
		}
		if i > 0 && d.Device.DM {
			// its per-bio cost is the kernel's submit_bio cost (one per machine)
			errs = append(errs, fmt.Errorf("%sdevice.dm: device-mapper is modelled on the first disk only", prefix))
		}
		if err := d.Block.Validate(); err != nil {
			if i > 0 {
				err = fmt.Errorf("%sblock: %w", prefix, err)
			}
			errs = append(errs, err)
		}
		minDD := int64(0)
		if len(c.Disks) == 1 && d.Workload.Editors == 0 {
			minDD = 1 // a one-disk machine without editors runs a dd
		}
		errs = append(errs, d.Workload.errors(prefix+"workload.", minDD)...)
		if err := d.BDI.Validate(v); err != nil {
			errs = append(errs, fmt.Errorf("%s%w", prefix, err))
		}
		minSum += d.BDI.MinRatio
		tasks += d.Workload.DD + d.Workload.Readers + d.Workload.Editors
	}
	if minSum >= 100 {
		// bdi_set_min_ratio: the sum over bdis must stay below 100
		errs = append(errs, fmt.Errorf("bdi.min_ratio: the disks' min_ratio add up to %d %%, the kernel allows less than 100", minSum))
	}
	if tasks == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("workload.dd: no task runs on any disk (give some disk a dd, reader or editor)"))
	}
	return errs
}

// errors are a disk's workload errors, dd at least minDD, naming fields under prefix.
func (wl Workload) errors(prefix string, minDD int64) []error {
	var errs []error
	bsMin := int64(512)
	if wl.DD == 0 && wl.BS == 0 {
		bsMin = 0 // no dd: no block size needed
	}
	for _, err := range []error{
		rng(prefix+"dd", int64(wl.DD), minDD, MaxDD),
		rngBytes(prefix+"bs", wl.BS, bsMin, MaxBS),
		rng(prefix+"count", wl.Count, 0, 1<<40/max(wl.BS, 1)),
		rng(prefix+"readers", int64(wl.Readers), 0, MaxReaders),
		rngBytes(prefix+"read_bs", wl.ReadBS, 0, MaxBS),
		rng(prefix+"editors", int64(wl.Editors), 0, MaxEditors),
		rngBytes(prefix+"editor_bytes", wl.EditorBytes, 0, 64<<20),
	} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if bs := wl.BS; bs > 0 && bs%4096 != 0 && 4096%bs != 0 {
		errs = append(errs, fmt.Errorf("%sbs: %d must divide 4096 (512, 1024, 2048) or be a multiple of 4096", prefix, bs))
	}
	if rb := wl.ReadBS; rb > 0 && (rb < 4096 || rb%4096 != 0) {
		errs = append(errs, fmt.Errorf("%sread_bs: %d must be a multiple of 4096", prefix, rb))
	}
	if wl.Fsync && wl.Count == 0 {
		errs = append(errs, fmt.Errorf("%sfsync: conv=fsync needs %scount > 0 (the dd must finish to fsync)", prefix, prefix))
	}
	if iv := wl.EditorInterval; iv != 0 && (iv < Duration(10*time.Millisecond) || iv > Duration(time.Hour)) {
		errs = append(errs, fmt.Errorf("%seditor_interval: %s is out of range 10 ms-1 h (0 = 1 s)", prefix, HumanDuration(iv)))
	}
	return errs
}

// rngBytes is rng for a size, in human units ("workload.bs: 100 MiB is out of
// range 512 bytes-64 MiB").
func rngBytes(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %s is out of range %s-%s", field, HumanBytes(v), HumanBytes(lo), HumanBytes(hi))
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

// DiskKey is one setting of a disk: its --disk key (also the page's control id
// and URL hash key of the first disk's, and the JSON name under the disk), its
// meaning for help texts, the page's label and control kind for the first disk
// ("": not a control; further disks are edited as --disk text), whether wblab
// run has a flag --KEY for the first disk, how its value parses into a
// DiskConfig and how it prints back ("": left out, the ParseDisk default).
// DiskKeys is the one list ParseDisk, DiskConfig.String, the page's first-disk
// controls, the run flags and the help texts read; a disk key is one row. Ranges
// are Validate's (errors name "workload.KEY" or "disks[i].workload.KEY").
type DiskKey struct {
	Key, Doc string
	Label    string // the page's label for the first disk ("": the key)
	Kind     string // the page's control: "text", "select" (Options) or "bool"
	Group    string // the page's group: workload (tasks) or device (bdi knobs)
	Flag     bool   // wblab run --KEY sets the first disk's value
	Zero     string // the form's text when format leaves the key out
	parse    func(d *DiskConfig, v string) error
	format   func(d DiskConfig) string
}

// Parse sets the key in d from text (empty: the key's zero). Errors name the key.
func (k DiskKey) Parse(d *DiskConfig, text string) error {
	v := strings.TrimSpace(text)
	if v == "" {
		v = k.Zero
	}
	return k.parse(d, v)
}

// FormLabel is the page's label of the first disk's control.
func (k DiskKey) FormLabel() string {
	if k.Label != "" {
		return k.Label
	}
	return k.Key
}

// Text is the key's value in d as the form shows it.
func (k DiskKey) Text(d DiskConfig) string {
	if v := k.format(d); v != "" {
		return v
	}
	return k.Zero
}

// IsBool is whether the key is on/off.
func (k DiskKey) IsBool() bool { return k.Kind == "bool" }

// DiskKeys are the --disk keys, in the order String prints them and the page
// shows the first disk's.
var DiskKeys = []DiskKey{
	{Key: "fs", Doc: "filesystem on the disk (default generic)", Label: "filesystem", Kind: "select", Group: "workload",
		parse:  func(d *DiskConfig, v string) error { d.Filesystem = v; return nil },
		format: func(d DiskConfig) string { return d.Filesystem }},
	intKey("dd", "dd writers on the disk (default 0)", "dd tasks", false, func(d *DiskConfig) *int { return &d.Workload.DD }),
	{Key: "bs", Doc: "their block size (default 4k)", Label: "bs", Kind: "text", Group: "workload", Zero: "0",
		parse: func(d *DiskConfig, v string) error { return parseSize("bs", v, &d.Workload.BS) },
		format: func(d DiskConfig) string { // printed with the dd, the default included
			if d.Workload.DD == 0 && d.Workload.BS == 0 {
				return ""
			}
			return FormatSize(d.Workload.BS)
		}},
	{Key: "count", Doc: "blocks each writes; 0 = until the run ends", Label: "count", Kind: "text", Group: "workload", Flag: true, Zero: "0",
		parse: func(d *DiskConfig, v string) error {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("count: %q is not a whole number", v)
			}
			d.Workload.Count = n
			return nil
		},
		format: func(d DiskConfig) string { return nonZero(d.Workload.Count, strconv.FormatInt(d.Workload.Count, 10)) }},
	boolKey("fsync", "conv=fsync after the last block (on/off)", "conv=fsync", true, func(d *DiskConfig) *bool { return &d.Workload.Fsync }),
	intKey("readers", "synchronous readers of the disk", "", true, func(d *DiskConfig) *int { return &d.Workload.Readers }),
	sizeKey("read_bs", "bytes per read (default 4k)", func(d *DiskConfig) *int64 { return &d.Workload.ReadBS }),
	boolKey("read_random", "random reads (on/off)", "", false, func(d *DiskConfig) *bool { return &d.Workload.ReadRandom }),
	intKey("editors", "editors saving a small file with fsync every interval", "", true, func(d *DiskConfig) *int { return &d.Workload.Editors }),
	sizeKey("editor_bytes", "bytes per save (default 16k)", func(d *DiskConfig) *int64 { return &d.Workload.EditorBytes }),
	{Key: "editor_interval", Doc: "time between saves (default 1s)", Kind: "text", Group: "workload", Zero: "0s",
		parse: func(d *DiskConfig, v string) error {
			iv, err := ParseDuration(v)
			if err != nil {
				return fmt.Errorf("editor_interval: %q is not a duration (e.g. 1s, 500ms)", v)
			}
			d.Workload.EditorInterval = iv
			return nil
		},
		format: func(d DiskConfig) string {
			return nonZero(d.Workload.EditorInterval, d.Workload.EditorInterval.String())
		}},
	intKey("min_ratio", "bdi min_ratio, percent (2.6.25+)", "", false, func(d *DiskConfig) *int { return &d.BDI.MinRatio }),
	{Key: "max_ratio", Doc: "bdi max_ratio, percent (2.6.25+, default 100)", Kind: "text", Group: "device", Zero: "100",
		parse:  func(d *DiskConfig, v string) error { return parseInt("max_ratio", v, &d.BDI.MaxRatio) },
		format: func(d DiskConfig) string { return nonZero(d.BDI.MaxRatio-100, strconv.Itoa(d.BDI.MaxRatio)) }},
	boolKey("strictlimit", "/sys/class/bdi strict_limit (6.2+: variant bdi_knobs_v62 on 6.1; before, only FUSE mounts; on/off)", "", false,
		func(d *DiskConfig) *bool { return &d.BDI.StrictLimit }),
	sizeKey("min_bytes", "bdi min_bytes (6.2+: variant bdi_knobs_v62), converted to a ratio of the dirty threshold",
		func(d *DiskConfig) *int64 { return &d.BDI.MinBytes }),
	sizeKey("max_bytes", "bdi max_bytes (6.2+: variant bdi_knobs_v62), converted to a ratio of the dirty threshold",
		func(d *DiskConfig) *int64 { return &d.BDI.MaxBytes }),
}

// intKey is a disk key holding an integer, printed when not 0; label puts it on
// the page's form, flag makes it a run flag.
func intKey(key, doc, label string, flag bool, field func(*DiskConfig) *int) DiskKey {
	return DiskKey{Key: key, Doc: doc, Label: label, Kind: "text", Group: keyGroup(key), Flag: flag, Zero: "0",
		parse:  func(d *DiskConfig, v string) error { return parseInt(key, v, field(d)) },
		format: func(d DiskConfig) string { n := *field(&d); return nonZero(n, strconv.Itoa(n)) }}
}

// sizeKey is a disk key holding a size in bytes ("4k", "1M"), printed when not 0.
func sizeKey(key, doc string, field func(*DiskConfig) *int64) DiskKey {
	return DiskKey{Key: key, Doc: doc, Kind: "text", Group: keyGroup(key), Zero: "0",
		parse:  func(d *DiskConfig, v string) error { return parseSize(key, v, field(d)) },
		format: func(d DiskConfig) string { n := *field(&d); return nonZero(n, FormatSize(n)) }}
}

// boolKey is an on/off disk key, printed when on.
func boolKey(key, doc, label string, flag bool, field func(*DiskConfig) *bool) DiskKey {
	return DiskKey{Key: key, Doc: doc, Label: label, Kind: "bool", Group: keyGroup(key), Flag: flag, Zero: "off",
		parse: func(d *DiskConfig, v string) error {
			switch strings.ToLower(v) {
			case "1", "on", "true", "yes":
				*field(d) = true
			case "0", "off", "false", "no":
				*field(d) = false
			default:
				return fmt.Errorf("%s: %q: want on or off", key, v)
			}
			return nil
		},
		format: func(d DiskConfig) string { return nonZero(*field(&d), "on") }}
}

// keyGroup is the page's group of a disk key: the bdi knobs' is the device's.
func keyGroup(key string) string {
	switch key {
	case "min_ratio", "max_ratio", "strictlimit", "min_bytes", "max_bytes":
		return "device"
	}
	return "workload"
}

// parseInt reads a whole number; its range is Validate's.
func parseInt(key, v string, dst *int) error {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: %q is not a whole number", key, v)
	}
	*dst = clampInt(n)
	return nil
}

func parseSize(key, v string, dst *int64) error {
	n, err := devices.ParseBytes(v)
	if err != nil {
		return fmt.Errorf("%s: %q is not a size (e.g. 4k, 1M)", key, v)
	}
	*dst = n
	return nil
}

// nonZero is text when v is not its type's zero value, else "".
func nonZero[T comparable](v T, text string) string {
	var zero T
	if v == zero {
		return ""
	}
	return text
}

// LookupDiskKey is the row of key.
func LookupDiskKey(key string) (DiskKey, bool) {
	for _, k := range DiskKeys {
		if k.Key == key {
			return k, true
		}
	}
	return DiskKey{}, false
}

// ParseDisk parses the --disk form "DEVICE[,key=value...]": a device preset, then
// the DiskKeys and the device's override keys in any order, e.g.
// "usb2-stick,fs=ext4,dd=1,count=1024,bs=1M,max_ratio=5". Errors name the key.
func ParseDisk(text string) (DiskConfig, error) {
	parts := strings.Split(text, ",")
	d := DiskConfig{Filesystem: "generic", BDI: kernel.DefaultBdiKnobs()}
	var devParts []string
next:
	for _, kv := range parts[1:] {
		key, v, ok := strings.Cut(kv, "=")
		key, v = strings.TrimSpace(key), strings.TrimSpace(v)
		if !ok {
			return DiskConfig{}, fmt.Errorf("disk %s: %q is not key=value (keys: %s, and the device's: %s)",
				parts[0], kv, diskKeyList(), strings.Join(devices.Keys(), ", "))
		}
		for _, k := range DiskKeys {
			if k.Key == key {
				if err := k.parse(&d, v); err != nil {
					return DiskConfig{}, fmt.Errorf("disk: %w", err)
				}
				continue next
			}
		}
		devParts = append(devParts, kv)
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
	for _, k := range DiskKeys {
		if v := k.format(d); v != "" {
			b.WriteString("," + k.Key + "=" + v)
		}
	}
	return b.String()
}

// Editors lists the editors of every disk, in start order.
func (m *Machine) Editors() []*workload.Editor { return m.eds }

// Readers lists the readers of every disk, in start order.
func (m *Machine) Readers() []*workload.Reader { return m.rds }
