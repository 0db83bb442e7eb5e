package validate

import (
	"fmt"
	"math"
	"sort"
)

// Per scenario (its runs NAME.rK, ScenarioOf) and figure: the real kernel's mean
// and range over the held runs, wblab's mean and range over those runs' seeds, the
// error and whether it is within the target (issue 33 §1).

// Spread is a figure's mean and range over runs or seeds.
type Spread struct {
	N              int
	Mean, Min, Max float64
}

func spreadOf(v []float64) Spread {
	s := Spread{N: len(v), Min: math.Inf(1), Max: math.Inf(-1)}
	for _, x := range v {
		s.Mean += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	if s.N > 0 {
		s.Mean /= float64(s.N)
	} else {
		s.Min, s.Max = 0, 0
	}
	return s
}

// Targets (issue 33 §1): a figure is within target when wblab's mean is within
// TargetPct of the real mean or inside the real runs' range.
const (
	TargetRatePct   = 25 // rates, thresholds, dirty+writeback
	TargetEditorPct = 50 // editor latency p50 and p99
)

// Figure kinds: what a figure measures, for the accuracy table (Accuracy). A kind
// depends on the scenario's shape (its writers and their disks' rates), never on
// its name.
const (
	KindWriterOne      = "writer rate, one writer"
	KindWriterBeside   = "writer rate beside a slower disk's writer"
	KindWriterSlow     = "writer rate on the slower disk, beside another writer"
	KindWriterAlone    = "writer rate alone (control)"
	KindDirtyWriteback = "dirty+writeback (global)"
	KindDirty          = "dirty (global)"
	KindThreshold      = "threshold (global dirty and background)"
	KindBdiDirty       = "bdi dirty+writeback"
	KindBdiThreshold   = "bdi threshold"
	KindDiskRate       = "disk write rate"
	KindEditorP50      = "editor fsync p50, a writer on its disk"
	KindEditorP99      = "editor fsync p99, a writer on its disk"
	KindEditorMax      = "editor fsync max, a writer on its disk"
	KindEditorIdleP50  = "editor fsync p50, no writer on its disk"
	KindEditorIdleP99  = "editor fsync p99, no writer on its disk"
	KindEditorIdleMax  = "editor fsync max, no writer on its disk"
	KindExit           = "dd exit after the kill"
	KindSync           = "final sync"
)

// a figure's target: none, or TargetRatePct / TargetEditorPct (or inside the range)
const (
	noTarget            = 0
	targetRateOrRange   = TargetRatePct
	targetEditorOrRange = TargetEditorPct
)

// MixFigure is one figure of a harness 2 scenario: real (held runs) and wblab
// (those runs × seeds), the error of wblab's mean relative to the real mean, and
// the target (TargetPct 0: none).
type MixFigure struct {
	Scenario, Name, Unit, Kind string
	Real, Model                Spread
	ErrPct                     float64 // (wblab mean - real mean) / real mean, percent
	TargetPct                  float64
	Within                     bool // |ErrPct| <= TargetPct or wblab's mean inside the real range
	Held                       bool // the scenario has held runs (Real is over them); else over all runs
}

// mixFig extracts a figure from one run: measured, and per seed wblab's; ok false
// when the run has no such figure.
type mixFig struct {
	name, unit, kind string
	target           float64
	get              func(c *Comparison) (real float64, model []float64, ok bool)
}

// mixFigs are the figures of a scenario, named from one run's shape (each writer,
// each disk).
func mixFigs(c *Comparison) []mixFig {
	m := c.Mix
	var fs []mixFig
	per := func(f func(c *Comparison, mm *MixModel) float64) func(c *Comparison) []float64 {
		return func(c *Comparison) []float64 {
			var v []float64
			for i := range c.MixModels {
				v = append(v, f(c, &c.MixModels[i]))
			}
			return v
		}
	}
	for j, w := range m.Writers {
		fs = append(fs, mixFig{w.Name + " rate (" + w.Disk + ")", "MB/s", writerKind(c, j), targetRateOrRange,
			func(c *Comparison) (float64, []float64, bool) {
				if j >= len(c.Mix.WriterMBps) {
					return 0, nil, false
				}
				return c.Mix.WriterMBps[j], per(func(_ *Comparison, mm *MixModel) float64 { return mm.WriterMBps[j] })(c), true
			}})
	}
	for j, w := range m.Writers {
		fs = append(fs, mixFig{w.Name + " alone", "MB/s", KindWriterAlone, targetRateOrRange,
			func(c *Comparison) (float64, []float64, bool) {
				k := controlOf(c.Mix, j)
				if k == nil || j >= len(c.Mix.Writers) {
					return 0, nil, false
				}
				return k.MBps, per(func(_ *Comparison, mm *MixModel) float64 { return mm.AloneMBps[j] })(c), true
			}})
	}
	global := func(name, kind string, target float64, f func(Figures) float64) mixFig {
		return mixFig{name, "MB", kind, target, func(c *Comparison) (float64, []float64, bool) {
			return f(c.Measured), per(func(_ *Comparison, mm *MixModel) float64 { return f(mm.Figures) })(c), true
		}}
	}
	fs = append(fs,
		global("dirty+writeback", KindDirtyWriteback, targetRateOrRange, func(f Figures) float64 { return f.DirtyWritebackMB }),
		global("dirty", KindDirty, noTarget, func(f Figures) float64 { return f.DirtyMB }),
		global("thresh", KindThreshold, targetRateOrRange, func(f Figures) float64 { return f.ThreshMB }),
		global("bg_thresh", KindThreshold, targetRateOrRange, func(f Figures) float64 { return f.BgThreshMB }))
	for i, d := range c.Case.Disks {
		disk := func(name, unit, kind string, real func(m *Mix) []float64, model func(mm *MixModel) []float64) mixFig {
			return mixFig{d.Name + " " + name, unit, kind, targetRateOrRange, func(c *Comparison) (float64, []float64, bool) {
				if r := real(c.Mix); i < len(r) {
					return r[i], per(func(_ *Comparison, mm *MixModel) float64 { return at(model(mm), i) })(c), true
				}
				return 0, nil, false
			}}
		}
		fs = append(fs,
			disk("bdi dirty+writeback", "MB", KindBdiDirty, func(m *Mix) []float64 { return m.BdiDirtyMB }, func(mm *MixModel) []float64 { return mm.BdiDirtyMB }),
			disk("bdi thresh", "MB", KindBdiThreshold, func(m *Mix) []float64 { return m.BdiThreshMB }, func(mm *MixModel) []float64 { return mm.BdiThreshMB }),
			disk("wrote", "MB/s", KindDiskRate, func(m *Mix) []float64 { return m.DiskMBps }, func(mm *MixModel) []float64 { return mm.DiskMBps }))
	}
	if m.Editor != "" {
		shared := false
		if e := int(m.Editor[0] - 'a'); e >= 0 && e < len(c.Case.Disks) {
			for _, w := range m.Writers {
				shared = shared || w.Disk == c.Case.Disks[e].Name
			}
		}
		p50, p99, pmax := EditorKinds(shared)
		ed := func(name, kind string, target float64, f func(Latencies) float64) mixFig {
			return mixFig{name, "s", kind, target, func(c *Comparison) (float64, []float64, bool) {
				if c.Mix.Editor == "" || c.Mix.Fsync.N == 0 {
					return 0, nil, false
				}
				return f(c.Mix.Fsync), per(func(_ *Comparison, mm *MixModel) float64 { return f(mm.Editor) })(c), true
			}}
		}
		fs = append(fs,
			ed("editor p50", p50, targetEditorOrRange, func(l Latencies) float64 { return l.P50S }),
			ed("editor p99", p99, targetEditorOrRange, func(l Latencies) float64 { return l.P99S }),
			ed("editor max", pmax, noTarget, func(l Latencies) float64 { return l.MaxS }))
	}
	for j, w := range m.Writers {
		fs = append(fs, mixFig{w.Name + " exit after kill", "s", KindExit, noTarget, func(c *Comparison) (float64, []float64, bool) {
			if j >= len(c.Mix.ExitS) || c.Mix.ExitS[j] < 0 {
				return 0, nil, false
			}
			return c.Mix.ExitS[j], per(func(_ *Comparison, mm *MixModel) float64 { return mm.ExitS[j] })(c), true
		}})
	}
	fs = append(fs, mixFig{"final sync", "s", KindSync, noTarget, func(c *Comparison) (float64, []float64, bool) {
		return c.Mix.SyncS, per(func(_ *Comparison, mm *MixModel) float64 { return mm.SyncS })(c), true
	}})
	return fs
}

// EditorKinds are the kinds of an editor's p50, p99 and max: with a dd writer on
// its own disk (shared) or with none there.
func EditorKinds(shared bool) (p50, p99, pmax string) {
	if shared {
		return KindEditorP50, KindEditorP99, KindEditorMax
	}
	return KindEditorIdleP50, KindEditorIdleP99, KindEditorIdleMax
}

// writerKind classifies writer j by the scenario's shape: the only writer, or one
// of several on disks of different rates (its own the slowest, or not).
func writerKind(c *Comparison, j int) string {
	m := c.Mix
	if len(m.Writers) < 2 {
		return KindWriterOne
	}
	rate := func(disk string) int64 {
		for _, d := range c.Case.Disks {
			if d.Name == disk {
				return d.ThrottleBps
			}
		}
		return 0
	}
	own := rate(m.Writers[j].Disk)
	for k, w := range m.Writers {
		if k != j && rate(w.Disk) < own {
			return KindWriterBeside
		}
	}
	return KindWriterSlow
}

// MixReference compares wblab with each harness 2 scenario in cs, per figure: the
// real mean [min, max] over the scenario's held runs (all its runs when none held,
// with Held false), wblab's mean [min, max] over those runs' seeds, the error and
// the target. Scenarios in the order of their first run.
func MixReference(cs []Comparison) []MixFigure {
	runs := map[string][]*Comparison{}
	var order []string
	for i := range cs {
		c := &cs[i]
		if c.Mix == nil || len(c.MixModels) == 0 {
			continue
		}
		sc := ScenarioOf(c.Case.Name)
		if runs[sc] == nil {
			order = append(order, sc)
		}
		runs[sc] = append(runs[sc], c)
	}
	var out []MixFigure
	for _, sc := range order {
		all := runs[sc]
		var use []*Comparison
		for _, c := range all {
			if c.Held {
				use = append(use, c)
			}
		}
		held := len(use) > 0
		if !held {
			use = all
		}
		for _, f := range mixFigs(use[0]) {
			var real, model []float64
			for _, c := range use {
				r, m, ok := f.get(c)
				if !ok {
					continue
				}
				real, model = append(real, r), append(model, m...)
			}
			if len(real) == 0 {
				continue
			}
			mf := MixFigure{Scenario: sc, Name: f.name, Unit: f.unit, Kind: f.kind, Real: spreadOf(real), Model: spreadOf(model),
				TargetPct: f.target, Held: held}
			mf.ErrPct = signedRelErr(mf.Real.Mean, mf.Model.Mean)
			if f.target > 0 {
				mf.Within = math.Abs(mf.ErrPct) <= f.target || (mf.Model.Mean >= mf.Real.Min && mf.Model.Mean <= mf.Real.Max)
			}
			out = append(out, mf)
		}
	}
	return out
}

// signedRelErr is (model - measured) / |measured| in percent (0 when both are 0;
// ±100 when only measured is 0).
func signedRelErr(measured, model float64) float64 {
	if measured == 0 {
		switch {
		case model > 0:
			return 100
		case model < 0:
			return -100
		}
		return 0
	}
	return 100 * (model - measured) / math.Abs(measured)
}

// AccuracyRow is the measured error of the 6.1 preset for one kind of figure over
// the held harness 2 references: how many figures (from how many scenarios and
// held runs), the mean and largest |error|, and how many are within the target.
type AccuracyRow struct {
	Kind         string  `json:"kind"`
	Figures      int     `json:"figures"`
	Scenarios    int     `json:"scenarios"`
	Runs         int     `json:"runs"` // held QEMU runs behind them
	MeanErrPct   float64 `json:"mean_err_pct"`
	MaxErrPct    float64 `json:"max_err_pct"`
	TargetPct    float64 `json:"target_pct,omitempty"`
	WithinTarget int     `json:"within_target"`
}

// AccuracyOf is the accuracy table of MixReference's figures (held scenarios
// only), one row per kind in a fixed order; runs counts each scenario's held runs.
func AccuracyOf(figs []MixFigure, heldRuns map[string]int) []AccuracyRow {
	rows := map[string]*AccuracyRow{}
	scen := map[string]map[string]bool{}
	for _, f := range figs {
		if !f.Held {
			continue
		}
		r := rows[f.Kind]
		if r == nil {
			r = &AccuracyRow{Kind: f.Kind, TargetPct: f.TargetPct}
			rows[f.Kind], scen[f.Kind] = r, map[string]bool{}
		}
		e := math.Abs(f.ErrPct)
		r.Figures++
		r.MeanErrPct += e
		r.MaxErrPct = math.Max(r.MaxErrPct, e)
		if f.Within {
			r.WithinTarget++
		}
		if !scen[f.Kind][f.Scenario] {
			scen[f.Kind][f.Scenario] = true
			r.Scenarios++
			r.Runs += heldRuns[f.Scenario]
		}
	}
	var out []AccuracyRow
	for _, r := range rows {
		r.MeanErrPct = math.Round(10*r.MeanErrPct/float64(r.Figures)) / 10
		r.MaxErrPct = math.Round(10*r.MaxErrPct) / 10
		out = append(out, *r)
	}
	rank := map[string]int{}
	for i, k := range AccuracyKinds {
		rank[k] = i
	}
	sort.Slice(out, func(i, j int) bool { return rank[out[i].Kind] < rank[out[j].Kind] })
	return out
}

// AccuracyKinds are the figure kinds in the accuracy table's order.
var AccuracyKinds = []string{KindWriterOne, KindWriterBeside, KindWriterSlow, KindWriterAlone, KindDirtyWriteback, KindDirty,
	KindThreshold, KindBdiDirty, KindBdiThreshold, KindDiskRate, KindEditorP50, KindEditorP99, KindEditorMax,
	KindEditorIdleP50, KindEditorIdleP99, KindEditorIdleMax, KindExit, KindSync}

// HeldRuns counts each harness 2 scenario's held runs in cs.
func HeldRuns(cs []Comparison) map[string]int {
	n := map[string]int{}
	for _, c := range cs {
		if c.Mix != nil && c.Held {
			n[ScenarioOf(c.Case.Name)]++
		}
	}
	return n
}

// Note is the accuracy note for a figure of this kind: "real 6.1 within ±X % in
// N QEMU references" (X: the largest error seen, rounded up), "" without a row.
func (r AccuracyRow) Note() string {
	if r.Figures == 0 {
		return ""
	}
	return fmt.Sprintf("real 6.1 within ±%.0f %% in %d QEMU references", math.Ceil(r.MaxErrPct), r.Runs)
}
