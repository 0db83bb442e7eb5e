package validate

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteReport prints each comparison (measured, wblab, error) and the mean absolute
// errors over the cases with a model. Units: MB = 2^20 bytes; windows in seconds
// since the writers started.
func WriteReport(w io.Writer, cs []Comparison) error {
	var b strings.Builder
	b.WriteString("wblab validate: Linux " + presetOf(cs) + " preset vs a real kernel measured in QEMU (validate/README.md)\n")
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
		if c.Mix != nil {
			fmt.Fprintf(&b, "   measured (wblab: %d seeds, in the scenario table below):\n", len(c.MixModels))
			for _, f := range ComparedFigures {
				fmt.Fprintf(&b, "   %-24s %10.2f\n", f.Name+" ["+f.Unit+"]", f.Get(c.Measured))
			}
			continue
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
	if n == 0 {
		_, err := io.WriteString(w, b.String())
		return err
	}
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

// writeScenarios prints the harness 2 reference table (MixReference) and the
// accuracy table (AccuracyOf) computed from it.
func writeScenarios(b *strings.Builder, cs []Comparison) {
	figs := MixReference(cs)
	if len(figs) == 0 {
		return
	}
	held := HeldRuns(cs)
	runs := map[string]int{}
	for _, c := range cs {
		if c.Mix != nil {
			runs[ScenarioOf(c.Case.Name)]++
		}
	}
	kern := presetOf(cs)
	fmt.Fprintf(b, "\n== scenarios (harness 2): real %s = mean [min, max] over the held runs; wblab = mean [min, max]\n", kern)
	fmt.Fprintf(b, "   over those runs x seeds 1-%d; error = (wblab - real) / real; target: within ±%d %% (editor p50, p99:\n", MixSeeds, TargetRatePct)
	fmt.Fprintf(b, "   ±%d %%) or inside the real range; \"-\": no target. Windows: %s of the run, controls a third to the kill\n", TargetEditorPct, "a third to the end")
	sc := ""
	for _, f := range figs {
		if f.Scenario != sc {
			sc = f.Scenario
			verdict := fmt.Sprintf("%d of %d runs held", held[sc], runs[sc])
			if !f.Held {
				verdict += ": NOT HELD, figures over all runs, not counted in the accuracy"
			}
			fmt.Fprintf(b, "   %s (%s)\n", sc, verdict)
			fmt.Fprintf(b, "     %-30s %26s %26s %8s %7s\n", "figure", "real "+kern, "wblab", "error", "target")
		}
		tgt := "-"
		if f.TargetPct > 0 {
			tgt = "no"
			if f.Within {
				tgt = "yes"
			}
		}
		fmt.Fprintf(b, "     %-30s %26s %26s %+7.1f%% %7s\n", f.Name+" ["+f.Unit+"]", spreadText(f.Real), spreadText(f.Model), f.ErrPct, tgt)
	}
	acc := AccuracyOf(figs, held)
	fmt.Fprintf(b, "\n== accuracy of the %s preset per kind of figure, over the held harness 2 scenarios\n", kern)
	fmt.Fprintf(b, "   %-52s %5s %5s %9s %9s %9s\n", "kind", "figs", "runs", "mean|err|", "max|err|", "in target")
	for _, r := range acc {
		in := "-"
		if r.TargetPct > 0 {
			in = fmt.Sprintf("%d/%d", r.WithinTarget, r.Figures)
		}
		fmt.Fprintf(b, "   %-52s %5d %5d %8.1f%% %8.1f%% %9s\n", r.Kind, r.Figures, r.Runs, r.MeanErrPct, r.MaxErrPct, in)
	}
	if len(acc) == 0 {
		b.WriteString("   (no held harness 2 scenario)\n")
	}
}

// presetOf names the preset the logs were compared with (presetFor of their
// kernel): one, or both joined by "/" for a mixed set.
func presetOf(cs []Comparison) string {
	var names []string
	for _, c := range cs {
		if p := presetFor(c.Case.Kernel); !slices.Contains(names, p) {
			names = append(names, p)
		}
	}
	if len(names) == 0 {
		return Kernel
	}
	slices.Sort(names)
	return strings.Join(names, "/")
}

func spreadText(s Spread) string {
	return fmt.Sprintf("%.3g [%.3g, %.3g]", s.Mean, s.Min, s.Max)
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
