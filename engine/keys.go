package engine

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
)

// ConfigKey is one setting of a Config as every surface names it: its JSON name
// (errors start with it), the page's control and URL hash key, the wblab run flag,
// its label, group and help, whether it is a size, how it reads and writes the
// Config, and its allowed range. ConfigKeys is the one table the CLI's flags and
// help, the page's form, hash and error placement, and Validate's range checks
// read: a setting is one row.
type ConfigKey struct {
	JSON  string // "dirty_expire_centisecs"
	Form  string // the page's control id and URL hash key ("expire"; "": no control)
	Flag  string // the wblab run flag ("": none, the case name sets it)
	Label string // the page's label
	Group string // the page's group: sysctl, machine, kernel, run; output: CLI only
	Help  string // one line: what it is, for the page and wblab help run
	// Kind is the page's control: "text" ("" too) or "select" (Options).
	Kind string
	// Arg is the flag's argument in wblab help run ("N", "DUR", "NAME").
	Arg string
	// Size is a size in bytes ("100M"); the form's empty text is 0.
	Size bool
	// Unset: 0 means the setting is unset (a _bytes sysctl whose _ratio rules,
	// an automatic sample interval) and is not range-checked.
	Unset bool
	// Unit is how errors print a value: "bytes" (as KiB, MiB, GiB), "MiB"
	// (likewise), "duration" (a Duration, as "24 h", "1 ms"), or a suffix ("%",
	// "centisecs"); "" a bare number.
	Unit   string
	get    func(c *Config) int64
	set    func(c *Config, v int64)
	bounds func(c *Config) (lo, hi int64)
	// A setting that is not a number reads and writes its text itself (kernel,
	// seed) and checks itself (check; nil: none, or the range of bounds).
	parse func(c *Config, text string) error
	text  func(c *Config) string
	check func(c *Config) error
}

