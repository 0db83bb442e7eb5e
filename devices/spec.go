package devices

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/sim"
)

// Models are the service-time models a Spec can name.
const (
	ModelSimple = "simple" // one server: fixed cost per request + size / bandwidth
	ModelHDD    = "hdd"    // seek + rotation + zoned media rate, write cache, NCQ
	ModelSSD    = "ssd"    // channels + serial FTL cost for random writes + link bandwidth
	ModelNVMe   = "nvme"   // many servers: latency + size / bandwidth, deep queues
	ModelCapped = "capped" // token-bucket bw / iops cap in front of a fast medium
)

// Elevators.
const (
	ElevatorDeadline = "deadline" // sort + merge, read/write FIFOs with expiry (v3.2 deadline-iosched)
	ElevatorNoop     = "noop"     // FIFO + merge (noop, blk-mq "none")
	ElevatorCFQ      = "cfq"      // per-process queues, time slices, idling (v3.2 cfq-iosched, cfq.go)
)

// Destage ages: what an HDD's firmware times for hddMaxWait's aging (hdd.go). No
// drive maker documents it; the two choices bracket the many-writer figures.
const (
	DestageAgeRun   = "run"   // a cached run ages from its creation and again from each partial destage
	DestageAgeWrite = "write" // each host write ages from its arrival (DiskSim's per-request timeout)
)

// Spec describes a device's hardware (service model, queue depth, write cache)
// and the scheduler its setup selects. It is embedded in the engine's Config as
// "device"; every field has a key in the "--device NAME,key=value" form (see Keys,
// KeysFor, Params), which also takes the kernel's block-layer keys (Block,
// BlockOverrides). Integer units: bytes, bytes/s, nanoseconds.
type Spec struct {
	Name  string `json:"name"`
	Model string `json:"model"` // simple | hdd | ssd | nvme | capped
	Doc   string `json:"doc,omitempty"`

	// Queue and scheduler (kernel-notes §7.1). The block layer itself (request pool
	// or tags, request size, plugging, blk-wbt) is the kernel's: see Block.
	QueueDepth      int    `json:"qd"`                          // requests issued to the device at once (NCQ / tag depth)
	MaxHWSectorsKB  int    `json:"max_hw_sectors_kb,omitempty"` // the device's or driver's request size limit (0 = none below the kernel's)
	Elevator        string `json:"elevator"`                    // the scheduler this disk's setup selects: deadline | noop | cfq
	ReadExpireMs    int    `json:"read_expire_ms"`              // deadline read_expire (HZ/2)
	WriteExpireMs   int    `json:"write_expire_ms"`
	WritesStarved   int    `json:"writes_starved"`
	FifoBatch       int    `json:"fifo_batch"`
	Rotational      bool   `json:"rotational"`
	WriteCacheBytes int64  `json:"wcache"`                // volatile write cache; > 0 sets QUEUE_FLAG_WC; the HDD model buffers writes in it
	WriteCacheSegs  int    `json:"wcache_segs,omitempty"` // hdd: discontiguous runs the write cache can hold (segments)
	DestageAge      string `json:"destage_age,omitempty"` // hdd: how cached data ages for hddMaxWait: run ("" too) | write
	// DM puts a bio-based device-mapper target (dm-linear) between the filesystem
	// and the disk: the bdi is the dm device's (dm.go).
	DM bool `json:"dm,omitempty"`

	// Service models.
	BandwidthBps   int64 `json:"bw_Bps"`           // simple: rate; hdd: outer-zone media rate; ssd/nvme: write link; capped: cap (0 = none)
	ReadBps        int64 `json:"read_bw_Bps"`      // ssd/nvme read link (0 = bw)
	RequestNs      int64 `json:"req_ns"`           // per-request cost (simple, ssd/nvme/capped writes, hdd command overhead)
	ReadRequestNs  int64 `json:"read_req_ns"`      // ssd/nvme per-read cost (0 = req_ns)
	Channels       int   `json:"channels"`         // requests served concurrently inside the device
	ChannelBps     int64 `json:"chan_bw_Bps"`      // transfer rate of one request inside the device
	ReadChannelBps int64 `json:"read_chan_bw_Bps"` // same for reads (0 = chan_bw)
	FTLNs          int64 `json:"ftl_ns"`           // ssd: serial flash-translation cost of a non-sequential write
	RPM            int   `json:"rpm"`
	SeekTrackNs    int64 `json:"seek_track_ns"`        // track-to-track seek
	SeekAvgNs      int64 `json:"seek_avg_ns"`          // average seek over uniformly random pairs
	SeekFullNs     int64 `json:"seek_full_ns"`         // full-stroke seek
	CapacityBytes  int64 `json:"capacity"`             // what the kernel sees (hdd: the partition)
	DiskBytes      int64 `json:"disk_size,omitempty"`  // hdd: the whole disk (0 = capacity: the partition is the disk)
	PartStartBytes int64 `json:"part_start,omitempty"` // hdd: where the partition starts on the disk
	InnerBps       int64 `json:"bw_inner_Bps"`         // hdd inner-zone media rate
	IfaceBps       int64 `json:"iface_bw_Bps"`         // hdd link rate (SATA 3 Gb/s ~ 300 MB/s) for cached writes
	IOPS           int64 `json:"iops"`                 // capped: IOPS cap (0 = none)
	BurstNs        int64 `json:"burst_ns"`             // capped: token bucket depth as time at the cap rate
}

