package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/stats"
)

// Cell is the runs of a matrix case on the base (col 0) or test (col 1) kernel: one
// per seed. BW is the mean write_bw over the seeds once all finished.
type Cell struct {
	Done bool
	BW   float64
	Err  string
	BWs  []float64 // write_bw per seed (index = seed - first seed)
	got  int
}

// set records seed i's write_bw of n; the cell is done when every seed arrived.
func (c *Cell) set(i, n int, bw float64) {
	if len(c.BWs) != n {
		c.BWs = make([]float64, n)
	}
	c.BWs[i] = bw
	c.got++
	if c.got == n {
		c.Done = true
		c.BW = stats.Of(c.BWs).Mean
	}
}

// rowDelta is a row's delta: with several seeds paired by seed and marked "~"
// inside the noise.
func rowDelta(r [2]Cell) string {
	if len(r[0].BWs) > 1 && len(r[0].BWs) == len(r[1].BWs) {
		return stats.FormatDeltaPct(stats.PairedDeltaPct(r[0].BWs, r[1].BWs))
	}
	return Delta(r[0].BW, r[1].BW)
}

// totalDelta is the TOTAL's delta over the finished rows, paired by seed.
func (m *Matrix) totalDelta() string {
	var tb, tt []float64
	for _, r := range m.Cells {
		if !r[0].Done || !r[1].Done {
			continue
		}
		if len(r[0].BWs) < 2 || len(r[0].BWs) != len(r[1].BWs) {
			b, t, _ := m.Total()
			return Delta(b, t)
		}
		if tb == nil {
			tb, tt = make([]float64, len(r[0].BWs)), make([]float64, len(r[0].BWs))
		}
		for s := range tb {
			tb[s] += r[0].BWs[s]
			tt[s] += r[1].BWs[s]
		}
	}
	return stats.FormatDeltaPct(stats.PairedDeltaPct(tb, tt))
}

// Matrix is the state of a comparison: rows are cases, columns base and test.
type Matrix struct {
	Base, Test string // kernel labels
	Header     string // the harness table's header for them (harness.TableHeader)
	Cases      []string
	Cells      [][2]Cell
	Thread     string   // the built-in table the cases come from, or ""
	Diffs      []string // where the run's setup differs from the thread's (SetupDiffs)
}

// Finished counts cells that have a value or an error.
func (m *Matrix) Finished() int {
	n := 0
	for _, r := range m.Cells {
		for _, c := range r {
			if c.Done || c.Err != "" {
				n++
			}
		}
	}
	return n
}

// runsDone counts finished runs: seeds arrived, and all n of a failed cell.
func (m *Matrix) runsDone(n int) int {
	k := 0
	for _, r := range m.Cells {
		for _, c := range r {
			if c.Err != "" {
				k += n
			} else {
				k += c.got
			}
		}
	}
	return k
}

// Delta is the test/base change in percent as the harness prints it ("+3.1%").
func Delta(base, test float64) string {
	if base == 0 {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", (test-base)/base*100)
}

// Total sums the rows where both sides finished.
func (m *Matrix) Total() (base, test float64, n int) {
	for _, r := range m.Cells {
		if r[0].Done && r[1].Done {
			base += r[0].BW
			test += r[1].BW
			n++
		}
	}
	return
}

// Text is the harness-format table (report.TableRow, as harness prints it): base
// MB/s, delta, test MB/s, case; then TOTAL over the rows where both sides finished.
func (m *Matrix) Text() string {
	var b strings.Builder
	b.WriteString(m.Header)
	val := func(c Cell) string {
		switch {
		case c.Done:
			return fmt.Sprintf("%.2f", c.BW)
		case c.Err == "cancelled":
			return "cancelled"
		case c.Err != "":
			return "error"
		}
		return "..."
	}
	for i, r := range m.Cells {
		d := ""
		if r[0].Done && r[1].Done {
			d = rowDelta(r)
		}
		b.WriteString(report.TableRow(val(r[0]), d, val(r[1]), m.Cases[i]))
	}
	bt, tt, n := m.Total()
	if n > 0 {
		b.WriteString(report.TableRow(fmt.Sprintf("%.2f", bt), m.totalDelta(), fmt.Sprintf("%.2f", tt), "TOTAL write_bw"+m.totalOf(n)))
	}
	return b.String()
}

// totalOf says over how many rows a TOTAL is while some rows are not finished
// (" of 2 of 15 rows"); "" once every row is.
func (m *Matrix) totalOf(n int) string {
	if n == len(m.Cells) {
		return ""
	}
	return fmt.Sprintf(" of %d of %d rows", n, len(m.Cells))
}

// Repeatability is the thread's own run-to-run spread: each one-writer case (one dd
// on ext4, xfs or btrfs) under every kernel the tables give it a figure for, whose
// patches change nothing a single writer runs (tests/fidelity's disk-rate subtest
// logs the same figures). MinPct-MaxPct is the range of the cases' spreads
// (max-min)/mean.
type Repeatability struct {
	Cases, Kernels int
	MinPct, MaxPct float64
}

// ThreadRepeatability computes Repeatability from the built-in tables; ok when some
// one-writer case has figures under two kernels or more.
func ThreadRepeatability() (Repeatability, bool) {
	byCase := map[string]map[string]float64{} // case -> kernel -> MB/s
	var order []string
	for _, t := range Tables() {
		for i, name := range t.Cases {
			if !oneWriter(name) {
				continue
			}
			if byCase[name] == nil {
				byCase[name] = map[string]float64{}
				order = append(order, name)
			}
			byCase[name][t.Base] = t.BaseBW[i]
			byCase[name][t.Test] = t.TestBW[i]
		}
	}
	r := Repeatability{MinPct: math.Inf(1), MaxPct: math.Inf(-1)}
	for _, name := range order {
		var v []float64
		for _, x := range byCase[name] {
			v = append(v, x)
		}
		if len(v) < 2 {
			continue
		}
		s := stats.Of(v)
		spread := (s.Max - s.Min) / s.Mean * 100
		r.Cases++
		r.Kernels = max(r.Kernels, len(v))
		r.MinPct, r.MaxPct = math.Min(r.MinPct, spread), math.Max(r.MaxPct, spread)
	}
	return r, r.Cases > 0
}

// oneWriter reports whether a case name is one dd on ext4, xfs or btrfs
// ("thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X").
func oneWriter(name string) bool {
	_, rest, _ := strings.Cut(name, "/")
	fs, rest, _ := strings.Cut(rest, "-")
	return strings.HasPrefix(rest, "1dd-") && (fs == "ext4" || fs == "xfs" || fs == "btrfs")
}

// Text is the repeatability as the page states it beside a thread's table.
func (r Repeatability) Text() string {
	return fmt.Sprintf("The thread's own repeatability: each of its %d one-writer cells, run under up to %d kernels whose patches "+
		"change nothing a single writer does, spreads %.1f-%.1f %% (max-min over the mean). Deltas that small are within the "+
		"testbed's noise.", r.Cases, r.Kernels, r.MinPct, r.MaxPct)
}
