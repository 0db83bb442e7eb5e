package ui

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/harness"
)

// Table is a built-in case list (one of the thread's comparison tables) with its
// kernels and the thread's published numbers.
type Table struct {
	Name, Base, Test string // "T1"; the base and test kernel presets
	Cases            []string
	BaseBW, TestBW   []float64 // the thread's MB/s
}

// Tables are Wu 2011's tables T1..T6, read from the engine's matrices.
func Tables() []Table {
	var out []Table
	for _, name := range harness.Matrices() {
		m, err := harness.LookupMatrix(name)
		if err != nil {
			continue
		}
		t := Table{Name: strings.TrimPrefix(m.Name, "wu-2011-"), Base: m.Base, Test: m.Test}
		for _, r := range m.Rows {
			t.Cases = append(t.Cases, r.Case)
			t.BaseBW = append(t.BaseBW, r.ThreadBaseMBps)
			t.TestBW = append(t.TestBW, r.ThreadTestMBps)
		}
		out = append(out, t)
	}
	return out
}

// TableByName finds a built-in table.
func TableByName(name string) (Table, bool) {
	for _, t := range Tables() {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// Setup is the thread's run of the table (the harness: the default config, 600 s,
// seed 1, with the base kernel); each case then sets its own fields.
func (t Table) Setup() engine.Config {
	cfg := engine.DefaultConfig()
	cfg.Kernel = t.Base
	return cfg
}

// SetupDiffs lists where base (A's config) and test (B's) differ from the thread's
// setup for case name, as "field ours (thread: theirs)".
func (t Table) SetupDiffs(name string, base, test engine.Config) []string {
	c, err := harness.ParseCase(name)
	if err != nil {
		return nil
	}
	want := t.Setup()
	c.Apply(&want)
	wantB := want
	wantB.Kernel = t.Test
	var out []string
	for _, p := range []struct {
		side      string
		got, want engine.Config
	}{{"A", base, want}, {"B", test, wantB}} {
		got := p.got
		c.Apply(&got)
		for _, d := range configDiffs(got, p.want) {
			if p.side == "B" && !strings.HasPrefix(d, "kernel") && !strings.HasPrefix(d, "variants") {
				continue // B shares A's fields
			}
			out = append(out, p.side+" "+d)
		}
	}
	return out
}

// configDiffs compares two configs field by field (their JSON), as
// "field ours (thread: theirs)".
func configDiffs(got, want engine.Config) []string {
	flat := func(c engine.Config) map[string]string {
		b, _ := json.Marshal(c)
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		out := map[string]string{}
		var walk func(prefix string, v any)
		walk = func(prefix string, v any) {
			if mm, ok := v.(map[string]any); ok {
				for k, x := range mm {
					walk(strings.TrimPrefix(prefix+"."+k, "."), x)
				}
				return
			}
			b, _ := json.Marshal(v)
			out[prefix] = string(b)
		}
		walk("", m)
		return out
	}
	g, w := flat(got), flat(want)
	keys := map[string]bool{}
	for k := range g {
		keys[k] = true
	}
	for k := range w {
		keys[k] = true
	}
	var out []string
	for _, k := range sortedSet(keys) {
		if g[k] != w[k] {
			out = append(out, fmt.Sprintf("%s %s (thread: %s)", k, human(k, g[k]), human(k, w[k])))
		}
	}
	return out
}

// human shows a config JSON value: durations as Go durations, strings unquoted.
func human(key, v string) string {
	if v == "" || v == "null" {
		return "unset"
	}
	if s, err := strconv.Unquote(v); err == nil {
		return s
	}
	return v
}

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

// Text is the harness-format table (harness.TableRow): base MB/s, delta, test
// MB/s, case; then TOTAL over the rows where both sides finished.
func (m *Matrix) Text() string {
	var b strings.Builder
	b.WriteString(harness.TableHeader(m.Base, m.Test))
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
		b.WriteString(harness.TableRow(val(r[0]), d, val(r[1]), m.Cases[i]))
	}
	bt, tt, n := m.Total()
	if n > 0 {
		b.WriteString(harness.TableRow(fmt.Sprintf("%.2f", bt), m.totalDelta(), fmt.Sprintf("%.2f", tt), "TOTAL write_bw"))
	}
	return b.String()
}
