package ui

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// wuTables is /work/shared/reference/wu-2011-tables.csv (Wu 2011's compare tables),
// copied at build time into the package.
//
//go:embed data/wu-2011-tables.csv
var wuTables string

// Table is a built-in case list with the thread's published numbers.
type Table struct {
	Name, Base, Test string
	Cases            []string
	BaseBW, TestBW   []float64 // the thread's MB/s
}

// Tables are Wu 2011's tables T1..T6, in file order.
func Tables() []Table {
	rows, err := csv.NewReader(strings.NewReader(wuTables)).ReadAll()
	if err != nil || len(rows) < 2 {
		return nil
	}
	var out []Table
	idx := map[string]int{}
	for _, r := range rows[1:] {
		if len(r) < 7 {
			continue
		}
		i, ok := idx[r[0]]
		if !ok {
			i = len(out)
			idx[r[0]] = i
			out = append(out, Table{Name: r[0], Base: r[1], Test: r[2]})
		}
		b, _ := strconv.ParseFloat(r[4], 64)
		t, _ := strconv.ParseFloat(r[6], 64)
		out[i].Cases = append(out[i].Cases, r[3])
		out[i].BaseBW = append(out[i].BaseBW, b)
		out[i].TestBW = append(out[i].TestBW, t)
	}
	return out
}

// Cell is one run of a matrix: a case on the base (col 0) or test (col 1) kernel.
type Cell struct {
	Done bool
	BW   float64
	Err  string
}

// Matrix is the state of a comparison: rows are cases, columns base and test.
type Matrix struct {
	Base, Test string // kernel labels
	Cases      []string
	Cells      [][2]Cell
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

// Text is the harness-format table: base MB/s, delta, test MB/s, case; then TOTAL.
func (m *Matrix) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%24s  %24s\n", trunc(m.Base, 24), trunc(m.Test, 24))
	fmt.Fprintf(&b, "%s  %s\n", strings.Repeat("-", 24), strings.Repeat("-", 24))
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
			d = Delta(r[0].BW, r[1].BW)
		}
		fmt.Fprintf(&b, "%12s  %10s  %10s  %s\n", val(r[0]), d, val(r[1]), m.Cases[i])
	}
	bt, tt, n := m.Total()
	if n > 0 {
		fmt.Fprintf(&b, "%12.2f  %10s  %10.2f  TOTAL\n", bt, Delta(bt, tt), tt)
	}
	return b.String()
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
