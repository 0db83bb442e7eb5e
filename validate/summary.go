package validate

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// SummaryHeader names the columns of a summary row (units in the names; MB = 2^20
// bytes; the window is in seconds since the writers started).
var SummaryHeader = []string{"case", "kernel", "qemu", "accel", "smp", "host", "fs", "work", "dd", "bs",
	"dirty_bytes", "dirty_ratio", "dirty_background_bytes", "dirty_background_ratio", "mem_total_kB", "run_s",
	"wbt_lat_usec", "sched", "window_from_s", "window_to_s", "throttle_MBps", "disk_MBps", "disk_util_pct",
	"write_bw_MBps", "dirtied_MBps", "dirty_MB", "dirty_writeback_MB", "thresh_MB", "bg_thresh_MB",
	"bdi_thresh_MB", "bdi_write_bw_MBps", "samples",
	"fsyncs", "fsync_mean_s", "fsync_max_s", "copier_exit_s", "sync_s", "stick_throttle_MBps"}

// SummaryRow is a log's measured summary, in SummaryHeader's order.
func SummaryRow(l *Log) ([]string, error) {
	c, err := CaseOf(l)
	if err != nil {
		return nil, err
	}
	w := SteadyWindow(c.RunS)
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
	return row, nil
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

// WriteSeriesCSV writes a log's series (SeriesNames columns).
func WriteSeriesCSV(w io.Writer, l *Log) error {
	s := l.Series()
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