// pkind is how a parameter's value is written.
type pkind uint8

const (
	kInt   pkind = iota // integer
	kBytes              // size: 4k, 60MiB
	kRate               // bytes/s: 60MiB, 170MB (decimal), 1G
	kUs                 // microseconds (decimals allowed), stored in ns
	kMs                 // milliseconds, stored in ns
	kBool               // on/off, true/false, 1/0
	kEnum
)

// param is one overridable Spec field: its key, the models it applies to, its unit
// and range (in stored units), and the field itself. A device key is a Spec field
// plus one row of params.
type param struct {
	key      string
	json     string
	models   string // "" = all; else space-separated models
	kind     pkind
	min, max int64 // stored units
	enum     []string
	optional bool // kEnum: "" is allowed and means the first choice
	doc      string
	block    bool // a Block key (the kernel's block layer), not hardware
	// field is the Spec field the key sets (nil for a Block key: Block.ptr).
	field func(s *Spec) any
}

// Validation limits.
const (
	MaxQueueDepth   = 65536
	MaxBandwidthBps = 1 << 40
)

const allModels = ModelSimple + " " + ModelHDD + " " + ModelSSD + " " + ModelNVMe + " " + ModelCapped

// params is the table of every key. Ranges are in stored units.
func params() []param {
	us, ms := int64(sim.Microsecond), int64(sim.Millisecond)
	return []param{
		{key: "qd", field: func(s *Spec) any { return &s.QueueDepth }, json: "qd", kind: kInt, min: 1, max: MaxQueueDepth, doc: "requests issued to the device at once"},
		{key: "max_hw_sectors_kb", field: func(s *Spec) any { return &s.MaxHWSectorsKB }, json: "max_hw_sectors_kb", kind: kInt, min: 0, max: 32768, doc: "the device's request size limit, KiB (0 = none; usb-storage: 120 high speed, 1024 SuperSpeed)"},
		{key: "elevator", field: func(s *Spec) any { return &s.Elevator }, json: "elevator", kind: kEnum, enum: []string{ElevatorDeadline, ElevatorNoop, ElevatorCFQ}, doc: "deadline, noop or cfq"},
		{key: "read_expire_ms", field: func(s *Spec) any { return &s.ReadExpireMs }, json: "read_expire_ms", kind: kInt, min: 1, max: 600_000, doc: "deadline read_expire"},
		{key: "write_expire_ms", field: func(s *Spec) any { return &s.WriteExpireMs }, json: "write_expire_ms", kind: kInt, min: 1, max: 600_000, doc: "deadline write_expire"},
		{key: "writes_starved", field: func(s *Spec) any { return &s.WritesStarved }, json: "writes_starved", kind: kInt, min: 1, max: 1024, doc: "deadline writes_starved"},
		{key: "fifo_batch", field: func(s *Spec) any { return &s.FifoBatch }, json: "fifo_batch", kind: kInt, min: 1, max: 4096, doc: "deadline fifo_batch"},
		{key: "rotational", field: func(s *Spec) any { return &s.Rotational }, json: "rotational", kind: kBool, max: 1, doc: "queue/rotational (wbt default latency)"},
		{key: "wcache", field: func(s *Spec) any { return &s.WriteCacheBytes }, json: "wcache", kind: kBytes, min: 0, max: 1 << 34, doc: "volatile write cache size (0 = off)"},
		{key: "dm", field: func(s *Spec) any { return &s.DM }, json: "dm", kind: kBool, max: 1, doc: dmDoc},

		{key: "bw", field: func(s *Spec) any { return &s.BandwidthBps }, json: "bw_Bps", models: "simple hdd ssd nvme", kind: kRate, min: 1 << 20, max: MaxBandwidthBps, doc: "transfer rate (hdd: outer zone; ssd/nvme: write link)"},
		{key: "bw", field: func(s *Spec) any { return &s.BandwidthBps }, json: "bw_Bps", models: ModelCapped, kind: kRate, min: 0, max: MaxBandwidthBps, doc: "bandwidth cap (0 = none)"},
		{key: "read_bw", field: func(s *Spec) any { return &s.ReadBps }, json: "read_bw_Bps", models: "ssd nvme", kind: kRate, min: 0, max: MaxBandwidthBps, doc: "read link rate (0 = bw)"},
		{key: "req_us", field: func(s *Spec) any { return &s.RequestNs }, json: "req_ns", models: allModels, kind: kUs, min: 0, max: int64(sim.Second), doc: "per-request cost (hdd: command overhead)"},
		{key: "read_req_us", field: func(s *Spec) any { return &s.ReadRequestNs }, json: "read_req_ns", models: "ssd nvme", kind: kUs, min: 0, max: int64(sim.Second), doc: "per-read cost (0 = req_us)"},
		{key: "channels", field: func(s *Spec) any { return &s.Channels }, json: "channels", models: "ssd nvme capped", kind: kInt, min: 1, max: 4096, doc: "requests served concurrently"},
		{key: "chan_bw", field: func(s *Spec) any { return &s.ChannelBps }, json: "chan_bw_Bps", models: "ssd nvme capped", kind: kRate, min: 1 << 20, max: MaxBandwidthBps, doc: "transfer rate of one request"},
		{key: "read_chan_bw", field: func(s *Spec) any { return &s.ReadChannelBps }, json: "read_chan_bw_Bps", models: "ssd nvme", kind: kRate, min: 0, max: MaxBandwidthBps, doc: "same for reads (0 = chan_bw)"},
		{key: "ftl_us", field: func(s *Spec) any { return &s.FTLNs }, json: "ftl_ns", models: "ssd nvme", kind: kUs, min: 0, max: int64(sim.Second), doc: "serial cost of a non-sequential write"},
		{key: "rpm", field: func(s *Spec) any { return &s.RPM }, json: "rpm", models: ModelHDD, kind: kInt, min: 1000, max: 20000, doc: "spindle speed"},
		{key: "seek_track_us", field: func(s *Spec) any { return &s.SeekTrackNs }, json: "seek_track_ns", models: ModelHDD, kind: kUs, min: 10 * us, max: 100 * ms, doc: "track-to-track seek"},
		{key: "seek_avg_us", field: func(s *Spec) any { return &s.SeekAvgNs }, json: "seek_avg_ns", models: ModelHDD, kind: kUs, min: 100 * us, max: 200 * ms, doc: "average seek (random pairs)"},
		{key: "seek_full_us", field: func(s *Spec) any { return &s.SeekFullNs }, json: "seek_full_ns", models: ModelHDD, kind: kUs, min: 100 * us, max: 500 * ms, doc: "full-stroke seek"},
		{key: "capacity", field: func(s *Spec) any { return &s.CapacityBytes }, json: "capacity", models: ModelHDD, kind: kBytes, min: 1 << 30, max: 1 << 50, doc: "size the kernel sees (the partition)"},
		{key: "disk_size", field: func(s *Spec) any { return &s.DiskBytes }, json: "disk_size", models: ModelHDD, kind: kBytes, min: 0, max: 1 << 50, doc: "whole disk (0 = capacity)"},
		{key: "part_start", field: func(s *Spec) any { return &s.PartStartBytes }, json: "part_start", models: ModelHDD, kind: kBytes, min: 0, max: 1 << 50, doc: "partition offset on the disk"},
		{key: "wcache_segs", field: func(s *Spec) any { return &s.WriteCacheSegs }, json: "wcache_segs", models: ModelHDD, kind: kInt, min: 1, max: 4096, doc: "write cache segments (discontiguous cached runs)"},
		{key: "destage_age", field: func(s *Spec) any { return &s.DestageAge }, json: "destage_age", models: ModelHDD, kind: kEnum, enum: []string{DestageAgeRun, DestageAgeWrite}, optional: true,
			doc: "what the firmware's 500 ms aging times: run = a cached run from its last partial destage (default), write = each host write from its arrival"},
		{key: "bw_inner", field: func(s *Spec) any { return &s.InnerBps }, json: "bw_inner_Bps", models: ModelHDD, kind: kRate, min: 1 << 20, max: MaxBandwidthBps, doc: "inner-zone media rate"},
		{key: "iface_bw", field: func(s *Spec) any { return &s.IfaceBps }, json: "iface_bw_Bps", models: ModelHDD, kind: kRate, min: 1 << 20, max: MaxBandwidthBps, doc: "host link rate for cached writes"},
		{key: "iops", field: func(s *Spec) any { return &s.IOPS }, json: "iops", models: ModelCapped, kind: kInt, min: 0, max: 100_000_000, doc: "IOPS cap (0 = none)"},
		{key: "burst_ms", field: func(s *Spec) any { return &s.BurstNs }, json: "burst_ns", models: ModelCapped, kind: kMs, min: 0, max: 3600 * int64(sim.Second), doc: "token bucket depth in time at the cap"},
	}
}

