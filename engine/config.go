package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Config is one simulated machine and workload. The zero value is not valid; start
// from DefaultConfig or harness.ConfigForCase. All sizes are bytes, all times are
// Durations (JSON: "600s", "100ms"), ratios are percent like the sysctls.
type Config struct {
	Case     string           `json:"case,omitempty"`     // the run's label: the harness case name it came from (harness.CaseOf)
	Kernel   string           `json:"kernel"`             // a kernel preset name (see kernel.Presets)
	Variants kernel.Overrides `json:"variants,omitempty"` // switches overriding the preset's, by name
	CPUs     int              `json:"cpus"`
	MemoryMB int64            `json:"memory_MB"`
	// Reclaim turns on the page-reclaim model (kernel vmscan.go): the memory
	// applications hold and whether there is swap; the page cache starts as the
	// rest, full of clean pages. nil: the page cache never fills.
	Reclaim *ReclaimConfig `json:"reclaim,omitempty"`
	HZ      int            `json:"hz"`
	// CPUSpeedPct is the CPUs' speed in percent of the 2011-era core the CPU costs
	// are calibrated on (kernel.DefaultCosts); 0 is 100. A slower machine (an
	// emulated guest) takes longer for every CPU burst: dd's copies, the flusher's
	// page walk, a save's syscalls.
	CPUSpeedPct int `json:"cpu_speed_pct,omitempty"`

	// Sysctls are the vm.* sysctls (dirty_bytes ... dirty_writeback_centisecs),
	// declared once in package kernel; their JSON fields sit here, in place.
	kernel.Sysctls

	// Disks are the machine's disks in mount order (sda, sdb ...; disks.go): each
	// its device, block layer overrides, filesystem, bdi knobs and tasks. At least
	// one. (Before, the first disk was the top-level device, block, fs, bdi and
	// workload and "disks" the rest; UnmarshalJSON still reads that form.)
	Disks []DiskConfig `json:"disks"`
	// Runtime is the simulated run length; with only count-limited dd (no readers)
	// the run ends earlier, once every dd exited and no page is dirty or under
	// writeback.
	Runtime Duration `json:"runtime"`
	Seed    uint64   `json:"seed"`

	// SampleInterval is the time-series period; 0 picks one that keeps at most
	// MaxSamples rows (1 s for the harness's 600 s runs).
	SampleInterval Duration `json:"sample_interval,omitempty"`
	// TraceLines > 0 records the newest TraceLines trace lines (kernel text format).
	TraceLines int `json:"trace_lines,omitempty"`
	// TraceSampled keeps the whole run at a sampled rate in TraceLines lines (one of
	// every 2^k lines) instead of the newest lines.
	TraceSampled bool `json:"trace_sampled,omitempty"`
	// TraceFrom and TraceUntil keep only the lines of that window (until 0: the end).
	TraceFrom  Duration `json:"trace_from,omitempty"`
	TraceUntil Duration `json:"trace_until,omitempty"`
	// Detail records per-inode list membership, dirty pages and pages per call, and
	// per-task rates and pause histograms at every series row (Result.Detail), and
	// the oldest dirty data age (DirtyAge.MaxDataS); bounded by MaxSamples rows and
	// MaxDetailInodes/MaxDetailTasks.
	Detail bool `json:"detail,omitempty"`
	// CheckInvariants checks the model's invariants after every event (tests).
	CheckInvariants bool `json:"check_invariants,omitempty"`
}

// ReclaimConfig is the memory beside the page cache, for page reclaim.
type ReclaimConfig struct {
	AnonMB int64 `json:"anon_MB"` // memory held by applications, never reclaimed (no swap-out is modelled)
	Swap   bool  `json:"swap"`    // a swap device is configured (the kernels of 2.6.32-3.13 then count anon as dirtyable)
}