// ConfigKeys are the table's settings, in the page's order.
var ConfigKeys = []ConfigKey{
	{JSON: "dirty_bytes", Unit: "bytes", Form: "dirty_bytes", Label: "dirty_bytes", Group: "sysctl", Size: true, Unset: true,
		Help: "vm.dirty_bytes (100M; empty = use ratio)",
		get:  func(c *Config) int64 { return c.DirtyBytes }, set: func(c *Config, v int64) { c.DirtyBytes = v },
		bounds: func(c *Config) (int64, int64) { return 2 * 4096, c.MemoryMB << 20 }},
	{JSON: "dirty_ratio", Unit: "%", Form: "dirty_ratio", Label: "dirty_ratio", Group: "sysctl", Help: "vm.dirty_ratio, %",
		get: func(c *Config) int64 { return int64(c.DirtyRatio) }, set: func(c *Config, v int64) { c.DirtyRatio = clampInt(v) },
		bounds: fixed(0, 100)},
	{JSON: "dirty_background_bytes", Unit: "bytes", Form: "bg_bytes", Label: "dirty_background_bytes", Group: "sysctl", Size: true, Unset: true,
		Help: "empty = use ratio",
		get:  func(c *Config) int64 { return c.DirtyBackgroundBytes }, set: func(c *Config, v int64) { c.DirtyBackgroundBytes = v },
		bounds: func(c *Config) (int64, int64) { return 4096, c.MemoryMB << 20 }},
	{JSON: "dirty_background_ratio", Unit: "%", Form: "bg_ratio", Label: "dirty_background_ratio", Group: "sysctl", Help: "%",
		get: func(c *Config) int64 { return int64(c.DirtyBackgroundRatio) }, set: func(c *Config, v int64) { c.DirtyBackgroundRatio = clampInt(v) },
		bounds: fixed(0, 100)},
	{JSON: "dirty_expire_centisecs", Unit: "centisecs", Form: "expire", Flag: "expire-cs", Label: "dirty_expire_centisecs", Group: "sysctl",
		Help: "vm.dirty_expire_centisecs",
		get:  func(c *Config) int64 { return int64(c.DirtyExpireCs) }, set: func(c *Config, v int64) { c.DirtyExpireCs = clampInt(v) },
		bounds: fixed(1, maxCentisecs)},
	{JSON: "dirty_writeback_centisecs", Unit: "centisecs", Form: "writeback", Flag: "writeback-cs", Label: "dirty_writeback_centisecs", Group: "sysctl",
		Help: "vm.dirty_writeback_centisecs; 0 disables periodic writeback",
		get:  func(c *Config) int64 { return int64(c.DirtyWritebackCs) }, set: func(c *Config, v int64) { c.DirtyWritebackCs = clampInt(v) },
		bounds: fixed(0, maxCentisecs)},
	{JSON: "memory_MB", Unit: "MiB", Form: "memory", Label: "memory (MB)", Group: "machine",
		get: func(c *Config) int64 { return c.MemoryMB }, set: func(c *Config, v int64) { c.MemoryMB = v },
		bounds: fixed(MinMemoryMB, MaxMemoryMB)},
	{JSON: "cpus", Form: "cpus", Label: "CPUs", Group: "machine",
		get: func(c *Config) int64 { return int64(c.CPUs) }, set: func(c *Config, v int64) { c.CPUs = clampInt(v) },
		bounds: fixed(1, MaxCPUs)},
	{JSON: "cpu_speed_pct", Form: "cpu_speed", Flag: "cpu-speed", Label: "CPU speed (%)", Group: "machine", Unit: "%", Unset: true, Arg: "PCT",
		Help: "the CPUs' speed, % of the 2011-era core the CPU costs are calibrated on (empty = 100; an emulated QEMU guest: ~7)",
		get:  func(c *Config) int64 { return int64(c.CPUSpeedPct) }, set: func(c *Config, v int64) { c.CPUSpeedPct = clampInt(v) },
		bounds: fixed(1, 10000)},
	{JSON: "hz", Form: "hz", Flag: "hz", Label: "HZ", Group: "machine", Kind: "select", Help: "kernel HZ: 100, 250, 300 or 1000",
		get: func(c *Config) int64 { return int64(c.HZ) }, set: func(c *Config, v int64) { c.HZ = clampInt(v) },
		check: func(c *Config) error {
			switch c.HZ {
			case 100, 250, 300, 1000:
				return nil
			}
			return fmt.Errorf("hz: %d is not a kernel HZ (allowed: 100, 250, 300, 1000)", c.HZ)
		}},
	{JSON: "reclaim.anon_MB", Form: "anon_mb", Label: "applications (MB)", Group: "machine",
		Help: "memory the applications hold; set, the page cache is the rest and page reclaim runs (empty: the page cache never fills)",
		parse: func(c *Config, text string) error {
			s := strings.TrimSpace(text)
			if s == "" {
				c.Reclaim = nil
				return nil
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a whole number of MB", s)
			}
			c.Reclaim = &ReclaimConfig{AnonMB: n, Swap: c.Reclaim != nil && c.Reclaim.Swap}
			return nil
		},
		text: func(c *Config) string {
			if c.Reclaim == nil {
				return ""
			}
			return strconv.FormatInt(c.Reclaim.AnonMB, 10)
		}},
	{JSON: "reclaim.swap", Form: "swap", Label: "swap", Group: "machine", Kind: "bool",
		Help: "a swap device (with page reclaim): the kernels of 2.6.32-3.13 then count the applications' memory as dirtyable",
		parse: func(c *Config, text string) error { // after anon_MB: swap needs reclaim
			if c.Reclaim != nil {
				c.Reclaim = &ReclaimConfig{AnonMB: c.Reclaim.AnonMB, Swap: strings.TrimSpace(text) == "on"}
			}
			return nil
		},
		text: func(c *Config) string {
			if c.Reclaim != nil && c.Reclaim.Swap {
				return "on"
			}
			return "off"
		}},
	{JSON: "reclaim", Flag: "reclaim", Group: "machine", Arg: "MB[,swap]",
		Help: "page reclaim: the applications hold MB MiB of memory (never reclaimed), the page cache is the rest, " +
			"with or without a swap device (2.6.32-3.13 count the applications' memory as dirtyable with swap); " +
			"default off: the page cache never fills",
		parse: func(c *Config, text string) error {
			if strings.TrimSpace(text) == "" {
				c.Reclaim = nil
				return nil
			}
			num, opt, _ := strings.Cut(strings.TrimSpace(text), ",")
			n, err := strconv.ParseInt(strings.TrimSuffix(num, "M"), 10, 64)
			if err != nil || (opt != "" && opt != "swap") {
				return fmt.Errorf("want the applications' MiB, optionally with swap: 3584 or 3584,swap")
			}
			c.Reclaim = &ReclaimConfig{AnonMB: n, Swap: opt == "swap"}
			return nil
		},
		text: func(c *Config) string {
			if c.Reclaim == nil {
				return ""
			}
			t := strconv.FormatInt(c.Reclaim.AnonMB, 10)
			if c.Reclaim.Swap {
				t += ",swap"
			}
			return t
		}},
	{JSON: "device", Flag: "device", Group: "device", Arg: "D",
		Help: "the first disk's device: preset NAME[,key=value...] (its keys and the block layer's, wblab presets)",
		parse: func(c *Config, text string) error {
			spec, blk, err := devices.ParseSpec(text)
			if err != nil {
				return err
			}
			*c = c.Clone() // its first disk changes: not the disk list of a Config it was copied from
			if len(c.Disks) == 0 {
				c.Disks = []DiskConfig{DefaultDisk()}
			}
			c.Disks[0].Device, c.Disks[0].Block = spec, blk
			return nil
		},
		text: func(c *Config) string { return c.Disks[0].Device.String() + c.Disks[0].Block.String() }},
	{JSON: "variants", Flag: "variants", Group: "kernel", Arg: "LIST",
		Help: "kernel switch overrides, name=true|false,... (none: the preset's switches)",
		parse: func(c *Config, text string) error {
			ov := Overrides{}
			for _, kv := range strings.Split(text, ",") {
				if strings.TrimSpace(kv) == "" {
					continue
				}
				k, b, ok := strings.Cut(kv, "=")
				if !ok {
					return fmt.Errorf("%q is not name=true|false (switches: %s)", kv, strings.Join(SwitchNames(), ", "))
				}
				on, err := strconv.ParseBool(strings.TrimSpace(b))
				if err != nil {
					return fmt.Errorf("%q: want true or false", kv)
				}
				ov[SwitchName(strings.TrimSpace(k))] = on
			}
			if err := ov.Validate(); err != nil {
				return err
			}
			c.Variants = maps.Clone(c.Variants)
			for k, b := range ov {
				if c.Variants == nil {
					c.Variants = Overrides{}
				}
				c.Variants[k] = b
			}
			return nil
		},
		text: func(c *Config) string {
			var out []string
			for _, k := range slices.Sorted(maps.Keys(c.Variants)) {
				out = append(out, k+"="+strconv.FormatBool(c.Variants[k]))
			}
			return strings.Join(out, ",")
		}},
	{JSON: "kernel", Form: "kernel", Flag: "kernel", Label: "kernel preset", Group: "kernel", Kind: "select", Arg: "K",
		Help: "kernel preset (wblab presets)",
		parse: func(c *Config, text string) error { // a preset's other spellings ("ioless-full") become its name
			c.Kernel = strings.TrimSpace(text)
			if p, err := kernel.LookupPreset(c.Kernel); err == nil {
				c.Kernel = p.Name
			}
			return nil
		},
		text: func(c *Config) string { return c.Kernel }},
	{JSON: "runtime", Form: "runtime", Flag: "runtime", Unit: "duration", Label: "runtime", Group: "run", Arg: "DUR",
		Help: "simulated time (600s, 2m); a run whose dd all have a count ends once they exited and no page is dirty or under writeback",
		get:  func(c *Config) int64 { return int64(c.Runtime) }, set: func(c *Config, v int64) { c.Runtime = Duration(v) },
		bounds: fixed(int64(minRuntime), int64(maxRuntime))},
	{JSON: "seed", Form: "seed", Flag: "seed", Label: "seed", Group: "run", Help: "random seed, an unsigned 64-bit integer",
		parse: func(c *Config, text string) error {
			s := strings.TrimSpace(text)
			if s == "" {
				c.Seed = 0
				return nil
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return fmt.Errorf("%q is not a whole number >= 0", s)
			}
			c.Seed = v
			return nil
		},
		text: func(c *Config) string { return strconv.FormatUint(c.Seed, 10) }},
	{JSON: "sample_interval", Flag: "sample", Group: "output", Unit: "duration", Unset: true, Arg: "DUR",
		Help: "time-series interval; 0 picks one giving at most 2000 rows",
		get:  func(c *Config) int64 { return int64(c.SampleInterval) }, set: func(c *Config, v int64) { c.SampleInterval = Duration(v) },
		bounds: func(c *Config) (int64, int64) {
			return int64(time.Millisecond), max(int64(c.Runtime), int64(time.Millisecond))
		}},
	{JSON: "trace_sampled", Form: "trace", Label: "record trace", Group: "run", Kind: "bool",
		Help: "record the ftrace lines for the trace viewer and export: the whole run at a sampled rate, or the window below",
		parse: func(c *Config, text string) error {
			switch strings.TrimSpace(text) {
			case "on":
				c.TraceSampled, c.TraceLines = true, PageTraceLines // sampled when the run or window does not fit
			case "off", "":
				c.TraceSampled, c.TraceLines = false, 0
			default:
				return fmt.Errorf("%q: use on or off", text)
			}
			return nil
		},
		text: func(c *Config) string {
			if c.TraceLines > 0 {
				return "on"
			}
			return "off"
		}},
	{JSON: "trace_from", Form: "trace_window", Label: "trace window", Group: "run",
		Help: "empty: the whole run (sampled to fit); or FROM-UNTIL, e.g. 100s-110s, every line in it",
		parse: func(c *Config, text string) error {
			c.TraceFrom, c.TraceUntil = 0, 0
			w := strings.TrimSpace(text)
			if w == "" {
				return nil
			}
			a, b, ok := strings.Cut(w, "-")
			from, err1 := ParseDuration(strings.TrimSpace(a))
			until, err2 := ParseDuration(strings.TrimSpace(b))
			if !ok || err1 != nil || err2 != nil {
				return fmt.Errorf("%q: use FROM-UNTIL, e.g. 100s-110s", w)
			}
			c.TraceFrom, c.TraceUntil = from, until
			return nil
		},
		text: func(c *Config) string {
			if c.TraceFrom == 0 && c.TraceUntil == 0 {
				return ""
			}
			return c.TraceFrom.String() + "-" + c.TraceUntil.String()
		}},
	{JSON: "trace_lines", Flag: "trace-lines", Group: "output", Help: "trace lines kept (the newest, or sampled)",
		get: func(c *Config) int64 { return int64(c.TraceLines) }, set: func(c *Config, v int64) { c.TraceLines = clampInt(v) },
		bounds: fixed(0, MaxTraceLines)},
}