func (p param) applies(model string) bool {
	return p.models == "" || strings.Contains(" "+p.models+" ", " "+model+" ")
}

func (p param) scale() int64 {
	switch p.kind {
	case kUs:
		return int64(sim.Microsecond)
	case kMs:
		return int64(sim.Millisecond)
	}
	return 1
}

// show formats a stored value in the key's units.
func (p param) show(v int64) string {
	switch p.kind {
	case kBytes:
		return FormatBytes(v)
	case kRate:
		return FormatBytes(v) + "/s"
	case kUs, kMs:
		return fixed(v, p.scale())
	case kBool:
		if v != 0 {
			return "on"
		}
		return "off"
	}
	return strconv.FormatInt(v, 10)
}

func (p param) rangeText() string {
	switch p.kind {
	case kBool:
		return "on|off"
	case kEnum:
		return strings.Join(p.enum, "|")
	}
	unit := map[pkind]string{kUs: " us", kMs: " ms"}[p.kind]
	return fmt.Sprintf("[%s, %s]%s", p.show(p.min), p.show(p.max), unit)
}

// fixed prints v/scale with up to 3 decimals, without floats.
func fixed(v, scale int64) string {
	whole, frac := v/scale, v%scale
	if frac == 0 {
		return strconv.FormatInt(whole, 10)
	}
	s := fmt.Sprintf("%d.%0*d", whole, len(strconv.FormatInt(scale, 10))-1, frac)
	return strings.TrimRight(s, "0")
}