// Workload is what the simulated user runs: N dd writers started together, as the
// harness's run_dd does (dd if=/dev/zero of=FILE bs=BS [count=COUNT] [conv=fsync]).
type Workload struct {
	DD    int   `json:"dd"`    // number of dd tasks, each writing its own file
	BS    int64 `json:"bs"`    // dd block size in bytes (one write() per block)
	Count int64 `json:"count"` // blocks per dd; 0 writes until the run ends
	Fsync bool  `json:"fsync"` // conv=fsync: fsync the file after the last block

	// Readers are tasks reading their own uncached files with one synchronous read
	// at a time (the latency blk-wbt watches); 0 = none.
	Readers    int   `json:"readers,omitempty"`
	ReadBS     int64 `json:"read_bs,omitempty"`     // bytes per read (default 4096)
	ReadRandom bool  `json:"read_random,omitempty"` // random offsets (else sequential)

	// Editors are editor-like tasks, each saving its own small file every
	// EditorInterval (0: 1 s): EditorBytes (0: 16 KiB) of write()s, then fsync().
	Editors        int      `json:"editors,omitempty"`
	EditorBytes    int64    `json:"editor_bytes,omitempty"`
	EditorInterval Duration `json:"editor_interval,omitempty"`
}

// Duration is a time span that reads and writes JSON as a Go duration string.
type Duration int64

// Time converts to simulated time.
func (d Duration) Time() sim.Time { return sim.Time(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes "600s".
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads "600s", "1m30s" or a number of seconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		v, err := ParseDuration(s)
		if err != nil {
			return err
		}
		*d = v
		return nil
	}
	var secs float64
	if err := json.Unmarshal(b, &secs); err != nil {
		return fmt.Errorf("duration: want a string like \"600s\" or a number of seconds, got %s", b)
	}
	if secs < 0 || secs > float64(maxRuntime)/1e9 {
		return fmt.Errorf("duration: %v s out of range [0, %v]", secs, maxRuntime)
	}
	*d = Duration(secs * 1e9)
	return nil
}

// UnmarshalJSON decodes a Config, naming the field of a bad duration. It also
// reads the old form (saved files, old links' JSON): a top-level "device",
// "block", "fs", "bdi" or "workload" is the first disk, set over the first disk
// the Config already had (as the old form was set over the old fields), and
// "disks" then lists the further disks.
func (c *Config) UnmarshalJSON(b []byte) error {
	type plain Config
	prior := c.Disks
	aux := struct {
		*plain
		Runtime        json.RawMessage `json:"runtime"`
		SampleInterval json.RawMessage `json:"sample_interval,omitempty"`
		Disks          json.RawMessage `json:"disks"`
		// the old form's first disk
		Device     json.RawMessage `json:"device"`
		Block      json.RawMessage `json:"block"`
		Filesystem json.RawMessage `json:"fs"`
		BDI        json.RawMessage `json:"bdi"`
		Workload   json.RawMessage `json:"workload"`
	}{plain: (*plain)(c)}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *Duration
	}{{"runtime", aux.Runtime, &c.Runtime}, {"sample_interval", aux.SampleInterval, &c.SampleInterval}} {
		if len(f.raw) == 0 || string(f.raw) == "null" {
			continue
		}
		if err := f.dst.UnmarshalJSON(f.raw); err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
	}
	var disks []DiskConfig
	if len(aux.Disks) > 0 && string(aux.Disks) != "null" {
		if err := json.Unmarshal(aux.Disks, &disks); err != nil {
			return fmt.Errorf("disks: %w", err)
		}
	} else {
		disks = prior
	}
	old := false
	for _, raw := range []json.RawMessage{aux.Device, aux.Block, aux.Filesystem, aux.BDI, aux.Workload} {
		old = old || len(raw) > 0
	}
	if !old {
		c.Disks = disks
		return nil
	}
	first := DiskConfig{BDI: kernel.DefaultBdiKnobs()}
	if len(prior) > 0 {
		first = prior[0]
	}
	if len(aux.Disks) == 0 && len(prior) > 0 {
		disks = prior[1:]
	}
	// decoded by name, so that an error names the field ("device.qd")
	oldForm := struct {
		Device     *devices.Spec           `json:"device"`
		Block      *devices.BlockOverrides `json:"block"`
		Filesystem *string                 `json:"fs"`
		BDI        *kernel.BdiKnobs        `json:"bdi"`
		Workload   *Workload               `json:"workload"`
	}{&first.Device, &first.Block, &first.Filesystem, &first.BDI, &first.Workload}
	if err := json.Unmarshal(b, &oldForm); err != nil {
		return err
	}
	if string(aux.BDI) == "null" {
		first.BDI = kernel.DefaultBdiKnobs()
	}
	c.Disks = append([]DiskConfig{first}, disks...)
	return nil
}

