package ui

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/ui/wire"
)

// testSweep is a two-threshold, two-writer sweep of ext4 whose cells are set
// from results as the worker's summaries would give them.
func testSweep(t *testing.T, done map[[2]int64]float64) *Sweep {
	t.Helper()
	p := wire.SweepPlanned{Filesystems: []string{"ext4"}, ThresholdsMB: []int64{8, 1024}, Writers: []int{1, 100}}
	for _, th := range p.ThresholdsMB {
		for _, dd := range p.Writers {
			p.Runs = append(p.Runs, wire.SweepRun{FS: "ext4", ThreshMB: th, DD: dd})
		}
	}
	s := NewSweep(p)
	for i, c := range s.Cells {
		if bw, ok := done[[2]int64{c.ThreshMB, int64(c.DD)}]; ok {
			s.set(i, &report.Result{WriteBWMBps: bw, Iostat: report.IostatSummary{AvgRqSz: 1000},
				Media: &report.MediaSummary{SeeksS: bw / 2, SeekPct: 3, RotatePct: 4}})
		}
	}
	return s
}

func TestSweepViewParts(t *testing.T) {
	all := map[[2]int64]float64{{8, 1}: 57, {8, 100}: 20, {1024, 1}: 57.5, {1024, 100}: 52}
	for _, tc := range []struct {
		name     string
		done     map[[2]int64]float64
		lines    int // polylines drawn (a line needs two points)
		text     []string
		rowsDone int
		finished int
	}{
		{"nothing done", nil, 0, nil, 0, 0},
		{"one writer done", map[[2]int64]float64{{8, 1}: 57, {1024, 1}: 57.5}, 1, nil, 2, 2},
		{"all done", all, 2, []string{"ext4: with 1 dd, write_bw stays between 57.0 and 57.5 MB/s",
			"With 100 dd it is 52.0 MB/s at 1G (90 % of 1 dd) and 20.0 MB/s at 8M (35 %)",
			"the disk seeks 26 and 10 times a second there, 7 % and 7 %"}, 4, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSweep(t, tc.done)
			assert.Equal(t, tc.finished, s.Finished())
			svg := SweepChart(s, "ext4")
			assert.True(t, strings.HasPrefix(svg, "<svg") && strings.HasSuffix(svg, "</svg>"))
			assert.Equal(t, tc.lines, strings.Count(svg, "<polyline"))
			assert.Equal(t, len(tc.done), strings.Count(svg, "<circle"))
			for _, lbl := range []string{">8M<", ">1G<", "1 dd", "100 dd"} {
				assert.Contains(t, svg, lbl)
			}
			txt := SweepText(s, "ext4")
			if tc.text == nil {
				assert.Empty(t, txt)
			}
			for _, w := range tc.text {
				assert.Contains(t, txt, w)
			}
			rows := SweepRows(s, "ext4")
			require.Len(t, rows, 2)
			n := 0
			for _, r := range rows {
				require.Len(t, r, 3)
				for _, x := range r[1:] {
					if strings.Contains(x, "seeks/s") {
						n++
					}
				}
			}
			assert.Equal(t, tc.rowsDone, n)
		})
	}
}

// TestSweepRunsOnTheEnginesPlan: starting a sweep asks the engine for its runs and
// starts one summary run per cell; results fill the cells, errors mark them.
func TestSweepRunsOnTheEnginesPlan(t *testing.T) {
	var p wire.SweepPlanned
	require.NoError(t, Ask("sweep", wire.SweepPlan{State: State{Form: Cat.Default.Clone(), Mode: "sweep"}, Filesystems: []string{"xfs"}}, &p))
	require.Nil(t, p.Err)
	s := NewSweep(p)
	assert.Len(t, s.Cells, 24)
	assert.Equal(t, []string{"xfs"}, s.Plan.Filesystems)
	s.set(0, &report.Result{WriteBWMBps: 50})
	s.Cells[1].Err = "cancelled"
	assert.Equal(t, 2, s.Finished())
	rows := SweepRows(s, "xfs")
	assert.Equal(t, "50.0 (0 KiB)", rows[0][1])
	assert.Equal(t, "cancelled", rows[0][2])
	assert.Equal(t, "…", rows[0][3])
}