// PageTraceLines are the trace lines the page's "record trace" keeps.
const PageTraceLines = 50000

// LookupConfigKey is the row of the setting named json (its JSON name).
func LookupConfigKey(json string) (ConfigKey, bool) {
	for _, k := range ConfigKeys {
		if k.JSON == json {
			return k, true
		}
	}
	return ConfigKey{}, false
}

func fixed(lo, hi int64) func(*Config) (int64, int64) {
	return func(*Config) (int64, int64) { return lo, hi }
}

// clampInt converts to int, saturating, so an out-of-range value reaches the
// range check instead of wrapping.
func clampInt(n int64) int {
	const maxInt, minInt = int64(^uint(0) >> 1), -int64(^uint(0)>>1) - 1
	return int(min(max(n, minInt), maxInt))
}

// Value is the setting's value in c (0 for a setting that is not a number).
func (k ConfigKey) Value(c *Config) int64 {
	if k.get == nil {
		return 0
	}
	return k.get(c)
}

// Bounds is the setting's allowed range in c (a _bytes sysctl's depends on
// memory); 0, 0 for a setting without one.
func (k ConfigKey) Bounds(c *Config) (lo, hi int64) {
	if k.bounds == nil {
		return 0, 0
	}
	return k.bounds(c)
}

// Ranged is whether the setting has a range (Bounds).
func (k ConfigKey) Ranged() bool { return k.bounds != nil }