// maxWorkEvents bounds a run's size up front: about runtime_s × (1000 + 50·dd)
// events (measured), at 5-10 M events/s natively.
const maxWorkEvents = 500_000_000

// ParseDuration parses "600s", "10m", "1.5s" or a bare number of seconds.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("duration: empty")
	}
	if v, err := time.ParseDuration(s); err == nil {
		return Duration(v), nil
	}
	v, err := time.ParseDuration(s + "s")
	if err != nil {
		return 0, fmt.Errorf("duration: %q is not a duration like 600s, 10m or 1.5s", s)
	}
	return Duration(v), nil
}

// Limits enforced by Validate.
const (
	MaxDD         = 10000
	MaxReaders    = 64
	MaxCPUs       = 256
	MinMemoryMB   = 64
	MaxMemoryMB   = 256 << 10 // 256 GiB
	MaxBS         = 64 << 20
	minRuntime    = Duration(time.Millisecond)
	maxRuntime    = Duration(24 * time.Hour)
	MaxTraceLines = 500_000 // ~200 MB of lines: more is fatal in a browser tab
	MaxSamples    = 2000
	maxCentisecs  = 360000 // 1 hour
)

// DefaultConfig is the harness's basic case on the generic filesystem:
// thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X, 600 s, seed 1.
// FirstPageConfig is the case the lab's page opens with when its link names none:
// the default case on ext4 (a real filesystem) with the per-inode Detail its views
// show. The page and its engine worker (which starts it before the page is up) both
// read it here.
func FirstPageConfig() Config {
	c := DefaultConfig()
	c.Disks[0].Filesystem = "ext4"
	c.Detail = true
	c.Case = "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X" // harness.CaseOf(c), tested there
	return c
}

func DefaultConfig() Config {
	return Config{
		Kernel:   kernel.DefaultPreset,
		Disks:    []DiskConfig{DefaultDisk()},
		CPUs:     8,
		MemoryMB: 4096,
		HZ:       1000,
		Sysctls: kernel.Sysctls{DirtyBytes: 100 << 20, DirtyBackgroundRatio: 10,
			DirtyExpireCs: 3000, DirtyWritebackCs: 500},
		Runtime: Duration(600 * time.Second),
		Seed:    1,
	}
}

// DefaultDevice is the device preset used when a case does not name one.
const DefaultDevice = "wu2011-hdd"

// Filesystems lists the filesystem models (fs.Models).
func Filesystems() []string { return fs.Names() }

// FilesystemDoc is a filesystem model's name and one-line description.
type FilesystemDoc struct{ Name, Doc string }

// FilesystemDocs describes the filesystem models, in fs.Models order.
func FilesystemDocs() []FilesystemDoc {
	out := make([]FilesystemDoc, len(fs.Models))
	for i, m := range fs.Models {
		out[i] = FilesystemDoc{m.Name, m.Doc}
	}
	return out
}

// Validate checks every field, naming the field, the value and the allowed range
// (Resolve without its result).
func (c *Config) Validate() error {
	_, err := c.Resolve()
	return err
}

// Resolved is a valid Config with its kernel preset and switch overrides applied
// and each disk's block layer set up: everything Build consumes, worked out once.
type Resolved struct {
	// Config is the Config with each disk's device as the kernel sets it up
	// (the elevator it runs for the one the device names).
	Config Config
	// Params are the kernel's: the machine, the sysctls, the switches (the
	// preset with the overrides), the CPU costs and reclaim.
	Params kernel.Params
	// Disks are each disk's block layer and bdi name, in Config.Disks order.
	Disks []ResolvedDisk
}

// ResolvedDisk is one disk as the kernel sets it up.
type ResolvedDisk struct {
	Block devices.Block
	BDI   string // major:minor as trace lines print it ("8:0"; dm-0 for a dm first disk)
}

