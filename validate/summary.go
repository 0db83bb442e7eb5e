package validate

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// SummaryHeader names the columns of a summary row (units in the names; MB = 2^20
// bytes; the window is in seconds since the writers started).
var SummaryHeader = []string{"case", "kernel", "qemu", "accel", "smp", "host", "fs", "work", "dd", "bs",
	"dirty_bytes", "dirty_ratio", "dirty_background_bytes", "dirty_background_ratio", "mem_total_kB", "run_s",
	"wbt_lat_usec", "sched", "window_from_s", "window_to_s", "throttle_MBps", "disk_MBps", "disk_util_pct",
	"write_bw_MBps", "dirtied_MBps", "dirty_MB", "dirty_writeback_MB", "thresh_MB", "bg_thresh_MB",
	"bdi_thresh_MB", "bdi_write_bw_MBps", "samples",
	"fsyncs", "fsync_mean_s", "fsync_max_s", "copier_exit_s", "sync_s", "stick_throttle_MBps",
	// harness 2 (work "mix"); the host's load and the kernel package in every harness 2 row
	"harness", "host_load_start", "host_load_end", "kernel_package", "kernel_package_version", "held", "held_reason",
	"writers", "w1_MBps", "w2_MBps", "w1_alone_MBps", "w2_alone_MBps", "disk2_MBps", "disk2_util_pct",
	"bdi_dirty_MB", "disk2_bdi_dirty_MB", "disk2_bdi_thresh_MB", "dd_exit_max_s", "fsync_sync_max_s"}

