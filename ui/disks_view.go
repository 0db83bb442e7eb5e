package ui

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/wblab/wblab/engine/report"
)

// DisksView is one card per disk of a machine with several disks (or editors):
// what the disk wrote, its bdi's share of the dirty limit, the most dirty pages it
// held, when its copier exited, and its editors' and readers' latencies.
type DisksView struct {
	lab *Root
}

// DiskCard is one disk's card: a title and its lines (A, and B in A/B).
type DiskCard struct {
	ID, Title string
	Lines     []DiskLine
}

// DiskLine is one figure of a disk card; Help (a help panel key) and Title (its
// hover text) explain it.
type DiskLine struct {
	Label, A, B string
	Help, Title string
}

// DiskCards builds the cards of a and b (b may be nil): one per disk of a.
func DiskCards(a, b *report.Result) []DiskCard {
	if a == nil {
		return nil
	}
	var out []DiskCard
	for i, d := range a.Disks {
		var bd *report.DiskResult
		if b != nil && i < len(b.Disks) {
			bd = &b.Disks[i]
		}
		cd := DiskCard{ID: fmt.Sprintf("disk-card-%d", i+1), Title: fmt.Sprintf("disk %s: %s, %s", d.BDI, d.Device, d.Filesystem)}
		add := func(label string, f func(report.DiskResult) string) {
			l := DiskLine{Label: label, A: f(d)}
			if bd != nil {
				l.B = f(*bd)
			}
			cd.Lines = append(cd.Lines, l)
		}
		wa := ActiveWindow(a, i)
		var wb DiskWindow
		if bd != nil {
			wb = ActiveWindow(b, i)
		}
		l := DiskLine{Label: "written", A: writtenText(d, wa)}
		if bd != nil {
			l.B = writtenText(*bd, wb)
		}
		cd.Lines = append(cd.Lines, l)
		add("bdi_thresh at the end", func(d report.DiskResult) string { return fmt.Sprintf("%.1f MiB", d.BdiThreshMB) })
		add("most dirty+writeback", func(d report.DiskResult) string { return fmt.Sprintf("%.1f MiB", d.MaxDirtyMB) })
		if d.FullAtS > 0 || (bd != nil && bd.FullAtS > 0) {
			add("full (ENOSPC) at", func(d report.DiskResult) string {
				if d.FullAtS == 0 {
					return "–"
				}
				return fmt.Sprintf("%.1f s", d.FullAtS)
			})
		}
		if d.DDExitS > 0 || (bd != nil && bd.DDExitS > 0) {
			add("copier exited at", func(d report.DiskResult) string { return fmt.Sprintf("%.1f s", d.DDExitS) })
			l := DiskLine{Label: "last dirty page written by", A: onDiskText(d, wa)}
			if bd != nil {
				l.B = onDiskText(*bd, wb)
			}
			cd.Lines = append(cd.Lines, l)
		}
		for j := range d.Editors {
			var be *report.LatencyResult
			if bd != nil && j < len(bd.Editors) {
				be = &bd.Editors[j]
			}
			cd.Lines = append(cd.Lines, editorLines(j+1, d.Editors[j], be)...)
		}
		for j := range d.Readers {
			add(fmt.Sprintf("reader %d read p50/p99/max", j+1), func(d report.DiskResult) string {
				if j >= len(d.Readers) {
					return ""
				}
				return latencyText(d.Readers[j])
			})
		}
		out = append(out, cd)
	}
	return out
}

// DiskWindow is when a disk was busy with the run's writes: from the last series
// sample before its first dirty or writeback page to the first sample after its
// last one (within the sample interval). Whole: no sample caught a dirty page
// (an editor's small saves clean within the interval): the window is the run.
type DiskWindow struct {
	FromS, ToS float64
	Whole      bool
}

// ActiveWindow is disk i's DiskWindow from the Result's per-disk series
// ("diskN_dirty_MB", "diskN_writeback_MB"); the whole run without them.
func ActiveWindow(r *report.Result, i int) DiskWindow {
	whole := DiskWindow{FromS: 0, ToS: r.RuntimeS, Whole: true}
	s := r.Series
	if s == nil || len(s.Data) == 0 {
		return whole
	}
	col := func(name string) []float64 {
		for j, n := range s.Names {
			if n == name && j < len(s.Data) {
				return s.Data[j]
			}
		}
		return nil
	}
	t := col("time_s")
	d, w := col(report.DiskColumnName(i+1, "dirty_MB")), col(report.DiskColumnName(i+1, "writeback_MB"))
	if t == nil || d == nil || w == nil || len(d) != len(t) || len(w) != len(t) {
		return whole
	}
	first, last := -1, -1
	for j := range t {
		if d[j]+w[j] > 0 {
			if first < 0 {
				first = j
			}
			last = j
		}
	}
	if first < 0 {
		return whole
	}
	win := DiskWindow{FromS: t[max(first-1, 0)], ToS: r.RuntimeS}
	if last+1 < len(t) {
		win.ToS = t[last+1]
	}
	if win.ToS <= win.FromS {
		return whole
	}
	return win
}

