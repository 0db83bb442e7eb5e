package ui

import (
	"fmt"
	"strings"
	"testing"
)

func TestMatrixText(t *testing.T) {
	m := Matrix{Base: "a", Test: "b", Cases: []string{"c1", "c2"}, Cells: [][2]Cell{
		{{Done: true, BW: 50}, {Done: true, BW: 51.55}},
		{{Done: true, BW: 40}, {Err: "fs: no"}},
	}}
	txt := m.Text()
	for _, want := range []string{"+3.1%", "TOTAL", "error", "c2"} {
		if !strings.Contains(txt, want) {
			t.Errorf("missing %q in\n%s", want, txt)
		}
	}
}

func TestMatrixRowsPublished(t *testing.T) {
	t1 := Tables()[0]
	rows := MatrixRows(&Matrix{Base: "a", Test: "b", Cases: t1.Cases[:3], Cells: [][2]Cell{
		{{Done: true, BW: 50}, {Done: true, BW: 51}},
		{{Done: true, BW: 40}, {Err: "cancelled"}},
		{{}, {}},
	}}, t1.Name)
	if len(rows) != 4 {
		t.Fatalf("rows %v", rows)
	}
	want0 := fmt.Sprintf("%.2f %s %.2f", t1.BaseBW[0], Delta(t1.BaseBW[0], t1.TestBW[0]), t1.TestBW[0])
	if rows[0][5] != want0 || rows[1][2] != "cancelled" || rows[2][0] != "…" {
		t.Errorf("rows %q", rows)
	}
	// TOTAL: ours and the thread's over the same (finished) rows
	wantT := fmt.Sprintf("%.2f %s %.2f", t1.BaseBW[0], Delta(t1.BaseBW[0], t1.TestBW[0]), t1.TestBW[0])
	if rows[3][3] != "TOTAL" || rows[3][0] != "50.00" || rows[3][5] != wantT {
		t.Errorf("TOTAL row %q", rows[3])
	}
}

// TestMatrixTotalRowFromTheStart: the TOTAL row is in the table before any row has
// both sides ("…"), so the first finished row keeps the table's shape (it is written
// without a render) and its TOTAL is the finished rows'.
func TestMatrixTotalRowFromTheStart(t *testing.T) {
	v := &MatrixView{M: &Matrix{Base: "a", Test: "b", Cases: []string{"c1", "c2"}, Cells: [][2]Cell{{{}, {}}, {{}, {}}}}}
	rows := v.Rows()
	if len(rows) != 3 || strings.Join(rows[2][:4], " ") != "…  … TOTAL" {
		t.Fatalf("rows before any result %q", rows)
	}
	v.M.Cells[0] = [2]Cell{{Done: true, BW: 50}, {Done: true, BW: 55}}
	rows = v.Rows()
	if len(rows) != 3 || strings.Join(rows[2][:4], " ") != "50.00 +10.0% 55.00 TOTAL" {
		t.Fatalf("rows after the first %q", rows)
	}
	if len(MatrixRows(&Matrix{}, "")) != 0 {
		t.Error("an empty matrix has a TOTAL row")
	}
}

func TestMatrixErrors(t *testing.T) {
	got := MatrixErrors(&Matrix{Cases: []string{"c1", "c2"}, Cells: [][2]Cell{
		{{Err: "cancelled"}, {Err: "workload.dd: 100000 out of range [1, 10000]"}},
		{{Done: true}, {}},
	}})
	if len(got) != 1 || got[0] != "c1 (test): workload.dd: 100000 out of range [1, 10000]" {
		t.Errorf("errors %q", got)
	}
}

// TestThreadRepeatability: the thread's one-writer cells under T1-T6's kernels spread
// 2.1-4.3 % (tests/fidelity's disk-rate subtest, commit 4db3667).
func TestThreadRepeatability(t *testing.T) {
	r, ok := ThreadRepeatability()
	if !ok {
		t.Fatal("no one-writer case in the tables")
	}
	t.Logf("%+v: %s", r, r.Text())
	if r.Cases != 6 || r.Kernels != 7 || fmt.Sprintf("%.1f-%.1f", r.MinPct, r.MaxPct) != "2.1-4.3" {
		t.Errorf("repeatability %+v", r)
	}
}

// TestOpenInTheLink: the opened row rides on the engine's link as open=CASE and
// comes off before the engine reads a link.
func TestOpenInTheLink(t *testing.T) {
	v := &MatrixView{lab: &Root{Mode: "matrix"}, Opened: "thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-3.1.0-rc4 x"}
	h := v.withOpen("v=1&mode=matrix&table=T1")
	if h != "v=1&mode=matrix&table=T1&open=thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-3.1.0-rc4%20x" {
		t.Errorf("link %q", h)
	}
	for _, tc := range []struct{ in, rest, open string }{
		{"#" + h, "v=1&mode=matrix&table=T1", v.Opened},
		{"#v=1&mode=matrix", "v=1&mode=matrix", ""},
		{"v=1&open=a%2Fb&seeds=5", "v=1&seeds=5", "a/b"},
	} {
		rest, open := splitOpen(tc.in)
		if rest != tc.rest || open != tc.open {
			t.Errorf("splitOpen(%q) = %q, %q", tc.in, rest, open)
		}
	}
	v.lab.Mode = "ab"
	if h := v.withOpen("v=1"); h != "v=1" {
		t.Errorf("outside matrix mode %q", h)
	}
}
