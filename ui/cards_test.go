package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/report"
)

func cardByID(cs []Card, id string) (Card, bool) {
	for _, c := range cs {
		if c.ID == id {
			return c, true
		}
	}
	return Card{}, false
}

func TestCards(t *testing.T) {
	res := func(bw float64, tasks ...engine.TaskResult) *engine.Result {
		return &engine.Result{WriteBWMBps: bw, WrittenMB: 10000, Filesystem: "ext4", Tasks: tasks}
	}
	run := func(r *engine.Result) *RunState { return &RunState{Run: defaultRun(), Res: r, WallMs: 120} }
	for _, tc := range []struct {
		name   string
		a, b   *RunState
		id     string
		want   Card
		absent []string
	}{
		{name: "single write_bw", a: run(res(50)), id: "write_bw",
			want: Card{ID: "write_bw", Label: "write_bw", Unit: "MiB/s", A: "50.00"}, absent: []string{"dd_time", "read_p99"}},
		{name: "A/B delta", a: run(res(50)), b: run(res(51.55)), id: "write_bw",
			want: Card{ID: "write_bw", Label: "write_bw", Unit: "MiB/s", A: "50.00", B: "51.55", Delta: "+3.1%"}},
		{name: "no percent from a shown zero", a: run(res(0)), b: run(res(3)), id: "write_bw",
			want: Card{ID: "write_bw", Label: "write_bw", Unit: "MiB/s", A: "0.00", B: "3.00"}},
		{name: "dd time when a dd exits", a: run(res(50, engine.TaskResult{Done: true, RuntimeS: 12.34})), id: "dd_time",
			want: Card{ID: "dd_time", Label: "dd finished in", Unit: "s", A: "12.3"}},
		{name: "wall time of a timed run", a: run(res(50)), id: "wall",
			want: Card{ID: "wall", Label: "wall time", Unit: "ms", A: "120"}},
		{name: "no wall time for the build's precomputed run", a: &RunState{Run: defaultRun(), Res: res(50), WallMs: 3, Prerendered: true}, id: "wall",
			want: Card{ID: "wall", Label: "wall time", Unit: "(computed when the site was built)", A: "–"}},
		{name: "no delta for the wall time", a: run(res(50)), b: &RunState{Run: defaultRun(), Res: res(50), WallMs: 254}, id: "wall",
			want: Card{ID: "wall", Label: "wall time", Unit: "ms", A: "120", B: "254"}},
		{name: "no delta for the ages", a: run(&engine.Result{DirtyAge: engine.DirtyAge{MaxS: 1.8, MaxDataS: 2}}), b: run(&engine.Result{DirtyAge: engine.DirtyAge{MaxS: 29.6, MaxDataS: 30}}), id: "age",
			want: Card{ID: "age", Label: "oldest inode dirtied_when", Unit: "s ago", A: "1.8", B: "29.6"}},
		{name: "same filesystem shows no B name", a: run(res(50)), b: run(res(40)), id: "fs",
			want: Card{ID: "fs", Label: "filesystem", A: "ext4", Text: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := Cards(tc.a, tc.b)
			got, ok := cardByID(cs, tc.id)
			require.True(t, ok, "card %s missing", tc.id)
			assert.Equal(t, tc.want, got)
			for _, id := range tc.absent {
				_, ok := cardByID(cs, id)
				assert.False(t, ok, "card %s should be absent", id)
			}
		})
	}
}

func TestMatrixRowsTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    *Matrix
		want [][]string
	}{
		{name: "none", m: nil, want: nil},
		{name: "running and done", m: &Matrix{Cases: []string{"c1", "c2"}, Cells: [][2]Cell{
			{{Done: true, BW: 10}, {Done: true, BW: 11}}, {{}, {Err: "fs: bad"}}}},
			want: [][]string{{"10.00", "+10.0%", "11.00", "c1", "", "", "", "", "c1"}, {"…", "", "error", "c2", "fs: bad", "", "", "", "c2"},
				{"10.00", "+10.0%", "11.00", "TOTAL", "", "", "", "", "TOTAL of 1 of 2 rows"}}},
		{name: "all done", m: &Matrix{Cases: []string{"c1"}, Cells: [][2]Cell{{{Done: true, BW: 10}, {Done: true, BW: 11}}}},
			want: [][]string{{"10.00", "+10.0%", "11.00", "c1", "", "", "", "", "c1"}, {"10.00", "+10.0%", "11.00", "TOTAL", "", "", "", "", "TOTAL"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { assert.Equal(t, tc.want, MatrixRows(tc.m, "")) })
	}
}

// seedCell is a finished cell with these seeds' write_bw.
func seedCell(bws ...float64) Cell {
	c := Cell{}
	for i, bw := range bws {
		c.set(i, len(bws), bw)
	}
	return c
}

func TestMatrixSortAndDisagree(t *testing.T) {
	t1 := Tables()[0]
	// case 0: the thread +3.1 % (beyond its 2.1 % repeatability); case 1: +1.6 % (within it)
	for _, tc := range []struct {
		name       string
		row0, row1 [2]Cell
		want       [2]string
	}{
		{"one seed: no spread, nothing flagged", [2]Cell{seedCell(50), seedCell(49)}, [2]Cell{seedCell(50), seedCell(49)}, [2]string{"", ""}},
		{"one seed, -0.1 %", [2]Cell{seedCell(50), seedCell(49.95)}, [2]Cell{seedCell(50), seedCell(55)}, [2]string{"", ""}},
		{"5 seeds outside the noise; the thread's delta within its repeatability",
			[2]Cell{seedCell(50, 50.1, 49.9, 50, 50.2), seedCell(49, 49.1, 48.8, 49, 49.1)},
			[2]Cell{seedCell(50, 50.1, 49.9, 50, 50.2), seedCell(49, 49.1, 48.8, 49, 49.1)}, [2]string{"disagree", ""}},
		{"5 seeds inside the noise", [2]Cell{seedCell(50, 50, 50, 50, 50), seedCell(49.9, 50.2, 49.8, 50.1, 49.95)},
			[2]Cell{seedCell(50), seedCell(55)}, [2]string{"", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Matrix{Cases: t1.Cases[:2], Cells: [][2]Cell{tc.row0, tc.row1}}
			rows := SortedMatrixRows(m, t1.Name, "")
			assert.Equal(t, tc.want, [2]string{rows[0][6], rows[1][6]})
		})
	}
	// case 0: the thread +3.1 %, ours -2 %; case 1: thread +1.6 %, ours +10 %
	m := &Matrix{Cases: t1.Cases[:3], Cells: [][2]Cell{
		{{Done: true, BW: 50}, {Done: true, BW: 49}}, {{Done: true, BW: 50}, {Done: true, BW: 55}}, {{}, {}}}}
	assert.Equal(t, []string{t1.Cases[1], t1.Cases[0], t1.Cases[2], "TOTAL"}, []string{
		SortedMatrixRows(m, t1.Name, "delta")[0][3], SortedMatrixRows(m, t1.Name, "delta")[1][3], SortedMatrixRows(m, t1.Name, "delta")[2][3], SortedMatrixRows(m, t1.Name, "delta")[3][3]})
	byErr := SortedMatrixRows(m, t1.Name, "error")
	assert.Equal(t, t1.Cases[1], byErr[0][3]) // |10 - 1.6| > |-2 - 3.1|
	assert.Equal(t, "+8.4", byErr[0][7])
}

// TestCardsFull: a run whose disk filled has a "disk full at" card (the first disk
// to fill), explained like the others; a run without has none.
func TestCardsFull(t *testing.T) {
	r := &RunState{Res: &report.Result{Full: []report.DiskFull{{BDI: "8:16", FullAtS: 30}, {BDI: "8:0", FullAtS: 12.34}}}}
	var got *Card
	for _, c := range Cards(r, nil) {
		if c.ID == "full" {
			got = &c
		}
	}
	if assert.NotNil(t, got) {
		assert.Equal(t, "12.3", got.A)
		_, ok := CardDoc("full")
		assert.True(t, ok, "the card's explanation")
	}
	for _, c := range Cards(&RunState{Res: &report.Result{Tasks: []report.TaskResult{{Comm: "dd", Done: true, Exit: report.ExitENOSPC, RuntimeS: 9}}}}, nil) {
		assert.NotEqual(t, "dd_time", c.ID, "a dd that got ENOSPC did not finish")
	}
	for _, c := range Cards(&RunState{Res: &report.Result{}}, nil) {
		assert.NotEqual(t, "full", c.ID)
	}
}
