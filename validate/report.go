package validate

import (
	"fmt"
	"io"
	"strings"
)

// WriteReport prints each comparison (measured, wblab, error) and the mean absolute
// errors over the cases with a model. Units: MB = 2^20 bytes; windows in seconds
// since the writers started.
func WriteReport(w io.Writer, cs []Comparison) error {
	var b strings.Builder
	b.WriteString("wblab validate: Linux " + Kernel + " preset vs a real kernel measured in QEMU (validate/README.md)\n")
	b.WriteString("units: MB = 2^20 bytes, MB/s = 2^20 bytes/s; figures are averages over each case's window\n")
	b.WriteString("(seconds since the writers started); error = wblab - measured, rel = |error| / measured\n")
	for _, c := range cs {
		k := c.Case
		fmt.Fprintf(&b, "\n== %s   (%s, %s, guest %d CPU, MemTotal %d MB, QEMU %s %s -smp %d)\n", k.Name, k.FS, workText(k),
			k.CPUs, k.MemTotalKB/1024, k.QEMU, k.Accel, k.SMP)
		fmt.Fprintf(&b, "   kernel %s; %s; wbt_lat_usec %d; window %s\n", k.Kernel, limitsText(k), k.Disks[0].WBTLatUs, c.Window)
		fmt.Fprintf(&b, "   disk %s: QEMU throttle %.2f MB/s, got %.2f MB/s while busy (%.0f%% of the window)\n", k.Disks[0].Name, c.NominalBps/(1<<20), c.DiskRateBps/(1<<20), 100*c.DiskUtil)
		switch {
		case c.Mix != nil:
			writeMix(&b, k, c.Mix)
		case c.Stick != nil:
		case !c.DiskBound:
			fmt.Fprintf(&b, "   not held: the disk was idle %.0f%% of the window (the writers did not keep it busy)\n", 100*(1-c.DiskUtil))
		case !c.Held:
			fmt.Fprintf(&b, "   not held: measured dirty+writeback stayed below the freerun point (%.0f MB): the writers did not reach the limits\n", (c.Measured.ThreshMB+c.Measured.BgThreshMB)/2)
		}
		if c.Stick != nil {
			s := c.Stick
			fmt.Fprintf(&b, "   stick %s: QEMU throttle %.2f MB/s; copier %d MB exited at %.1f s; final sync %.2f s\n", k.Disks[1].Name, s.StickNominalB/(1<<20), k.CopyMB, s.CopierExitS, s.SyncS)
			fmt.Fprintf(&b, "   editor: %d fsyncs of 4 KiB on %s, latency mean %.2f s, max %.2f s\n", s.FsyncCount, k.Disks[0].Name, s.FsyncMeanS, s.FsyncMaxS)
			if m := c.ModelStick; m != nil {
				fmt.Fprintf(&b, "   wblab (the stick at the %.2f MB/s it got while writing, vda at its throttle):\n", c.StickRateBps/(1<<20))
				fmt.Fprintf(&b, "   %-24s %10s %10s %10s %7s\n", "figure", "measured", "wblab", "error", "rel")
				for _, f := range stickFigures {
					ms, x := f.Get(*s), f.Get(*m)
					fmt.Fprintf(&b, "   %-24s %10.2f %10.2f %+10.2f %6.1f%%\n", f.Name+" ["+f.Unit+"]", ms, x, x-ms, RelErr(ms, x))
				}
				b.WriteString("   series figures over the window (the first disk's bdi; global counts):\n")
			}
		}
		if c.Model == nil {
			fmt.Fprintf(&b, "   wblab: no model yet (%s); measured only:\n", c.NoModel)
			fmt.Fprintf(&b, "   %-24s %10s\n", "figure", "measured")
			for _, f := range ComparedFigures {
				fmt.Fprintf(&b, "   %-24s %10.2f\n", f.Name+" ["+f.Unit+"]", f.Get(c.Measured))
			}
			continue
		}
		fmt.Fprintf(&b, "   %-24s %10s %10s %10s %7s\n", "figure", "measured", "wblab", "error", "rel")
		for _, f := range ComparedFigures {
			m, x := f.Get(c.Measured), f.Get(*c.Model)
			fmt.Fprintf(&b, "   %-24s %10.2f %10.2f %+10.2f %6.1f%%\n", f.Name+" ["+f.Unit+"]", m, x, x-m, RelErr(m, x))
		}
	}
	writeScenarios(&b, cs)
	abs, rel, n := MeanErrors(cs, false)
	habs, hrel, hn := MeanErrors(cs, true)
	fmt.Fprintf(&b, "\n== overall: mean absolute error over the %d cases with a model (%d without); held: the %d of them\n", n, len(cs)-n, hn)
	fmt.Fprintf(&b, "   whose disk was busy at least %.0f%% of the window with measured dirty+writeback at or above\n", 100*DiskBoundUtil)
	b.WriteString("   the freerun point (the dirty limits held the writers)\n")
	fmt.Fprintf(&b, "   %-24s %10s %10s %10s %10s\n", "figure", "MAE all", "rel all", "MAE held", "rel held")
	for i, f := range ComparedFigures {
		fmt.Fprintf(&b, "   %-24s %10.2f %9.1f%% %10.2f %9.1f%%\n", f.Name+" ["+f.Unit+"]", abs[i], rel[i], habs[i], hrel[i])
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeMix prints a harness 2 run: the held check with its reason, the host's load
// and kernel package, each writer, disk and control, the editor and the final sync.
func writeMix(b *strings.Builder, k Case, m *Mix) {
	fmt.Fprintf(b, "   %s\n", m.Reason)
	fmt.Fprintf(b, "   host load %s at start, %s at end; kernel package %s\n", k.LoadStart, k.LoadEnd, k.Package)
	for i, d := range k.Disks[1:] {
		fmt.Fprintf(b, "   disk %s: QEMU throttle %.2f MB/s, wrote %.2f MB/s (busy %.0f%%)\n", d.Name, float64(d.ThrottleBps)/(1<<20), m.DiskMBps[i+1], 100*m.DiskUtil[i+1])
	}
	for i, w := range m.Writers {
		exit := "ended before the kill"
		if m.ExitS[i] >= 0 {
			exit = fmt.Sprintf("exited %.2f s after the kill", m.ExitS[i])
		}
		fmt.Fprintf(b, "   writer %s on %s bs=%s: dirtied %.2f MB/s in the window, %s\n", w.Name, w.Disk, sizeText(w.BS), m.WriterMBps[i], exit)
	}
	for _, c := range m.Controls {
		fmt.Fprintf(b, "   control: %s alone %s: dirtied %.2f MB/s, disk wrote %.2f of %.2f MB/s; dirty+writeback %.0f MB (freerun %.0f), bdi %.0f of %.0f MB\n",
			c.Writer.Name, c.Window, c.MBps, c.DiskMBps, c.DiskThrottleMBps, c.DirtyWritebackMB, c.FreerunMB, c.BdiDirtyMB, c.BdiThreshMB)
	}
	if e := m.EditorAlone; e != nil {
		fmt.Fprintf(b, "   control: the editor alone: %d saves, latency mean %.3f s, max %.3f s\n", e.Saves, e.MeanS, e.MaxS)
	}
	if m.Editor != "" {
		fmt.Fprintf(b, "   editor: %d saves (4 KiB + fsync) before the kill, latency mean %.3f s, max %.3f s; max %.3f s during the final sync\n",
			m.Fsyncs, m.FsyncMeanS, m.FsyncMaxS, m.FsyncSyncMax)
	}
	fmt.Fprintf(b, "   final sync %.2f s\n", m.SyncS)
}

// writeScenarios prints each harness 2 scenario's figures over its runs: mean and
// range, and how many runs were held.
func writeScenarios(b *strings.Builder, cs []Comparison) {
	runs := map[string][]Comparison{}
	var order []string
	for _, c := range cs {
		if c.Mix == nil {
			continue
		}
		sc := ScenarioOf(c.Case.Name)
		if runs[sc] == nil {
			order = append(order, sc)
		}
		runs[sc] = append(runs[sc], c)
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintf(b, "\n== scenarios (harness 2): each figure's reference is its runs' mean [min, max]\n")
	for _, sc := range order {
		rs := runs[sc]
		held := 0
		for _, c := range rs {
			if c.Held {
				held++
			}
		}
		verdict := "HELD"
		if held < len(rs) {
			verdict = "NOT HELD"
		}
		fmt.Fprintf(b, "   %s: %d runs, %d held: %s\n", sc, len(rs), held, verdict)
		for _, f := range mixFigures {
			var v []float64
			for _, c := range rs {
				if x, ok := f.Get(c); ok {
					v = append(v, x)
				}
			}
			if len(v) == 0 {
				continue
			}
			mean, lo, hi := 0.0, v[0], v[0]
			for _, x := range v {
				mean += x
				lo, hi = min(lo, x), max(hi, x)
			}
			mean /= float64(len(v))
			fmt.Fprintf(b, "     %-28s %10.2f [%.2f, %.2f]\n", f.Name+" ["+f.Unit+"]", mean, lo, hi)
		}
	}
}

// mixFigures are the harness 2 figures writeScenarios prints.
var mixFigures = []struct {
	Name, Unit string
	Get        func(Comparison) (float64, bool)
}{
	{"write_bw (global)", "MB/s", func(c Comparison) (float64, bool) { return c.Measured.WriteBWMBps, true }},
	{"dirty+writeback", "MB", func(c Comparison) (float64, bool) { return c.Measured.DirtyWritebackMB, true }},
	{"thresh", "MB", func(c Comparison) (float64, bool) { return c.Measured.ThreshMB, true }},
	{"w1", "MB/s", func(c Comparison) (float64, bool) { return idx(c.Mix.WriterMBps, 0) }},
	{"w2", "MB/s", func(c Comparison) (float64, bool) { return idx(c.Mix.WriterMBps, 1) }},
	{"vda wrote", "MB/s", func(c Comparison) (float64, bool) { return idx(c.Mix.DiskMBps, 0) }},
	{"vdb wrote", "MB/s", func(c Comparison) (float64, bool) { return idx(c.Mix.DiskMBps, 1) }},
	{"editor latency mean", "s", func(c Comparison) (float64, bool) { return c.Mix.FsyncMeanS, c.Mix.Editor != "" }},
	{"editor latency max", "s", func(c Comparison) (float64, bool) { return c.Mix.FsyncMaxS, c.Mix.Editor != "" }},
	{"final sync", "s", func(c Comparison) (float64, bool) { return c.Mix.SyncS, true }},
}

func idx(v []float64, i int) (float64, bool) {
	if i < len(v) {
		return v[i], true
	}
	return 0, false
}

// stickFigures are the two-disk case's compared figures.
var stickFigures = []struct {
	Name, Unit string
	Get        func(Stick) float64
}{
	{"editor_fsync_mean", "s", func(s Stick) float64 { return s.FsyncMeanS }},
	{"editor_fsync_max", "s", func(s Stick) float64 { return s.FsyncMaxS }},
	{"copier_exit", "s", func(s Stick) float64 { return s.CopierExitS }},
	{"final_sync", "s", func(s Stick) float64 { return s.SyncS }},
}

func workText(k Case) string {
	if k.Work == "stick" {
		return fmt.Sprintf("copier %d MB to a slow disk + fsync editor", k.CopyMB)
	}
	return fmt.Sprintf("%d dd bs=%s, %g s", k.DD, sizeText(k.BS), k.RunS)
}

func limitsText(k Case) string {
	var d, bg string
	if k.DirtyBytes > 0 {
		d = "dirty_bytes " + sizeText(k.DirtyBytes)
	} else {
		d = fmt.Sprintf("dirty_ratio %d", k.DirtyRatio)
	}
	if k.DirtyBackgroundBytes > 0 {
		bg = "dirty_background_bytes " + sizeText(k.DirtyBackgroundBytes)
	} else {
		bg = fmt.Sprintf("dirty_background_ratio %d", k.DirtyBackgroundRatio)
	}
	return d + ", " + bg
}

func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dG", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%dk", n>>10)
	}
	return fmt.Sprint(n)
}