// parseFixed parses a non-negative decimal ("12.5") into value*scale, exactly.
func parseFixed(v string, scale int64) (int64, bool) {
	whole, frac, _ := strings.Cut(v, ".")
	if whole == "" && frac == "" {
		return 0, false
	}
	w := int64(0)
	if whole != "" {
		n, err := strconv.ParseInt(whole, 10, 64)
		if err != nil || n < 0 || n > (1<<62)/scale {
			return 0, false
		}
		w = n * scale
	}
	digits := len(strconv.FormatInt(scale, 10)) - 1
	if len(frac) > digits {
		return 0, false
	}
	if frac != "" {
		f, err := strconv.ParseInt(frac+strings.Repeat("0", digits-len(frac)), 10, 64)
		if err != nil || f < 0 {
			return 0, false
		}
		w += f
	}
	return w, true
}

func (s *Spec) get(p param) int64 { return getField(p.field(s)) }

// getField reads an int, int64 or bool field as an integer.
func getField(f any) int64 {
	switch f := f.(type) {
	case *int:
		return int64(*f)
	case *int64:
		return *f
	case *bool:
		if *f {
			return 1
		}
	}
	return 0
}

// Params lists the parameters that apply to model ("" = all keys), with their doc
// and allowed range, for help texts and UIs.
func Params(model string) []ParamInfo {
	var out []ParamInfo
	seen := map[string]bool{}
	for _, p := range append(params(), blockParams()...) {
		if (model != "" && !p.applies(model)) || seen[p.key] {
			continue
		}
		seen[p.key] = true
		info := ParamInfo{Key: p.key, JSON: p.json, Doc: p.doc, Range: p.rangeText(), Block: p.block}
		if p.optional {
			info.Empty = p.enum[0]
		}
		out = append(out, info)
	}
	return out
}

// ParamInfo describes one key for help texts. Block keys set the kernel's block
// layer (BlockOverrides), the others the hardware.
type ParamInfo struct {
	Key, JSON, Doc, Range string
	Empty                 string // the choice an empty value means (optional choices), else ""
	Block                 bool
}

// Keys lists every override key accepted by ParseSpec for some model.
func Keys() []string { return KeysFor("") }

// KeysFor lists the override keys valid for model ("" = every model).
func KeysFor(model string) []string {
	var out []string
	for _, p := range Params(model) {
		out = append(out, p.Key)
	}
	return out
}

func (s *Spec) param(key string) (param, bool) {
	for _, p := range params() {
		if p.key == key && p.applies(s.Model) {
			return p, true
		}
	}
	return param{}, false
}

// Set overrides one hardware parameter by key and checks it against its range.
// Errors name the key, the value, the allowed range and the valid keys for the
// spec's model.
func (s *Spec) Set(key, val string) error {
	p, ok := s.param(key)
	if !ok {
		if IsBlockKey(key) {
			return fmt.Errorf("device %s: %q is a block-layer key, set by the kernel preset; override it in the device text or the config's \"block\"", s.Name, key)
		}
		return fmt.Errorf("device %s: unknown key %q for model %s (keys: %s)", s.Name, key, s.Model, strings.Join(KeysFor(s.Model), ", "))
	}
	return p.store(p.field(s), val, func(what string) error {
		return fmt.Errorf("device %s: %s=%q: %s, allowed %s (keys: %s)", s.Name, key, val, what, p.rangeText(), strings.Join(KeysFor(s.Model), ", "))
	})
}

// store parses val in p's units and range and writes it to the field f.
func (p param) store(f any, val string, bad func(what string) error) error {
	var n int64
	switch p.kind {
	case kEnum:
		for _, e := range p.enum {
			if val == e {
				*f.(*string) = val
				return nil
			}
		}
		return bad("not a choice")
	case kBool:
		switch strings.ToLower(val) {
		case "1", "on", "true", "yes", "y":
			n = 1
		case "0", "off", "false", "no", "n":
		default:
			return bad("want on or off")
		}
	case kInt:
		v, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			return bad("want an integer")
		}
		n = v
	case kBytes, kRate:
		v, err := parseSize(val, true)
		if err != nil {
			return bad(err.Error())
		}
		n = v
	case kUs, kMs:
		v, ok := parseFixed(val, p.scale())
		if !ok {
			return bad("want a non-negative number")
		}
		n = v
	}
	if n < p.min || n > p.max {
		return bad("out of range")
	}
	switch f := f.(type) {
	case *int:
		*f = int(n)
	case *int64:
		*f = n
	case *bool:
		*f = n != 0
	}
	return nil
}