// Text is the setting's value as the form and the flags write it: a size as
// "100M" ("" when unset), a duration as "10m0s", else the number.
func (k ConfigKey) Text(c *Config) string {
	if k.text != nil {
		return k.text(c)
	}
	v := k.get(c)
	switch {
	case k.Size:
		if v == 0 {
			return ""
		}
		return FormatSize(v)
	case k.Unit == "duration":
		return Duration(v).String()
	}
	return strconv.FormatInt(v, 10)
}

// Parse sets the setting in c from text; empty text is 0. The error says what the
// text should be; the range is Validate's.
func (k ConfigKey) Parse(c *Config, text string) error {
	if k.parse != nil {
		return k.parse(c, text)
	}
	s := strings.TrimSpace(text)
	var v int64
	var err error
	switch {
	case s == "":
	case k.Size:
		if v, err = ParseBytes(s); err != nil {
			return fmt.Errorf("%q is not a size (e.g. 100M)", s)
		}
	case k.Unit == "duration":
		d, err := ParseDuration(s)
		if err != nil {
			return fmt.Errorf("%q is not a duration (e.g. 600s, 10m, 1.5s)", s)
		}
		v = int64(d)
	default:
		if v, err = strconv.ParseInt(s, 10, 64); err != nil {
			return fmt.Errorf("%q is not a whole number", s)
		}
	}
	k.set(c, v)
	return nil
}

