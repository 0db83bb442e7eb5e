package ui

import (
	"fmt"

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

// DiskLine is one figure of a disk card.
type DiskLine struct {
	Label, A, B string
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
		add("written", func(d report.DiskResult) string { return fmt.Sprintf("%.1f MB/s", d.WriteMBps) })
		add("bdi_thresh at the end", func(d report.DiskResult) string { return fmt.Sprintf("%.1f MB", d.BdiThreshMB) })
		add("most dirty+writeback", func(d report.DiskResult) string { return fmt.Sprintf("%.1f MB", d.MaxDirtyMB) })
		if d.DDExitS > 0 || (bd != nil && bd.DDExitS > 0) {
			add("copier exited at", func(d report.DiskResult) string { return fmt.Sprintf("%.1f s", d.DDExitS) })
		}
		for j := range d.Editors {
			add(fmt.Sprintf("editor %d write+fsync p50/p99/max", j+1), func(d report.DiskResult) string {
				if j >= len(d.Editors) {
					return ""
				}
				return latencyText(d.Editors[j])
			})
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
	return DiskCards(a.Res, b)
}

// AB reports whether the cards show B too.
func (c *DisksView) AB() bool {
	sb := c.lab.Results.shownB()
	return sb != nil && sb.Res != nil
}
