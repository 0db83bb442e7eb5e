package lab

import (
	"fmt"
	"math"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
	"github.com/wblab/wblab/validate"
)

// Measured is a reference case measured on a real 6.1 kernel in QEMU (validate/) with
// the wblab config that models it.
type Measured struct {
	Name   string
	Cfg    engine.Config
	Log    *validate.Log
	Figs   validate.Figures
	Window validate.Window
	Case   validate.Case
}

var (
	measuredMu     sync.Mutex
	measuredLoaded bool
	measured       []Measured
)

// LoadMeasured parses the committed references wblab models (dd cases) once: natively
// from the logs validate embeds, in the engine worker from the bundle it fetches when a
// question first needs it (validate.SetReferenceBundle). A failed load is returned and
// not kept (the next question tries again); what loaded is kept for the process.
func LoadMeasured() ([]Measured, error) {
	measuredMu.Lock()
	defer measuredMu.Unlock()
	if measuredLoaded {
		return measured, nil
	}
	logs, err := validate.References()
	if err != nil {
		return nil, fmt.Errorf("the references measured on Linux %s could not be loaded: %v", validate.Kernel, err)
	}
	var ms []Measured
	for _, l := range logs {
		c, err := validate.CaseOf(l)
		if err != nil || c.Work != "dd" {
			continue
		}
		w := validate.SteadyWindow(c.RunS)
		rate, _, err := l.DiskRate(w)
		if err != nil {
			continue
		}
		cfg, err := validate.ConfigFor(c, rate)
		if err != nil {
			continue
		}
		f, err := validate.FiguresOf(l.Series(), w, l.BdiThresh())
		if err != nil {
			continue
		}
		ms = append(ms, Measured{Name: l.Name, Cfg: cfg, Log: l, Figs: f, Window: w, Case: c})
	}
	measured, measuredLoaded = ms, true
	return ms, nil
}

// MeasuredCases are the references LoadMeasured parsed (none if it failed).
func MeasuredCases() []Measured {
	ms, _ := LoadMeasured()
	return ms
}

// MeasuredFor is the reference a config models: the same kernel, filesystem, writers,
// machine, sysctls, kernel switch overrides (blk-wbt off) and run length, on the same device within 1 % of
// its rate (a link's device rate is rounded); the seed may differ.
func MeasuredFor(cfg engine.Config) (Measured, bool) { return measuredFor(MeasuredCases(), cfg) }

func measuredFor(ms []Measured, cfg engine.Config) (Measured, bool) {
	for _, m := range ms {
		r := m.Cfg
		same := cfg.Kernel == r.Kernel && cfg.Disks[0].Filesystem == r.Disks[0].Filesystem && cfg.Disks[0].Workload == r.Disks[0].Workload &&
			cfg.CPUs == r.CPUs && cfg.MemoryMB == r.MemoryMB && cfg.HZ == r.HZ &&
			cfg.DirtyBytes == r.DirtyBytes && cfg.DirtyRatio == r.DirtyRatio &&
			cfg.DirtyBackgroundBytes == r.DirtyBackgroundBytes && cfg.DirtyBackgroundRatio == r.DirtyBackgroundRatio &&
			cfg.DirtyExpireCs == r.DirtyExpireCs && cfg.DirtyWritebackCs == r.DirtyWritebackCs &&
			cfg.Runtime == r.Runtime && cfg.Disks[0].Device.Model == r.Disks[0].Device.Model &&
			sameOverrides(cfg.Variants, r.Variants) &&
			math.Abs(float64(cfg.Disks[0].Device.BandwidthBps-r.Disks[0].Device.BandwidthBps)) <= 0.01*float64(r.Disks[0].Device.BandwidthBps)
		if same {
			return m, true
		}
	}
	return Measured{}, false
}

// sameOverrides: the same switch overrides (nil and empty are the same: the preset's).
func sameOverrides(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// MeasuredHash is the page link (URL hash) that sets up a reference's case.
func MeasuredHash(m Measured) string {
	return "#" + EncodeHash(State{Form: FormFromConfig(m.Cfg)})
}

// MeasuredNote says where the dashed measured lines come from and how to re-measure.
func MeasuredNote(m Measured) string {
	c := m.Case
	return fmt.Sprintf("Dashed \"%s\": Debian's kernel %s measured in QEMU %s (%s, -smp %d) on %s, case %s: "+
		"the guest's /proc/vmstat, bdi and block stats sampled every second (validate/references/%s.log.gz). "+
		"The disk is QEMU-throttled to %.1f MiB/s; wblab gets the %.2f MiB/s the guest measured. "+
		"Re-measure with validate/qemu/run-case.sh (validate/README.md) and compare with wblab validate.",
		wire.MeasuredLabel, c.Kernel, c.QEMU, c.Accel, c.SMP, c.Host, m.Name, m.Name,
		float64(c.Disks[0].ThrottleBps)/(1<<20), float64(m.Cfg.Disks[0].Device.BandwidthBps)/(1<<20))
}

// MeasuredLinks are the links of all references, in name order.
func MeasuredLinks() []wire.MeasuredLink { return measuredLinks(MeasuredCases()) }

func measuredLinks(ms []Measured) []wire.MeasuredLink {
	var out []wire.MeasuredLink
	for _, m := range ms {
		out = append(out, wire.MeasuredLink{Name: m.Name, Href: MeasuredHash(m)})
	}
	return out
}

// measuredWire is a reference as the page draws it: its series, the write_bw it
// measured over its window and the note on where it comes from.
func measuredWire(m Measured) wire.Measured {
	return wire.Measured{Name: m.Name, Series: m.Log.Series(), WriteBWMBps: m.Figs.WriteBWMBps,
		Window: m.Window.String(), Note: MeasuredNote(m)}
}

// measuredAnswer is the answer to the "measured" question: the reference cfg models,
// if any, and every reference's link. Every reference models validate.Kernel
// (validate.ConfigFor), so a config of another kernel matches none and its answer is
// empty without loading them (the page offers the links on that kernel's runs only).
func measuredAnswer(cfg engine.Config) (wire.MeasuredMatch, error) {
	if cfg.Kernel != validate.Kernel {
		return wire.MeasuredMatch{}, nil
	}
	ms, err := LoadMeasured()
	if err != nil {
		return wire.MeasuredMatch{}, err
	}
	a := wire.MeasuredMatch{Links: measuredLinks(ms)}
	if m, ok := measuredFor(ms, cfg); ok {
		w := measuredWire(m)
		a.Match = &w
	}
	return a, nil
}