func TestExportSweep(t *testing.T) {
	s := testSweep(t, map[[2]int64]float64{{8, 1}: 57, {1024, 100}: 52})
	s.Cells[1].Err = "cancelled"
	for _, tc := range []struct {
		kind, name string
		check      func(t *testing.T, text string)
	}{
		{"csv", "wblab-sweep-ext4.csv", func(t *testing.T, text string) {
			lines := strings.Split(strings.TrimSpace(text), "\n")
			require.Len(t, lines, 1+len(s.Cells))
			assert.Equal(t, "fs,thresh_MB,dd,write_bw_MBps,write_bw_ci95,seeds,seeks_s,seek_pct,avgrq_KiB,kernel,device,runtime_s,error", lines[0])
			assert.Equal(t, "ext4,8,1,57.00,,1,28.50,7.00,500.00,,,0,", lines[1])
			assert.Equal(t, "ext4,8,100,,,1,,,,,,0,cancelled", lines[2])
			assert.Equal(t, "ext4,1024,1,,,1,,,,,,0,not finished", lines[3])
			assert.Equal(t, "ext4,1024,100,52.00,,1,26.00,7.00,500.00,,,0,", lines[4])
		}},
		{"json", "wblab-sweep-ext4.json", func(t *testing.T, text string) {
			var out struct {
				Writers []int
				Cells   []map[string]any
			}
			require.NoError(t, json.Unmarshal([]byte(text), &out))
			assert.Equal(t, []int{1, 100}, out.Writers)
			require.Len(t, out.Cells, 4)
			assert.InDelta(t, 57.0, out.Cells[0]["write_bw_MBps"], 1e-9)
			assert.Nil(t, out.Cells[1]["write_bw_MBps"])
			assert.Equal(t, "cancelled", out.Cells[1]["error"])
		}},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			f, err := ExportSweep(tc.kind, s)
			require.NoError(t, err)
			assert.Equal(t, tc.name, f.Name)
			tc.check(t, f.Text)
		})
	}
	_, err := ExportSweep("text", s)
	assert.ErrorContains(t, err, "csv or json")
	_, err = ExportSweep("csv", nil)
	assert.ErrorContains(t, err, "press Run")
}

// TestSweepSeeds: with the "5 seeds" switch every cell runs each seed; it is done,
// drawn and tabled (mean ± 95 % CI) once all its seeds arrived, and the status and
// progress count runs.
func TestSweepSeeds(t *testing.T) {
	var p wire.SweepPlanned
	require.NoError(t, Ask("sweep", wire.SweepPlan{State: State{Form: Cat.Default.Clone(), Mode: "sweep"}, Filesystems: []string{"ext4"}, Seeds: 3}, &p))
	require.Nil(t, p.Err)
	s := NewSweep(p)
	require.Len(t, s.Cells, len(p.ThresholdsMB)*len(p.Writers))
	require.Len(t, p.Runs, 3*len(s.Cells))
	bws := []float64{50, 52, 54}
	for i, tc := range []struct {
		done      bool
		runsDone  int
		wantCells int
	}{{false, 1, 0}, {false, 2, 0}, {true, 3, 1}} {
		s.set(i, &report.Result{WriteBWMBps: bws[i], Iostat: report.IostatSummary{AvgRqSz: 1000},
			Media: &report.MediaSummary{SeeksS: float64(10 * (i + 1))}})
		assert.Equal(t, tc.done, s.Cells[0].Done, "seed %d", i)
		assert.Equal(t, tc.runsDone, s.RunsDone())
		assert.Equal(t, tc.wantCells, s.Finished())
	}
	c := s.Cells[0]
	assert.InDelta(t, 52, c.WriteBW, 1e-9)
	assert.InDelta(t, 20, c.SeeksS, 1e-9)
	assert.InDelta(t, 500, c.AvgRqKiB, 1e-9)
	assert.Equal(t, fmt.Sprintf("52.0 ±%.1f (20 seeks/s, 500 KiB)", stats.Of(bws).CI95), SweepRows(s, "ext4")[0][1])
	assert.Contains(t, SweepChart(s, "ext4"), "52.00 MB/s")
	s.CellOf(3).Err = "cancelled" // the second cell's first run
	assert.Same(t, &s.Cells[1], s.CellOf(5))
	assert.Equal(t, 6, s.RunsDone(), "a cancelled cell's seeds all ended")
	v := &SweepView{S: s, lab: &Root{Mode: "sweep", Seeds: &SeedsView{N: 3}}}
	assert.Equal(t, fmt.Sprintf("sweep: 1 of %d cells finished, 1 cancelled (3 seeds each, 6 of %d runs; %s, %s, 600 s each)",
		len(s.Cells), len(p.Runs), p.Kernel, p.Device), v.Status())
	assert.InDelta(t, 6/float64(len(p.Runs)), v.progress(), 1e-9)
}