// Resolve validates every field (errors name the field, the value and the allowed
// range) and resolves the kernel preset, the switch overrides and each disk's
// block layer, once.
func (c Config) Resolve() (*Resolved, error) {
	// every error at once (errors.Join, one a line): the machine's, the kernel's,
	// each disk's and the run's
	errs := c.machineErrors()
	preset, err := kernel.LookupPreset(c.Kernel)
	if err != nil {
		errs = append(errs, fmt.Errorf("kernel: %w", err))
	}
	if err := c.Variants.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("variants: %w", err))
	}
	v, err := c.Variants.Apply(preset.Variants)
	if err != nil {
		v = preset.Variants
	}
	errs = append(errs, c.diskErrors(v)...)
	if len(errs) == 0 { // the run's size and window, with the fields they use valid
		if err := c.validateRun(); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Resolved{Config: c}
	r.Config.Disks = slices.Clone(c.Disks)
	costs := kernel.DefaultCosts()
	for i := range r.Config.Disks {
		d := &r.Config.Disks[i]
		spec, blk, err := diskBlock(d.Device, d.Block, v)
		if err != nil {
			return nil, fmt.Errorf("%sblock: %w", diskPrefix(i), err)
		}
		d.Device = spec
		name := DiskName(i)
		if i == 0 && spec.DM {
			// the filesystem writes to the dm device (its bdi); its bios are cloned
			// onto the disk's queue (devices/dm.go)
			name = devices.DMName(0)
			costs.SubmitBio = devices.DMSubmitBio(costs.SubmitBio)
		}
		r.Disks = append(r.Disks, ResolvedDisk{Block: blk, BDI: name})
	}
	r.Params = kernel.Params{
		CPUs: c.CPUs, MemoryMB: c.MemoryMB, Sysctls: c.Sysctls,
		Variants: v, Costs: costs,
	}
	if c.Reclaim != nil {
		r.Params.Reclaim = &kernel.Reclaim{AnonMB: c.Reclaim.AnonMB, Swap: c.Reclaim.Swap}
	}
	return r, nil
}

// rng checks a field's range, naming the field, the value and the range
// ("workload.dd: -3 is out of range 1-10000").
func rng(field string, v, lo, hi int64) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %d is out of range %d-%d", field, v, lo, hi)
	}
	return nil
}

// machineErrors are the machine's and the sysctls' errors: every error of the key
// table (ConfigKeys: ranges, hz, runtime, trace_lines, sample_interval), reclaim
// and the threshold pairs.
func (c *Config) machineErrors() []error {
	errs := c.KeyErrors()
	if c.Reclaim != nil {
		lo, hi := int64(0), c.MemoryMB*7/8
		if a := c.Reclaim.AnonMB; a < lo || a > hi {
			errs = append(errs, fmt.Errorf("reclaim.anon_MB: %s is out of range 0-%s (7/8 of memory)",
				HumanBytes(a<<20), HumanBytes(hi<<20)))
		}
	}
	if c.DirtyBytes == 0 && c.DirtyRatio == 0 {
		errs = append(errs, fmt.Errorf("dirty_bytes/dirty_ratio: both 0; set dirty_bytes in [8192, memory] or dirty_ratio in [1, 100]"))
	}
	if c.DirtyBackgroundBytes == 0 && c.DirtyBackgroundRatio == 0 {
		errs = append(errs, fmt.Errorf("dirty_background_bytes/dirty_background_ratio: both 0; set one (ratio in [1, 100])"))
	}
	return errs
}

// validateRun checks the run's size, trace window and sample interval rows.
func (c *Config) validateRun() error {
	if work := c.Runtime.Time().Seconds() * float64(1000*int64(c.NumDisks())+50*c.totalDD()); work > maxWorkEvents {
		return fmt.Errorf("workload.dd × runtime: %d dd for %v is about %.0f M events, above the limit %d M (shorten the run or use fewer dd)",
			c.totalDD(), c.Runtime, work/1e6, maxWorkEvents/1_000_000)
	}
	if c.TraceUntil != 0 && c.TraceUntil <= c.TraceFrom {
		return fmt.Errorf("trace_until: %v must be after trace_from %v", c.TraceUntil, c.TraceFrom)
	}
	if c.TraceFrom < 0 || c.TraceFrom >= c.Runtime {
		return fmt.Errorf("trace_from: %v out of range [0s, runtime %v)", c.TraceFrom, c.Runtime)
	}
	if c.SampleInterval != 0 && int64(c.Runtime)/int64(c.SampleInterval) > MaxSamples*50 {
		return fmt.Errorf("sample_interval: %v gives more than %d rows for runtime %v", c.SampleInterval, MaxSamples*50, c.Runtime)
	}
	return nil
}

// sortedKeys is a helper for error messages.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
