package ui

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/report"
)

// Card is one summary number (or name, for Text cards).
type Card struct {
	ID, Label, Unit string
	A, B, Delta     string
	M               string // the measured reference's value (measured.go), or ""
	Text            bool
}

// Cards builds the summary cards of finished run a (and b when it is not nil): the
// numbers with B's change, the filesystem's counters, then the kernel, device and
// filesystem names.
func Cards(ar, b *RunState) []Card {
	a, wallMs := ar.Res, ar.WallMs
	// delta: B's change in percent means something (a rate, an amount, a time the
	// workload took); not for the wall time (the machine's load), the simulated
	// runtime, the ages (extremes of one page or inode) or counts of rare events
	type num struct {
		id, label, unit string
		f               func(*report.Result, float64) float64
		prec            int
		delta           bool
	}
	nums := []num{
		{"write_bw", "write_bw", "MiB/s", func(r *report.Result, _ float64) float64 { return r.WriteBWMBps }, 2, true},
		{"written", "written", "MiB", func(r *report.Result, _ float64) float64 { return r.WrittenMB }, 1, true},
		{"cpu", "CPU", "s", func(r *report.Result, _ float64) float64 { return r.CPUS }, 2, true},
		{"runtime", "runtime", "s simulated", func(r *report.Result, _ float64) float64 { return r.RuntimeS }, 0, false},
		{"wall", "wall time", "ms", func(_ *report.Result, w float64) float64 { return w }, 0, false},
		{"data_age", "oldest dirty data", "s", func(r *report.Result, _ float64) float64 { return r.DirtyAge.MaxDataS }, 1, false},
		{"age", "oldest inode dirtied_when", "s ago", func(r *report.Result, _ float64) float64 { return r.DirtyAge.MaxS }, 1, false},
		{"busy", "wb busy loops", "", func(r *report.Result, _ float64) float64 { return float64(r.BusyLoops) }, 0, false},
	}
	if ddTime(a) > 0 || (b != nil && ddTime(b.Res) > 0) {
		nums = append(nums, num{"dd_time", "dd finished in", "s", func(r *report.Result, _ float64) float64 { return ddTime(r) }, 1, true})
	}
	if len(a.Full) > 0 || (b != nil && len(b.Res.Full) > 0) {
		nums = append(nums, num{"full", "disk full at", "s", func(r *report.Result, _ float64) float64 { return fullAt(r) }, 1, false})
	}
	if a.Reads.Count > 0 || (b != nil && b.Res.Reads.Count > 0) {
		nums = append(nums,
			num{"read_p99", "read latency p99", "ms", func(r *report.Result, _ float64) float64 { return r.Reads.P99Ms }, 1, true},
			num{"read_mean", "read latency mean", "ms", func(r *report.Result, _ float64) float64 { return r.Reads.MeanMs }, 2, true})
	}
	var out []Card
	for _, g := range nums {
		av := g.f(a, wallMs)
		cd := Card{ID: g.id, Label: g.label, Unit: g.unit, A: fmt.Sprintf("%.*f", g.prec, av)}
		if g.id == "wall" && ar.Prerendered {
			cd.A, cd.Unit = "–", "(computed when the site was built)"
		}
		if b != nil {
			bv := g.f(b.Res, b.WallMs)
			cd.B = fmt.Sprintf("%.*f", g.prec, bv)
			if g.delta && math.Abs(av) >= 0.5*math.Pow(10, -float64(g.prec)) { // no % change from a shown 0
				cd.Delta = Delta(av, bv)
			}
		}
		out = append(out, cd)
	}
	// the filesystem's counters (journal commits, xfsdatad requeues, ...)
	for _, st := range a.FSStats {
		cd := Card{ID: "fs-" + st.Name, Label: strings.ReplaceAll(st.Name, "_", " "), A: strconv.FormatInt(st.Value, 10)}
		if b != nil {
			for _, bs := range b.Res.FSStats {
				if bs.Name == st.Name && b.Res.Filesystem == a.Filesystem {
					cd.B = strconv.FormatInt(bs.Value, 10)
					if st.Value != 0 {
						cd.Delta = Delta(float64(st.Value), float64(bs.Value))
					}
				}
			}
		}
		out = append(out, cd)
	}
	for _, t := range []struct {
		id, label string
		f         func(*RunState) string
	}{
		{"kernel", "kernel", func(r *RunState) string { return r.Run.Kernel }},
		{"device", "device", func(r *RunState) string { return r.Run.Device }},
		{"fs", "filesystem", func(r *RunState) string { return r.Res.Filesystem }},
	} {
		cd := Card{ID: t.id, Label: t.label, A: t.f(ar), Text: true}
		if b != nil && t.f(b) != cd.A {
			cd.B = t.f(b)
		}
		out = append(out, cd)
	}
	return out
}

// ddTime is when the last count-limited dd finished its count (0 when none did; a
// dd that exited with ENOSPC did not: the "disk full at" card says when).
func ddTime(r *report.Result) float64 {
	t := 0.0
	for _, k := range r.Tasks {
		if k.Done && k.Exit != report.ExitENOSPC && k.RuntimeS > t {
			t = k.RuntimeS
		}
	}
	return t
}

// fullAt is when the run's first disk filled (0 when none did).
func fullAt(r *report.Result) float64 {
	t := 0.0
	for _, f := range r.Full {
		if t == 0 || f.FullAtS < t {
			t = f.FullAtS
		}
	}
	return t
}

// CardClass styles number and name cards.
func CardClass(cd Card) string {
	if cd.Text {
		return "card text"
	}
	return "card"
}
