package ui

import (
	"strings"
	"testing"
)

func TestTables(t *testing.T) {
	ts := Tables()
	if len(ts) != 6 || ts[0].Name != "T1" || len(ts[0].Cases) != 24 {
		t.Fatalf("tables: %d", len(ts))
	}
}

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