// ParseError is Parse's error naming the setting: "dirty_bytes: \"abc\" is not a
// size (e.g. 100M)".
func (k ConfigKey) ParseError(err error) error { return fmt.Errorf("%s: %w", k.JSON, err) }

// check is the setting's own check or range check, naming the setting, the
// value and the range.
func (k ConfigKey) checkValue(c *Config) error {
	if k.check != nil {
		return k.check(c)
	}
	if k.bounds == nil {
		return nil
	}
	v := k.get(c)
	if k.Unset && v == 0 {
		return nil
	}
	lo, hi := k.bounds(c)
	if v < lo || v > hi {
		return fmt.Errorf("%s: %s is out of range %s", k.JSON, k.human(v), k.RangeText(c))
	}
	return nil
}

// RangeText is the setting's range in its unit: "0-100 %", "64 MiB-256 GiB",
// "1 ms-24 h".
func (k ConfigKey) RangeText(c *Config) string {
	lo, hi := k.Bounds(c)
	switch k.Unit {
	case "bytes", "MiB", "duration":
		return k.human(lo) + "-" + k.human(hi)
	}
	return strconv.FormatInt(lo, 10) + "-" + k.human(hi)
}

// human prints v in the key's unit: "64 MiB", "8 KiB", "100 %", "3000 centisecs",
// "24 h". Range errors read "memory_MB: 32 MiB is out of range 64 MiB-256 GiB".
func (k ConfigKey) human(v int64) string {
	switch k.Unit {
	case "":
		return strconv.FormatInt(v, 10)
	case "duration":
		return HumanDuration(Duration(v))
	case "bytes", "MiB":
		if k.Unit == "MiB" {
			if v == 0 || v > 1<<43 || v < -(1<<43) { // 0 MiB; beyond what bytes hold
				return strconv.FormatInt(v, 10) + " MiB"
			}
			v <<= 20
		}
		return HumanBytes(v)
	}
	return strconv.FormatInt(v, 10) + " " + k.Unit
}

// HumanBytes prints bytes in the largest binary unit dividing them: "64 MiB",
// "8 KiB", "512 bytes".
func HumanBytes(v int64) string {
	for _, u := range []struct {
		shift uint
		s     string
	}{{40, "TiB"}, {30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if v != 0 && v%(1<<u.shift) == 0 {
			return strconv.FormatInt(v>>u.shift, 10) + " " + u.s
		}
	}
	return strconv.FormatInt(v, 10) + " bytes"
}

// HumanDuration prints a duration in the largest unit dividing it: "24 h",
// "99999 h", "1 ms", "1500 ms", "0 s".
func HumanDuration(d Duration) string {
	if d == 0 {
		return "0 s"
	}
	for _, u := range []struct {
		d Duration
		s string
	}{{Duration(time.Hour), "h"}, {Duration(time.Minute), "min"}, {Duration(time.Second), "s"},
		{Duration(time.Millisecond), "ms"}, {Duration(time.Microsecond), "µs"}} {
		if d%u.d == 0 {
			return strconv.FormatInt(int64(d/u.d), 10) + " " + u.s
		}
	}
	return strconv.FormatInt(int64(d), 10) + " ns"
}

// KeyErrors are every ConfigKeys range error of c at once, in table order.
func (c *Config) KeyErrors() []error {
	var out []error
	for _, k := range ConfigKeys {
		if err := k.checkValue(c); err != nil {
			out = append(out, err)
		}
	}
	return out
}

// FormatSize writes a size the way the form and the flags read it: whole G, M or
// k when it divides, else bytes.
func FormatSize(n int64) string {
	for _, u := range []struct {
		div int64
		s   string
	}{{1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "k"}} {
		if n != 0 && n%u.div == 0 {
			return strconv.FormatInt(n/u.div, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// SwitchName is a kernel switch's current name for name, which may be a former
// one (kernel.Switch.Aliases): links and flags written before a rename still work.
func SwitchName(name string) string { return kernel.SwitchName(name) }