// Validate checks every field that applies to the model against its allowed range,
// naming the field (key and JSON name) and the range.
func (s Spec) Validate() error {
	switch s.Model {
	case ModelSimple, ModelHDD, ModelSSD, ModelNVMe, ModelCapped:
	default:
		return fmt.Errorf("device.model: %q is not a model (models: %s)", s.Model, strings.ReplaceAll(allModels, " ", ", "))
	}
	for _, p := range params() {
		if !p.applies(s.Model) {
			continue
		}
		if p.kind == kEnum {
			v := *p.field(&s).(*string)
			if !contains(p.enum, v) && !(p.optional && v == "") {
				return fmt.Errorf("device.%s (json %q): %q is not one of %s", p.key, p.json, v, p.rangeText())
			}
			continue
		}
		if v := s.get(p); v < p.min || v > p.max {
			return fmt.Errorf("device.%s (json %q): %s out of range %s", p.key, p.json, p.show(v), p.rangeText())
		}
	}
	if s.Model == ModelHDD {
		t, a, f := s.SeekTrackNs, s.SeekAvgNs, s.SeekFullNs
		if f <= t {
			return fmt.Errorf("device.seek_full_us: %s must exceed seek_track_us %s", fixed(f, 1000), fixed(t, 1000))
		}
		// seek(x) = t + b*sqrt(x) + c*x must be increasing: avg in [t + F/3, t + 11F/15]
		lo, hi := t+(f-t)/3, t+(f-t)*11/15
		if a < lo || a > hi {
			return fmt.Errorf("device.seek_avg_us: %s out of range [%s, %s] us for these track-to-track and full-stroke seeks",
				fixed(a, 1000), fixed(lo, 1000), fixed(hi, 1000))
		}
		if d := s.DiskBytes; d != 0 && s.PartStartBytes+s.CapacityBytes > d {
			return fmt.Errorf("device.part_start: partition %s + capacity %s ends beyond disk_size %s",
				FormatBytes(s.PartStartBytes), FormatBytes(s.CapacityBytes), FormatBytes(d))
		}
		if s.DiskBytes == 0 && s.PartStartBytes != 0 {
			return fmt.Errorf("device.part_start: %s needs disk_size (the whole disk) to be set", FormatBytes(s.PartStartBytes))
		}
		if s.InnerBps > s.BandwidthBps {
			return fmt.Errorf("device.bw_inner: %s/s must not exceed bw %s/s", FormatBytes(s.InnerBps), FormatBytes(s.BandwidthBps))
		}
	}
	return nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// presets are the built-in devices. Parameters live here, one place, with their source.
func presets() []Spec {
	ms, us := int64(sim.Millisecond), int64(sim.Microsecond)
	// the scheduler's tunables: deadline's defaults read_expire HZ/2, write_expire
	// 5*HZ, writes_starved 2, fifo_batch 16 (block/deadline-iosched.c, v3.2 and
	// mq-deadline v6.1). The block layer (pool or tags, request size, plugging,
	// wbt) is the kernel preset's (kernel.Variants.Block).
	or := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	tuned := func(s Spec) Spec {
		or(&s.ReadExpireMs, 500)
		or(&s.WriteExpireMs, 5000)
		or(&s.WritesStarved, 2)
		or(&s.FifoBatch, 16)
		if s.Elevator == "" {
			s.Elevator = ElevatorDeadline
		}
		return s
	}
	return []Spec{
		// simple: the foundation's device, a plain disk with a fixed bandwidth and
		// per-request cost, close to the Wu 2011 disk's sequential rate through a
		// filesystem (~55-60 MB/s, kernel-notes §4.5). FIFO dispatch (noop), no wbt.
		func() Spec {
			s := tuned(Spec{Name: "simple", Model: ModelSimple, BandwidthBps: 60 << 20, RequestNs: 200 * us,
				QueueDepth: 31, Rotational: true,
				Doc: "fixed-rate disk: 60 MiB/s + 0.2 ms per request, QD 31, noop"})
			s.Elevator = ElevatorNoop
			return s
		}(),
		// wu2011-hdd: the Wu 2011 test disk as the harness's kernel sees it. The thread
		// does not name the drive; the harness's fat box writes to DEVICES=/dev/sda7, a
		// logical partition. The class: a 2011 3.5" 7200 rpm SATA desktop drive of 1 TB
		// (two 500 GB platters, e.g. Seagate Barracuda 7200.12 ST31000528AS, WD Caviar
		// Blue WD10EALX), every parameter physical, none taken from a multi-writer case:
		//   - 7200 rpm: 8.33 ms per revolution, 4.17 ms mean rotational latency;
		//   - media rate 117 MB/s at the outer edge to 50.7 MB/s at the inner one (the
		//     inner edge at 0.43 of the outer radius, the data band of a 3.5" platter);
		//   - the partition: the last 100 GB of the disk (sda7 the last logical
		//     partition), where the geometry gives 60.3 -> 52.0 MB/s; it spans 15 % of
		//     the stroke. The outer rate is the one figure taken from the thread, set
		//     once (issue 17: "the 1dd cases give ~57 MB/s"): the thread's one-writer
		//     cells on ext4, xfs and btrfs, where the media rate is the limit, average
		//     56.08 MB/s (6 cells, 55.38-57.42), and 117 MB/s makes the model's same six
		//     average 56.07 (TestCalibrationWu2011Baseline/disk-rate). The class
		//     publishes ~125 MB/s as its best maximum sustained rate;
		//   - seeks 1.2 / 9.5 / 19 ms track-to-track / average / full stroke: the
		//     class's write seeks (data sheets give ~8.5 ms read, 9.5 ms write average;
		//     kernel-notes §7.2: ~1 ms track-to-track, 18-20 ms full stroke; writes
		//     settle ~0.2-1 ms longer than reads);
		//   - write cache 32 MiB, 16 segments: the class's 32 MB buffer (16-64 MB in
		//     2011 desktop drives), adaptively segmented; SCSI manuals of the same
		//     makers organise the cache by a number of segments (Seagate's Caching mode
		//     page; a Quantum Atlas 10K II reports 27): 16 is an estimate, and it is
		//     what limits how many files' runs the firmware can reorder among; what its
		//     500 ms aging times (DestageAge) is not documented either: the default
		//     "run" restarts a run's age at each partial destage, "write" ages each
		//     write from its arrival (T1 MAPE 2.9 % against 6.3 %, 5 seeds);
		//   - NCQ 31: libata's queue depth for SATA NCQ (ATA_MAX_QUEUE 32, one tag kept
		//     for internal commands); SATA 3 Gb/s link (300 MB/s); 50 us per command
		//     (FIS exchange and firmware; an estimate, hidden under media time).
		// CFQ: the v3.2 default scheduler (CONFIG_DEFAULT_IOSCHED), which the
		// harness kept.
		tuned(Spec{Name: "wu2011-hdd", Model: ModelHDD, QueueDepth: 31, Rotational: true,
			RPM: 7200, SeekTrackNs: 1200 * us, SeekAvgNs: 9500 * us, SeekFullNs: 19 * ms,
			DiskBytes: 1_000_000_000_000, PartStartBytes: 900_000_000_000, CapacityBytes: 100_000_000_000,
			BandwidthBps: 117_000_000, InnerBps: 50_700_000,
			IfaceBps: 300_000_000, RequestNs: 50 * us, WriteCacheBytes: 32 << 20, WriteCacheSegs: 16, Elevator: ElevatorCFQ,
			Doc: "Wu 2011 test partition: last 100 GB of a 1 TB 7200 rpm SATA HDD (60-52 MB/s), seek 1.2/9.5/19 ms, NCQ 31, 32 MiB write cache in 16 segments, cfq"}),
		// chinner2010-vm: Dave Chinner's 2010 8p test VM storage (thread: XFS buffered
		// writes reach ~750 MB/s once write_cache_pages is fixed, so the storage must be
		// faster: 2 GB/s, 32 concurrent requests at 0.1 ms + size/500 MB/s). Virtio
		// disks report rotational=1. No dm: the thread's bdi 253:16 fits dm-16 as well
		// as the guest's second virtio disk vdb (virtio_blk's minors are index << 4
		// and its major is dynamic like dm's); dm=on adds the layer (dm.go).
		tuned(Spec{Name: "chinner2010-vm", Model: ModelNVMe, QueueDepth: 128, Rotational: true,
			Channels: 32, RequestNs: 100 * us, ReadRequestNs: 100 * us, ChannelBps: 500_000_000,
			BandwidthBps: 2_000_000_000, ReadBps: 2_000_000_000,
			Doc: "fast VM storage (Chinner 2010): 2 GB/s, 32 concurrent requests, 0.1 ms each, QD 128"}),
		// kara2016-qd1: the Kara 2016 wbt thread's disk: a rotational SATA disk at
		// queue depth 1 (no NCQ). The thread's only figure for it is dd bs=1M
		// count=10000 conv=fsync in ~105 s (~95 MB/s) on ext3 ("ext4 without delayed
		// allocation", data=ordered) with the 2016 wbt draft and Axboe's QD=1 patch,
		// "about the same as before" the patch; its raw rate is not given, so the
		// zone rates 110 -> 55 MB/s are an assumption (a 2016 1 TB 7200 rpm disk, the
		// file at its start) that ext3's journal overhead then brings near that
		// figure. The thread's block layer (v4.6, 1280 KiB requests, the 2016 wbt
		// draft with or without the QD=1 patch) is the 4.6 kernel presets'.
		tuned(Spec{Name: "kara2016-qd1", Model: ModelHDD, QueueDepth: 1, Rotational: true,
			RPM: 7200, SeekTrackNs: 1 * ms, SeekAvgNs: 8500 * us, SeekFullNs: 18 * ms,
			CapacityBytes: 1_000_000_000_000, BandwidthBps: 110_000_000, InnerBps: 55_000_000,
			IfaceBps: 300_000_000, RequestNs: 50 * us, WriteCacheBytes: 16 << 20, WriteCacheSegs: 16,
			Doc: "2016 rotational disk at queue depth 1: 110-55 MB/s, 16 MiB write cache"}),
		// nvme: a modern PCIe 3.0 x4 NVMe SSD: ~3.5 GB/s read / 3 GB/s write, 128
		// internal servers at 20 us (write) / 80 us (read) + size/1 GB/s, tag depth 1023,
		// volatile write cache (kernel-notes §7.2).
		tuned(Spec{Name: "nvme", Model: ModelNVMe, QueueDepth: 1023, Elevator: ElevatorNoop, // "none", v6's choice for a multi-queue device
			Channels: 128, RequestNs: 20 * us, ReadRequestNs: 80 * us, ChannelBps: 1_000_000_000,
			ReadChannelBps: 1_500_000_000, BandwidthBps: 3_000_000_000, ReadBps: 3_500_000_000,
			WriteCacheBytes: 1 << 20,
			Doc:             "modern NVMe: 3 GB/s write, 3.5 GB/s read, 128 servers, 20/80 us, QD 1023"}),
		// x25e: Intel X25-E 64 GB SLC SATA SSD (Axboe 2009): 250 MB/s sequential read,
		// 170 MB/s sequential write (SATA link stage), 3,300 random 4 KiB write IOPS (a
		// serial 303 us FTL cost per non-sequential write), ~35,000 random reads at depth
		// (10 channels at 275 us + size/400 MB/s), NCQ 32.
		tuned(Spec{Name: "x25e", Model: ModelSSD, QueueDepth: 32,
			Channels: 10, RequestNs: 85 * us, ReadRequestNs: 275 * us, ChannelBps: 400_000_000,
			FTLNs: 303 * us, BandwidthBps: 170_000_000, ReadBps: 250_000_000,
			Doc: "Intel X25-E SATA SSD: 170 MB/s write, 250 MB/s read, 3,300 random 4k write IOPS, NCQ 32"}),
		// capped: a cloud block volume (e.g. AWS gp3 baseline 3,000 IOPS, 125 MiB/s) or
		// QEMU throttling.bps-write/iops-write: a token bucket with 100 ms of burst in
		// front of a fast medium (64 servers, 0.5 ms network round trip).
		tuned(Spec{Name: "capped", Model: ModelCapped, QueueDepth: 128, Elevator: ElevatorNoop,
			Channels: 64, RequestNs: 500 * us, ChannelBps: 1_000_000_000,
			BandwidthBps: 125 << 20, IOPS: 3000, BurstNs: 100 * ms,
			Doc: "throttled cloud volume: token bucket 125 MiB/s and 3000 IOPS (100 ms burst) over 0.5 ms storage"}),
		// usb2-stick: a budget USB 2.0 flash stick (the "USB-stick stall" device).
		//   - usb-storage (Bulk-Only Transport) has one command outstanding: QD 1, and
		//     for a non-SuperSpeed device it limits requests to max_sectors 240 =
		//     120 KiB (drivers/usb/storage/scsiglue.c);
		//   - USB 2.0 high speed carries ~35 MB/s of bulk data (the link stage);
		//     the flash programs at 12 MB/s and reads at 60 MB/s; at QD 1 the USB
		//     transfer and the flash work do not overlap, so a 120 KiB command
		//     takes ~15 ms writing (~8 MB/s sequential) and ~6 ms reading
		//     (~20 MB/s), typical of cheap sticks;
		//   - random writes collapse: cheap controllers keep few erase blocks open
		//     and a write outside them costs a read-modify-write of an erase block
		//     (Arnd Bergmann, "Optimizing Linux with cheap flash drives", LWN 2011,
		//     measured tens of ms per such write): a 40 ms serial FTL cost per
		//     non-sequential write, ~25 random writes/s;
		//   - sd reports it rotational (no VPD page B1), so wbt's default is 75 ms.
		tuned(Spec{Name: "usb2-stick", Model: ModelSSD, QueueDepth: 1, MaxHWSectorsKB: 120, Rotational: true,
			Channels: 1, RequestNs: 1 * ms, ReadRequestNs: 500 * us, ChannelBps: 12_000_000, ReadChannelBps: 60_000_000,
			FTLNs: 40 * ms, BandwidthBps: 35_000_000, ReadBps: 35_000_000,
			Doc: "budget USB 2.0 flash stick: 8 MB/s sequential write, 20 MB/s read, ~25 random writes/s, QD 1, 120 KiB requests"}),
		// usb3-hdd: a portable 2.5" 5400 rpm drive behind a USB 3.0 bridge using
		// usb-storage BOT (QD 1; UAS bridges queue, this one does not), SuperSpeed
		// max_sectors 2048 = 1 MiB requests; 2.5" 5400 rpm mechanics (seek 2/12/24
		// ms, 110 -> 55 MB/s across the platter), 8 MiB drive cache in 16 segments, ~400 MB/s of
		// USB 3.0 bulk data for cached transfers.
		tuned(Spec{Name: "usb3-hdd", Model: ModelHDD, QueueDepth: 1, MaxHWSectorsKB: 1024, Rotational: true,
			RPM: 5400, SeekTrackNs: 2 * ms, SeekAvgNs: 12 * ms, SeekFullNs: 24 * ms,
			CapacityBytes: 1_000_000_000_000, BandwidthBps: 110_000_000, InnerBps: 55_000_000,
			IfaceBps: 400_000_000, RequestNs: 100 * us, WriteCacheBytes: 8 << 20, WriteCacheSegs: 16,
			Doc: "portable 2.5in 5400 rpm USB 3.0 HDD (BOT): seek 2/12/24 ms, 110-55 MB/s, QD 1, 1 MiB requests, 8 MiB cache"}),
	}
}

// Presets lists the built-in devices, sorted by name.
func Presets() []Spec {
	out := presets()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Preset returns the named preset.
func Preset(name string) (Spec, error) {
	var names []string
	for _, s := range Presets() {
		if s.Name == name {
			return s, nil
		}
		names = append(names, s.Name)
	}
	return Spec{}, fmt.Errorf("device: unknown preset %q (presets: %s)", name, strings.Join(names, ", "))
}

// ParseSpec parses "NAME[,key=value...]": a preset and overrides of its hardware
// parameters and of the kernel's block layer (the Block keys, returned as
// BlockOverrides; nil when there are none).
func ParseSpec(text string) (Spec, BlockOverrides, error) {
	parts := strings.Split(text, ",")
	s, err := Preset(strings.TrimSpace(parts[0]))
	if err != nil {
		return Spec{}, nil, err
	}
	var blk BlockOverrides
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Spec{}, nil, fmt.Errorf("device %s: override %q is not key=value (keys: %s)", s.Name, kv, strings.Join(KeysFor(s.Model), ", "))
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if IsBlockKey(k) {
			if blk == nil {
				blk = BlockOverrides{}
			}
			blk[k] = v
			if err := (BlockOverrides{k: v}).Validate(); err != nil {
				return Spec{}, nil, fmt.Errorf("device %s: %w", s.Name, err)
			}
			continue
		}
		if err := s.Set(k, v); err != nil {
			return Spec{}, nil, err
		}
	}
	return s, blk, s.Validate()
}

// String is the spec in ParseSpec form: the preset name and the fields that differ
// from it (or every key when the name is not a preset).
func (s Spec) String() string {
	base, err := Preset(s.Name)
	if err != nil || base.Model != s.Model {
		base = Spec{}
	}
	var b strings.Builder
	b.WriteString(s.Name)
	for _, p := range params() {
		if !p.applies(s.Model) {
			continue
		}
		var cur, old string
		if p.kind == kEnum {
			cur, old = *p.field(&s).(*string), *p.field(&base).(*string)
		} else {
			cur, old = p.show(s.get(p)), p.show(base.get(p))
		}
		if cur != old {
			b.WriteString("," + p.key + "=" + strings.ReplaceAll(strings.TrimSuffix(cur, "/s"), " ", ""))
		}
	}
	return b.String()
}

// ParseBytes parses sizes like 512, 4k, 60MiB, 1G (binary units; "B" and "iB" optional).
func ParseBytes(v string) (int64, error) { return parseSize(v, false) }

// parseSize parses a size; "k/M/G/T" and "KiB/MiB/..." are binary; with decimal set,
// "kB/MB/GB/TB" are decimal (rates as drive makers write them). A trailing "/s" is allowed.
func parseSize(v string, decimal bool) (int64, error) {
	t := strings.TrimSpace(v)
	t = strings.TrimSuffix(t, "/s")
	dec := false
	if decimal && len(t) >= 2 && t[len(t)-1] == 'B' && !strings.HasSuffix(t, "iB") && strings.ContainsAny(t[len(t)-2:len(t)-1], "kKMGT") {
		dec = true
	}
	t = strings.TrimSuffix(t, "B")
	t = strings.TrimSuffix(t, "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		base := int64(1024)
		if dec {
			base = 1000
		}
		switch t[n-1] {
		case 'k', 'K':
			mult = base
		case 'm', 'M':
			mult = base * base
		case 'g', 'G':
			mult = base * base * base
		case 't', 'T':
			mult = base * base * base * base
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size like 4k, 60MiB, 170MB or 1G")
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("size too large")
	}
	return n * mult, nil
}

// FormatBytes prints n with the largest binary unit that divides it exactly
// (4k -> "4KiB"), else in bytes; decimal multiples of 1000 print as "kB/MB/GB".
func FormatBytes(n int64) string {
	if n == 0 {
		return "0"
	}
	for _, u := range []struct {
		div int64
		s   string
	}{{1 << 40, "TiB"}, {1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if n%u.div == 0 {
			return strconv.FormatInt(n/u.div, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10)
}

// New builds the queue (with the kernel's block layer blk) and device model for spec.
func New(w *sim.World, spec Spec, blk Block) (*Queue, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := blk.Validate(); err != nil {
		return nil, err
	}
	var dev Device
	switch spec.Model {
	case ModelHDD:
		dev = newHDD(w, spec)
	default:
		dev = newParallel(w, spec)
	}
	return NewQueue(w, spec, blk, dev), nil
}
