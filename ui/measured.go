package ui

import (
	"fmt"
	"math"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/validate"
)

// MeasuredLabel names the measured overlay on the charts and cards.
const MeasuredLabel = "Linux 6.1, measured"

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
	measuredOnce sync.Once
	measured     []Measured
)

// MeasuredCases are the committed references wblab models (dd cases), parsed once.
func MeasuredCases() []Measured {
	measuredOnce.Do(func() {
		logs, err := validate.References()
		if err != nil {
			return
		}
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
			measured = append(measured, Measured{Name: l.Name, Cfg: cfg, Log: l, Figs: f, Window: w, Case: c})
		}
	})
	return measured
}

// MeasuredFor is the reference a config models: the same kernel, filesystem, writers,
// machine, sysctls, kernel switch overrides (blk-wbt off) and run length, on the same device within 1 % of
// its rate (a link's device rate is rounded); the seed may differ.
func MeasuredFor(cfg engine.Config) (Measured, bool) {
	for _, m := range MeasuredCases() {
		r := m.Cfg
		same := cfg.Kernel == r.Kernel && cfg.Filesystem == r.Filesystem && cfg.Workload == r.Workload &&
			cfg.CPUs == r.CPUs && cfg.MemoryMB == r.MemoryMB && cfg.HZ == r.HZ &&
			cfg.DirtyBytes == r.DirtyBytes && cfg.DirtyRatio == r.DirtyRatio &&
			cfg.DirtyBackgroundBytes == r.DirtyBackgroundBytes && cfg.DirtyBackgroundRatio == r.DirtyBackgroundRatio &&
			cfg.DirtyExpireCs == r.DirtyExpireCs && cfg.DirtyWritebackCs == r.DirtyWritebackCs &&
			cfg.Runtime == r.Runtime && cfg.Device.Model == r.Device.Model &&
			sameOverrides(cfg.Variants, r.Variants) &&
			math.Abs(float64(cfg.Device.BandwidthBps-r.Device.BandwidthBps)) <= 0.01*float64(r.Device.BandwidthBps)
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

// MeasuredRun is the measured series as a chart run on the model's time grid (the
// charts index every run by the first run's samples): at each model time the last
// measured sample at or before it (the guest samples about once a second). Columns
// the harness does not measure are absent.
func MeasuredRun(m Measured, model *engine.Result) Run {
	ms := m.Log.Series()
	absent := map[string]bool{}
	for _, n := range model.Series.Names {
		if _, ok := ms.Column(n); !ok {
			absent[n] = true
		}
	}
	t, _ := model.Series.Column("time_s")
	mt, _ := ms.Column("time_s")
	out := &engine.Series{IntervalS: model.Series.IntervalS, Names: ms.Names, Data: make([][]float64, len(ms.Names))}
	j := -1
	for _, x := range t {
		for j+1 < len(mt) && mt[j+1] <= x+1e-9 {
			j++
		}
		for c := range ms.Names {
			v := math.NaN() // before the first sample
			if j >= 0 {
				v = ms.Data[c][j]
			}
			if ms.Names[c] == "time_s" {
				v = x
			}
			out.Data[c] = append(out.Data[c], v)
		}
	}
	return Run{Label: MeasuredLabel, Result: &engine.Result{Series: out}, Absent: absent}
}

// MeasuredCards adds the measured figure to the cards it has one for: write_bw over
// the window (MiB/s), with the window in the unit.
func MeasuredCards(cards []Card, m Measured) []Card {
	for i := range cards {
		if cards[i].ID == "write_bw" {
			cards[i].M = fmt.Sprintf("%.2f (%s window)", m.Figs.WriteBWMBps, m.Window)
		}
	}
	return cards
}

// MeasuredNote says where the dashed measured lines come from and how to re-measure.
func MeasuredNote(m Measured) string {
	c := m.Case
	return fmt.Sprintf("Dashed \"%s\": Debian's kernel %s measured in QEMU %s (%s, -smp %d) on %s, case %s: "+
		"the guest's /proc/vmstat, bdi and block stats sampled every second (validate/references/%s.log.gz). "+
		"The disk is QEMU-throttled to %.1f MiB/s; wblab gets the %.2f MiB/s the guest measured. "+
		"Re-measure with validate/qemu/run-case.sh (validate/README.md) and compare with wblab validate.",
		MeasuredLabel, c.Kernel, c.QEMU, c.Accel, c.SMP, c.Host, m.Name, m.Name,
		float64(c.Disks[0].ThrottleBps)/(1<<20), float64(m.Cfg.Device.BandwidthBps)/(1<<20))
}

// MeasuredLink is a reference case's name and page link.
type MeasuredLink struct{ Name, Href string }

// MeasuredLinks are the links of all references, in name order.
func MeasuredLinks() []MeasuredLink {
	var out []MeasuredLink
	for _, m := range MeasuredCases() {
		out = append(out, MeasuredLink{Name: m.Name, Href: MeasuredHash(m)})
	}
	return out
}