// writtenText is a disk's write rate over its window, with the window.
func writtenText(d report.DiskResult, w DiskWindow) string {
	if w.Whole {
		return fmt.Sprintf("%.1f MiB, %.2f MiB/s over the run (%.0f s)", d.WrittenMB, d.WrittenMB/max(w.ToS, 1e-9), w.ToS)
	}
	return fmt.Sprintf("%.1f MiB, %.2f MiB/s over %.0f-%.0f s (while it had dirty pages)", d.WrittenMB, d.WrittenMB/(w.ToS-w.FromS), w.FromS, w.ToS)
}

// onDiskText is when the disk's last dirty page was written (the window's end),
// against the copier's exit: the copier exits once its data is in the page cache.
func onDiskText(d report.DiskResult, w DiskWindow) string {
	if w.Whole || d.DDExitS == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f s (%.0f s after the copier exited)", w.ToS, w.ToS-d.DDExitS)
}

// latencyText is "p50 / p99 / max ms (n), one in flight for x ms".
func latencyText(l report.LatencyResult) string {
	s := fmt.Sprintf("%.1f / %.1f / %.1f ms (%d)", l.P50Ms, l.P99Ms, l.MaxMs, l.N)
	if l.InFlightMs > 0 {
		s += fmt.Sprintf(", one in flight %.0f ms", l.InFlightMs)
	}
	return s
}

// Cards are the shown runs' disk cards.
func (c *DisksView) Cards() []DiskCard {
	r := c.lab.Results
	if c.lab.matrixOnly() {
		return nil
	}
	a := r.shownA()
	if a == nil || a.Res == nil {
		return nil
	}
	var b *report.Result
	if sb := r.shownB(); sb != nil {
		b = sb.Res
	}
	return withAccuracy(DiskCards(a.Res, b), accuracyFor(a.Run.Config))
}

// AB reports whether the cards show B too.
func (c *DisksView) AB() bool {
	sb := c.lab.Results.shownB()
	return sb != nil && sb.Res != nil
}

// editorLines are editor n's lines: its saves' (write+fsync) p50/p90/p99/max, then
// its saves' time per wait cause (report.WaitShare), the largest share of a's
// first, each explained by its report.WaitDocs entry; b is B's editor (or nil).
func editorLines(n int, a report.LatencyResult, b *report.LatencyResult) []DiskLine {
	l := DiskLine{Label: fmt.Sprintf("editor %d save (write+fsync) p50/p90/p99/max", n), A: saveText(a)}
	if b != nil {
		l.B = saveText(*b)
	}
	out := []DiskLine{l}
	ws := slices.Clone(a.TimeIn)
	slices.SortStableFunc(ws, func(x, y report.WaitShare) int { return cmp.Compare(y.TotalMs, x.TotalMs) })
	causes := make([]string, 0, len(ws))
	for _, s := range ws {
		causes = append(causes, s.Cause)
	}
	if b != nil {
		for _, s := range b.TimeIn {
			if !slices.Contains(causes, s.Cause) {
				causes = append(causes, s.Cause)
			}
		}
	}
	share := func(e report.LatencyResult, c string) string {
		for _, s := range e.TimeIn {
			if s.Cause == c {
				return fmt.Sprintf("%.0f %% (p99 %.1f ms)", s.SharePct, s.P99Ms)
			}
		}
		return "–"
	}
	for _, c := range causes {
		l := DiskLine{Label: fmt.Sprintf("editor %d time in %s", n, c), A: share(a, c), Help: "wait:" + c}
		if d, ok := waitDoc(c); ok {
			l.Title = d.Text()
		}
		if b != nil {
			l.B = share(*b, c)
		}
		out = append(out, l)
	}
	return out
}

// saveText is "p50 / p90 / p99 / max ms (n saves)", one in flight for x ms.
func saveText(l report.LatencyResult) string {
	p90 := "–" // a Result from before p90 was kept
	if l.P90Ms > 0 {
		p90 = fmt.Sprintf("%.1f", l.P90Ms)
	}
	s := fmt.Sprintf("%.1f / %s / %.1f / %.1f ms (%d)", l.P50Ms, p90, l.P99Ms, l.MaxMs, l.N)
	if l.InFlightMs > 0 {
		s += fmt.Sprintf(", one in flight %.0f ms", l.InFlightMs)
	}
	return s
}