// SummaryRow is a log's measured summary, in SummaryHeader's order.
func SummaryRow(l *Log) ([]string, error) {
	c, err := CaseOf(l)
	if err != nil {
		return nil, err
	}
	w := SteadyWindow(c.RunS)
	if c.Work == "mix" {
		return mixRow(l, c, w)
	}
	var st *Stick
	if c.Work == "stick" {
		s, err := StickOf(l)
		if err != nil {
			return nil, err
		}
		st, w = &s, Window{FromS: 0, ToS: s.CopierExitS}
	}
	f, err := FiguresOf(l.Series(), w, l.BdiThresh())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	rate, util, err := l.DiskRate(w)
	if err != nil {
		return nil, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	d := c.Disks[0]
	row := []string{c.Name, c.Kernel, c.QEMU, c.Accel, i(int64(c.SMP)), c.Host, c.FS, c.Work, i(int64(c.DD)), i(c.BS),
		i(c.DirtyBytes), i(int64(c.DirtyRatio)), i(c.DirtyBackgroundBytes), i(int64(c.DirtyBackgroundRatio)), i(c.MemTotalKB), g(c.RunS),
		i(d.WBTLatUs), d.Sched, g(w.FromS), g(w.ToS), g(float64(d.ThrottleBps) / (1 << 20)), g(rate / (1 << 20)), g(100 * util),
		g(f.WriteBWMBps), g(f.DirtiedMBps), g(f.DirtyMB), g(f.DirtyWritebackMB), g(f.ThreshMB), g(f.BgThreshMB),
		g(f.BdiThreshMB), g(f.BdiWriteBWMBps), i(int64(len(l.Samples)))}
	if st != nil {
		row = append(row, i(int64(st.FsyncCount)), g(st.FsyncMeanS), g(st.FsyncMaxS), g(st.CopierExitS), g(st.SyncS), g(st.StickNominalB/(1<<20)))
	} else {
		row = append(row, "", "", "", "", "", "")
	}
	return append(row, make([]string, len(SummaryHeader)-len(row))...), nil
}

// mixRow is a harness 2 run's summary row: the first disk's columns as a dd case's
// (disk_MBps: while busy, 0 when idle), the editor and the final sync in the stick
// columns, vdb in stick_throttle_MBps and disk2_*, and the held check. Writers past
// the second have no columns.
func mixRow(l *Log, c Case, w Window) ([]string, error) {
	m, err := MixOf(l)
	if err != nil {
		return nil, err
	}
	f, err := FiguresOf(l.Series(), w, l.BdiThresh())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", l.Name, err)
	}
	rate, util, err := l.DiskRate(w)
	if err != nil {
		rate, util = 0, 0 // idle through the window
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	d := c.Disks[0]
	row := []string{c.Name, c.Kernel, c.QEMU, c.Accel, i(int64(c.SMP)), c.Host, c.FS, c.Work, i(int64(c.DD)), i(c.BS),
		i(c.DirtyBytes), i(int64(c.DirtyRatio)), i(c.DirtyBackgroundBytes), i(int64(c.DirtyBackgroundRatio)), i(c.MemTotalKB), g(c.RunS),
		i(d.WBTLatUs), d.Sched, g(w.FromS), g(w.ToS), g(float64(d.ThrottleBps) / (1 << 20)), g(rate / (1 << 20)), g(100 * util),
		g(f.WriteBWMBps), g(f.DirtiedMBps), g(f.DirtyMB), g(f.DirtyWritebackMB), g(f.ThreshMB), g(f.BgThreshMB),
		g(f.BdiThreshMB), g(f.BdiWriteBWMBps), i(int64(len(l.Samples)))}
	opt := func(ok bool, v float64) string {
		if !ok {
			return ""
		}
		return g(v)
	}
	two := len(c.Disks) > 1
	var disk2 float64
	if two {
		disk2 = float64(c.Disks[1].ThrottleBps) / (1 << 20)
	}
	row = append(row, i(int64(m.Fsyncs)), opt(m.Editor != "", m.FsyncMeanS), opt(m.Editor != "", m.FsyncMaxS), "", g(m.SyncS), opt(two, disk2))
	var ws []string
	exit := 0.0
	for j, wr := range m.Writers {
		ws = append(ws, wr.Name+":"+wr.Disk+":"+sizeText(wr.BS))
		exit = math.Max(exit, m.ExitS[j])
	}
	wr := func(j int) string { return opt(j < len(m.WriterMBps), at(m.WriterMBps, j)) }
	alone := func(j int) string {
		for _, k := range m.Controls {
			if j < len(m.Writers) && k.Writer.Name == m.Writers[j].Name {
				return g(k.MBps)
			}
		}
		return ""
	}
	h := l.Header
	row = append(row, h["harness"], h["host_load_start"], h["host_load_end"], h["debian_kernel_package"], h["debian_kernel_version"],
		strconv.FormatBool(m.Held), m.Reason, strings.Join(ws, ";"), wr(0), wr(1), alone(0), alone(1),
		opt(two, at(m.DiskMBps, 1)), opt(two, 100*at(m.DiskUtil, 1)), g(m.BdiDirtyMB[0]), opt(two, at(m.BdiDirtyMB, 1)),
		opt(two, at(m.BdiThreshMB, 1)), g(exit), opt(m.Editor != "", m.FsyncSyncMax))
	return row, nil
}

func at(v []float64, i int) float64 {
	if i < len(v) {
		return v[i]
	}
	return 0
}

// WriteSummaryCSV writes the summary rows of logs, with the header.
func WriteSummaryCSV(w io.Writer, logs []*Log) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(SummaryHeader); err != nil {
		return err
	}
	for _, l := range logs {
		row, err := SummaryRow(l)
		if err != nil {
			return err
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ScenarioOf is the scenario a run belongs to: its name without the ".rK" of
// run-matrix.sh's repeats.
func ScenarioOf(name string) string {
	if i := strings.LastIndex(name, ".r"); i > 0 {
		if _, err := strconv.Atoi(name[i+2:]); err == nil {
			return name[:i]
		}
	}
	return name
}

// ScenarioFigures are the summary columns a scenario's reference averages over its runs.
var ScenarioFigures = []string{"write_bw_MBps", "dirtied_MBps", "dirty_MB", "dirty_writeback_MB", "thresh_MB", "bg_thresh_MB",
	"bdi_thresh_MB", "bdi_write_bw_MBps", "disk_MBps", "disk_util_pct", "disk2_MBps", "disk2_util_pct", "bdi_dirty_MB",
	"disk2_bdi_dirty_MB", "disk2_bdi_thresh_MB", "w1_MBps", "w2_MBps", "w1_alone_MBps", "w2_alone_MBps",
	"fsync_mean_s", "fsync_max_s", "fsync_sync_max_s", "sync_s", "dd_exit_max_s"}

// ScenarioHeader names the columns of scenarios.csv: per harness 2 scenario and
// figure, the runs, how many were held, and the runs' mean, min and max.
var ScenarioHeader = []string{"scenario", "figure", "runs", "held_runs", "mean", "min", "max"}

// ScenarioRow is one scenario's figure over its runs.
type ScenarioRow struct {
	Scenario, Figure string
	Runs, Held       int
	Mean, Min, Max   float64
}

// Scenarios groups the harness 2 runs of logs by scenario (ScenarioOf) and gives
// each figure of ScenarioFigures the runs' mean and range (runs without the figure,
// such as a one-disk case's disk2_MBps, are left out). Sorted by scenario, then in
// ScenarioFigures' order.
func Scenarios(logs []*Log) ([]ScenarioRow, error) {
	col := map[string]int{}
	for i, n := range SummaryHeader {
		col[n] = i
	}
	rows := map[string][][]string{}
	for _, l := range logs {
		if l.Header["work"] != "mix" {
			continue
		}
		r, err := SummaryRow(l)
		if err != nil {
			return nil, err
		}
		sc := ScenarioOf(l.Name)
		rows[sc] = append(rows[sc], r)
	}
	var names []string
	for n := range rows {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []ScenarioRow
	for _, sc := range names {
		held := 0
		for _, r := range rows[sc] {
			if r[col["held"]] == "true" {
				held++
			}
		}
		for _, fig := range ScenarioFigures {
			sr := ScenarioRow{Scenario: sc, Figure: fig, Held: held, Min: math.Inf(1), Max: math.Inf(-1)}
			for _, r := range rows[sc] {
				v, err := strconv.ParseFloat(r[col[fig]], 64)
				if err != nil {
					continue // empty: the run has no such figure
				}
				sr.Runs++
				sr.Mean += v
				sr.Min, sr.Max = math.Min(sr.Min, v), math.Max(sr.Max, v)
			}
			if sr.Runs == 0 {
				continue
			}
			sr.Mean /= float64(sr.Runs)
			out = append(out, sr)
		}
	}
	return out, nil
}

// WriteScenariosCSV writes Scenarios(logs) with ScenarioHeader.
func WriteScenariosCSV(w io.Writer, logs []*Log) error {
	rs, err := Scenarios(logs)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(ScenarioHeader); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, r := range rs {
		if err := cw.Write([]string{r.Scenario, r.Figure, strconv.Itoa(r.Runs), strconv.Itoa(r.Held), g(r.Mean), g(r.Min), g(r.Max)}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteSeriesCSV writes a log's series: SeriesNames' columns, and for a harness 2
// run MixSeriesNames' too.
func WriteSeriesCSV(w io.Writer, l *Log) error {
	s := l.Series()
	if l.Header["work"] == "mix" {
		s = l.MixSeries()
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(s.Names); err != nil {
		return err
	}
	rec := make([]string, len(s.Names))
	for i := range s.Data[0] {
		for j := range rec {
			rec[j] = strconv.FormatFloat(s.Data[j][i], 'f', -1, 64)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
