package ui

import (
	"fmt"

	"github.com/wblab/wblab/engine/report"
)

// DetailView shows the per-task and per-inode views of the shown run (A, or B on
// request): each dd's bytes, pauses, pause histogram and rate over time, and each
// inode's writeback list over time (a swim-lane), dirty pages and pages per
// writeback_single_inode call; the top N one by one, the rest as a summary band.
type DetailView struct {
	ShowB bool

	lab *Root
}

func (c *DetailView) res() *report.Result {
	r := c.lab.Results
	if c.ShowB {
		if b := r.shownB(); b != nil {
			return b.Res
		}
	}
	if a := r.shownA(); a != nil && !c.lab.matrixOnly() {
		return a.Res
	}
	return nil
}

// Shown reports whether there is a finished run with detail.
func (c *DetailView) Shown() bool { r := c.res(); return r != nil && r.Detail != nil }

// HasB reports whether B can be shown.
func (c *DetailView) HasB() bool { return c.lab.Results.shownB() != nil }

// Toggle switches between A and B.
func (c *DetailView) Toggle() { c.ShowB = !c.ShowB }

// Which names the shown run.
func (c *DetailView) Which() string {
	if c.ShowB && c.HasB() {
		return "B"
	}
	if c.HasB() {
		return "A"
	}
	return ""
}

// Tasks and Inodes are the rows.
func (c *DetailView) Tasks() []TaskRow   { return TaskRows(c.res()) }
func (c *DetailView) Inodes() []InodeRow { return InodeRows(c.res()) }

// Band is the all-inode list band; BandTitle says how many it counts.
func (c *DetailView) Band() string { return ListBand(c.res().Detail.Inodes, 40) }
func (c *DetailView) BandTitle() string {
	d := c.res().Detail
	s := fmt.Sprintf("all %d inodes: how many are on each list", len(d.Inodes))
	if d.MoreInodes > 0 {
		s += fmt.Sprintf(" (%d more not recorded)", d.MoreInodes)
	}
	return s
}

// Span is the time axis text.
func (c *DetailView) Span() string {
	t := c.res().Detail.TimeS
	if len(t) == 0 {
		return ""
	}
	return fmt.Sprintf("0 … %.0f s", t[len(t)-1])
}

// Legend is the swim-lane colours.
func (c *DetailView) Legend() [][2]string {
	var out [][2]string
	for _, l := range listColors {
		out = append(out, [2]string{l.Color, l.Name})
	}
	return out
}

// Buckets are the pause histogram's buckets, for the header.
func (c *DetailView) Buckets() string {
	b := PauseBuckets()
	return b[0] + " … " + b[len(b)-1] + " ms"
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f0(v float64) string { return fmt.Sprintf("%.0f", v) }
