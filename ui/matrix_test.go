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
