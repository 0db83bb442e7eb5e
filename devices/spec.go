package devices

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/sim"
)

// Spec describes a device and its queue. Every field has a key in the
// "--device NAME,key=value" form (see Keys).
type Spec struct {
	Name         string `json:"name"`
	Model        string `json:"model"`          // service model: "simple"
	BandwidthBps int64  `json:"bw_Bps"`         // sustained transfer rate, bytes/s
	RequestNs    int64  `json:"req_ns"`         // fixed cost per request, ns
	QueueDepth   int    `json:"qd"`             // requests issued to the device at once
	MaxSectorsKB int    `json:"max_sectors_kb"` // largest merged request
	NrRequests   int    `json:"nr_requests"`    // request pool per direction
	Rotational   bool   `json:"rotational"`
	Doc          string `json:"doc,omitempty"`
}

// presets are the built-in devices. Parameters live here, one place, with their source.
var presets = map[string]Spec{
	// simple: a plain disk with a fixed bandwidth and per-request cost; the
	// foundation's device, close to the Wu 2011 disk's sequential rate through a
	// filesystem (~55-60 MB/s, kernel-notes §4.5).
	"simple": {Name: "simple", Model: "simple", BandwidthBps: 60 << 20, RequestNs: 200_000,
		QueueDepth: 31, MaxSectorsKB: 512, NrRequests: 128, Rotational: true,
		Doc: "fixed-rate disk: 60 MiB/s + 0.2 ms per request, QD 31, 512 KiB requests"},
}

// Presets lists the built-in devices by name.
func Presets() []Spec {
	out := make([]Spec, 0, len(presets))
	for _, s := range presets {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Keys lists the override keys accepted by ParseSpec.
func Keys() []string {
	return []string{"bw", "req_us", "qd", "max_sectors_kb", "nr_requests", "rotational"}
}

// Preset returns the named preset.
func Preset(name string) (Spec, error) {
	s, ok := presets[name]
	if !ok {
		names := make([]string, 0, len(presets))
		for n := range presets {
			names = append(names, n)
		}
		sort.Strings(names)
		return Spec{}, fmt.Errorf("device: unknown preset %q (presets: %s)", name, strings.Join(names, ", "))
	}
	return s, nil
}

// ParseSpec parses "NAME[,key=value...]": a preset and overrides of its parameters.
func ParseSpec(text string) (Spec, error) {
	parts := strings.Split(text, ",")
	s, err := Preset(strings.TrimSpace(parts[0]))
	if err != nil {
		return Spec{}, err
	}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Spec{}, fmt.Errorf("device: override %q is not key=value (keys: %s)", kv, strings.Join(Keys(), ", "))
		}
		if err := s.Set(strings.TrimSpace(k), strings.TrimSpace(v)); err != nil {
			return Spec{}, err
		}
	}
	return s, s.Validate()
}

// Set overrides one parameter by key.
func (s *Spec) Set(key, val string) error {
	bad := func(what string) error {
		return fmt.Errorf("device: %s=%q: %s", key, val, what)
	}
	switch key {
	case "bw":
		n, err := ParseBytes(val)
		if err != nil {
			return bad(err.Error())
		}
		s.BandwidthBps = n
	case "req_us":
		n, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return bad("want microseconds, e.g. 200 or 12.5")
		}
		s.RequestNs = int64(n * 1000)
	case "qd", "max_sectors_kb", "nr_requests":
		n, err := strconv.Atoi(val)
		if err != nil {
			return bad("want an integer")
		}
		switch key {
		case "qd":
			s.QueueDepth = n
		case "max_sectors_kb":
			s.MaxSectorsKB = n
		default:
			s.NrRequests = n
		}
	case "rotational":
		b, err := strconv.ParseBool(val)
		if err != nil {
			return bad("want true or false")
		}
		s.Rotational = b
	default:
		return fmt.Errorf("device: unknown key %q (keys: %s)", key, strings.Join(Keys(), ", "))
	}
	return nil
}

// Limits for validation.
const (
	MaxQueueDepth   = 65536
	MaxBandwidthBps = 1 << 40
)

// Validate checks every field against its allowed range.
func (s Spec) Validate() error {
	switch {
	case s.Model != "simple":
		return fmt.Errorf("device.model: %q is not a model (models: simple)", s.Model)
	case s.BandwidthBps < 1<<20 || s.BandwidthBps > MaxBandwidthBps:
		return fmt.Errorf("device.bw: %d B/s out of range [1MiB/s, 1TiB/s]", s.BandwidthBps)
	case s.RequestNs < 0 || s.RequestNs > int64(sim.Second):
		return fmt.Errorf("device.req_us: %d ns out of range [0, 1s]", s.RequestNs)
	case s.QueueDepth < 1 || s.QueueDepth > MaxQueueDepth:
		return fmt.Errorf("device.qd: %d out of range [1, %d]", s.QueueDepth, MaxQueueDepth)
	case s.MaxSectorsKB < 4 || s.MaxSectorsKB > 32768:
		return fmt.Errorf("device.max_sectors_kb: %d out of range [4, 32768]", s.MaxSectorsKB)
	case s.NrRequests < 4 || s.NrRequests > 65536:
		return fmt.Errorf("device.nr_requests: %d out of range [4, 65536]", s.NrRequests)
	}
	return nil
}

// ParseBytes parses sizes like 512, 4k, 60MiB, 1G (binary units; "B" and "iB" optional).
func ParseBytes(v string) (int64, error) {
	t := strings.TrimSpace(v)
	t = strings.TrimSuffix(strings.TrimSuffix(t, "/s"), "B")
	t = strings.TrimSuffix(t, "i")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size like 4k, 60MiB or 1G")
	}
	if n > (1<<62)/mult {
		return 0, fmt.Errorf("size too large")
	}
	return n * mult, nil
}

// New builds the queue and device model for spec.
func New(w *sim.World, spec Spec) (*Queue, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	d := &simpleDevice{w: w, spec: spec}
	q := NewQueue(w, spec, d)
	d.q = q
	d.timer.Fn = d.done
	return q, nil
}
