package main

import (
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/validate"
)

// accuracyNotes adds, under the summary's lines of figures the QEMU references
// measure (a disk's write rate and bdi_thresh, an editor's p50 and p99, a dd's
// rate), the accuracy of the 6.1 preset on that kind of figure
// (validate.Accuracy: the committed table, read once, nothing run): "(real 6.1
// within ±X % in N QEMU references)" or "no QEMU reference covers this". Other
// kernels' summaries are left as they are.
func accuracyNotes(summary string, cfg engine.Config, r *engine.Result, t validate.AccuracyTable) string {
	if cfg.Kernel != validate.Kernel {
		return summary
	}
	note := func(label, kind string) string {
		if n := t.NoteFor(cfg, kind); n != "" {
			return label + ": " + n
		}
		return ""
	}
	// the notes of a line, or one NoCoverNote when none is covered
	join := func(parts ...string) string {
		var keep []string
		covered := false
		for _, p := range parts {
			if p != "" {
				keep = append(keep, p)
				covered = covered || !strings.HasSuffix(p, validate.NoCoverNote)
			}
		}
		if !covered {
			return validate.NoCoverNote
		}
		return strings.Join(keep, "; ")
	}
	lines := strings.SplitAfter(summary, "\n")
	var b strings.Builder
	dd, disk := 0, -1
	for _, l := range lines {
		b.WriteString(l)
		switch {
		case strings.HasPrefix(l, "disk ") && !strings.Contains(l, " full at "):
			disk++
			fmt.Fprintf(&b, "          (%s)\n", join(note("write rate", validate.KindDiskRate), note("bdi_thresh", validate.KindBdiThreshold)))
		case strings.HasPrefix(l, "  editor on "):
			shared := disk >= 0 && disk < len(cfg.Disks) && cfg.Disks[disk].Workload.DD > 0
			p50, p99, _ := validate.EditorKinds(shared)
			fmt.Fprintf(&b, "            (%s)\n", join(note("p50", p50), note("p99", p99)))
		case strings.HasPrefix(l, "  dd-") && dd < len(r.Tasks):
			for dd < len(r.Tasks) && r.Tasks[dd].Comm != "dd" {
				dd++
			}
			if dd < len(r.Tasks) {
				if n := note("rate", validate.WriterKindOf(cfg, r.Tasks[dd].Disk)); n != "" {
					fmt.Fprintf(&b, "            (%s)\n", join(n))
				}
				dd++
			}
		}
	}
	return b.String()
}
