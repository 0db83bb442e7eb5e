package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/ui/wire"
)

// SweepCell is one cell of the page's sweep: a dirty threshold and dd count on one
// filesystem, and what its runs gave: with several seeds, the means over the seeds
// once every seed arrived.
type SweepCell struct {
	FS       string
	ThreshMB int64
	DD       int
	Done     bool
	Err      string
	WriteBW  float64   // the harness's write_bw, MB/s
	SeeksS   float64   // the disk head's moves per second (rotating disks)
	SeekPct  float64   // share of the run's time seeking and waiting for rotation
	AvgRqKiB float64   // iostat avgrq-sz in KiB
	BWs      []float64 // write_bw by seed index

	got int
	sum [3]float64 // SeeksS, SeekPct, AvgRqKiB over the seeds that arrived
}

// Sweep is a planned sweep and its cells, in the plan's order.
type Sweep struct {
	Plan   wire.SweepPlanned
	Cells  []SweepCell
	cellOf []int // run index -> cell index
}

// NewSweep makes the cells of a plan: one per filesystem, threshold and dd count,
// each with its seeds' runs (a cell's runs follow each other, seed index 0 first).
func NewSweep(p wire.SweepPlanned) *Sweep {
	s := &Sweep{Plan: p}
	for _, r := range p.Runs {
		if r.Seed == 0 {
			s.Cells = append(s.Cells, SweepCell{FS: r.FS, ThreshMB: r.ThreshMB, DD: r.DD, BWs: make([]float64, max(p.Seeds, 1))})
		}
		s.cellOf = append(s.cellOf, len(s.Cells)-1)
	}
	return s
}

// CellOf is the cell of run i (an index of Plan.Runs).
func (s *Sweep) CellOf(i int) *SweepCell { return &s.Cells[s.cellOf[i]] }

// set records run i's Result in its cell; the cell is done when every seed arrived.
func (s *Sweep) set(i int, r *report.Result) {
	c := s.CellOf(i)
	c.BWs[s.Plan.Runs[i].Seed] = r.WriteBWMBps
	c.sum[2] += r.Iostat.AvgRqSz / 2
	if m := r.Media; m != nil {
		c.sum[0] += m.SeeksS
		c.sum[1] += m.SeekPct + m.RotatePct
	}
	c.got++
	if c.got == len(c.BWs) {
		n := float64(c.got)
		c.Done, c.WriteBW = true, stats.Of(c.BWs).Mean
		c.SeeksS, c.SeekPct, c.AvgRqKiB = c.sum[0]/n, c.sum[1]/n, c.sum[2]/n
	}
}

// Finished is the number of cells done or failed.
func (s *Sweep) Finished() int {
	n := 0
	for _, c := range s.Cells {
		if c.Done || c.Err != "" {
			n++
		}
	}
	return n
}

// RunsDone is the number of runs that ended: the seeds that arrived, and every seed
// of a failed or cancelled cell.
func (s *Sweep) RunsDone() int {
	n := 0
	for _, c := range s.Cells {
		if c.Err != "" {
			n += len(c.BWs)
		} else {
			n += c.got
		}
	}
	return n
}

// Cell returns the cell of fs, threshold and dd count, or nil.
func (s *Sweep) Cell(fs string, th int64, dd int) *SweepCell {
	for i := range s.Cells {
		if c := &s.Cells[i]; c.FS == fs && c.ThreshMB == th && c.DD == dd {
			return c
		}
	}
	return nil
}

// ThreshLabel is a threshold as the harness names it (8M, 100M, 1G).
func ThreshLabel(mb int64) string {
	if mb%1024 == 0 {
		return fmt.Sprintf("%dG", mb/1024)
	}
	return fmt.Sprintf("%dM", mb)
}

// SweepChart draws one filesystem's write_bw against the dirty threshold (log scale)
// as SVG, one line per dd count; cells not done yet are left out.
func SweepChart(s *Sweep, fs string) string {
	const w, h, l, r, t, bm = 560, 260, 48, 86, 14, 40
	ths, dds := s.Plan.ThresholdsMB, s.Plan.Writers
	if len(ths) == 0 {
		return ""
	}
	lo, hi := math.Log2(float64(ths[0])), math.Log2(float64(ths[len(ths)-1]))
	x := func(th int64) float64 {
		if hi == lo {
			return l + float64(w-l-r)/2
		}
		return l + (math.Log2(float64(th))-lo)/(hi-lo)*float64(w-l-r)
	}
	ymax := 10.0
	for _, c := range s.Cells {
		if c.FS == fs && c.Done {
			ymax = max(ymax, math.Ceil(c.WriteBW/10)*10)
		}
	}
	y := func(v float64) float64 { return t + (1-v/ymax)*float64(h-t-bm) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="sweep-chart" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="%s: write_bw against the dirty threshold for %s dd">`,
		w, h, fs, joinInts(dds))
	for v := 0.0; v <= ymax; v += ymax / 5 {
		fmt.Fprintf(&b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%.0f</text>`,
			l, w-r, y(v), y(v), l-4, y(v)+4, v)
	}
	for _, th := range ths {
		fmt.Fprintf(&b, `<text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`, x(th), h-bm+16, ThreshLabel(th))
	}
	fmt.Fprintf(&b, `<text class="axis" x="%d" y="%d" text-anchor="middle">dirty threshold (dirty_bytes, log scale)</text>`, l+(w-l-r)/2, h-6)
	fmt.Fprintf(&b, `<text class="axis" x="12" y="%d" text-anchor="middle" transform="rotate(-90 12 %d)">write_bw MB/s</text>`, t+(h-t-bm)/2, t+(h-t-bm)/2)
	for i, dd := range dds {
		col := palette[i%len(palette)]
		var pts []string
		for _, th := range ths {
			if c := s.Cell(fs, th, dd); c != nil && c.Done {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(th), y(c.WriteBW)))
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s %d dd at %s: %.2f MB/s</title></circle>`,
					x(th), y(c.WriteBW), col, fs, dd, ThreshLabel(th), c.WriteBW)
			}
		}
		if len(pts) > 1 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>`, col, strings.Join(pts, " "))
		}
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2"/><text class="legend" x="%d" y="%d">%d dd</text>`,
			w-r+8, w-r+28, t+8+18*i, t+8+18*i, col, w-r+32, t+12+18*i, dd)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, ", ")
}

// SweepRows is one filesystem's table: a row per threshold, a cell per dd count
// with write_bw and, on a rotating disk, the seeks per second.
func SweepRows(s *Sweep, fs string) [][]string {
	var rows [][]string
	for _, th := range s.Plan.ThresholdsMB {
		row := []string{ThreshLabel(th)}
		for _, dd := range s.Plan.Writers {
			c := s.Cell(fs, th, dd)
			switch {
			case c == nil:
				row = append(row, "")
			case c.Err == "cancelled":
				row = append(row, "cancelled")
			case c.Err != "":
				row = append(row, "error")
			case !c.Done:
				row = append(row, "…")
			case c.SeeksS > 0:
				row = append(row, fmt.Sprintf("%.1f%s (%.0f seeks/s, %.0f KiB)", c.WriteBW, ciText(c.BWs), c.SeeksS, c.AvgRqKiB))
			default:
				row = append(row, fmt.Sprintf("%.1f%s (%.0f KiB)", c.WriteBW, ciText(c.BWs), c.AvgRqKiB))
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// ciText is " ±x.x", the 95 % CI of a cell's seeds, or "" with one seed.
func ciText(bws []float64) string {
	if len(bws) < 2 {
		return ""
	}
	return fmt.Sprintf(" ±%.1f", stats.Of(bws).CI95)
}

// SweepText says what one filesystem's finished runs show: the range of the
// one-writer line, and how far the most writers fall below one writer at the
// largest and smallest threshold, with the disk's seeks. It is empty until those
// cells are done.
func SweepText(s *Sweep, fs string) string {
	ths, dds := s.Plan.ThresholdsMB, s.Plan.Writers
	if len(ths) < 2 || len(dds) < 2 {
		return ""
	}
	lo, hi, one, many := ths[0], ths[len(ths)-1], dds[0], dds[len(dds)-1]
	a, b := s.Cell(fs, hi, one), s.Cell(fs, lo, one)
	c, d := s.Cell(fs, hi, many), s.Cell(fs, lo, many)
	for _, x := range []*SweepCell{a, b, c, d} {
		if x == nil || !x.Done {
			return ""
		}
	}
	minOne, maxOne := math.Inf(1), math.Inf(-1)
	for _, th := range ths {
		if x := s.Cell(fs, th, one); x != nil && x.Done {
			minOne, maxOne = min(minOne, x.WriteBW), max(maxOne, x.WriteBW)
		}
	}
	txt := fmt.Sprintf("%s: with %d dd, write_bw stays between %.1f and %.1f MB/s at every threshold. With %d dd it is %.1f MB/s at %s (%.0f %% of %d dd) and %.1f MB/s at %s (%.0f %%)",
		fs, one, minOne, maxOne, many, c.WriteBW, ThreshLabel(hi), 100*c.WriteBW/a.WriteBW, one, d.WriteBW, ThreshLabel(lo), 100*d.WriteBW/b.WriteBW)
	if c.SeeksS > 0 || d.SeeksS > 0 {
		txt += fmt.Sprintf("; the disk seeks %.0f and %.0f times a second there, %.0f %% and %.0f %% of its time moving the head and waiting for the sector",
			c.SeeksS, d.SeeksS, c.SeekPct, d.SeekPct)
	}
	return txt + "."
}

// SweepWhy explains the shape the sweep's curves should have (the mechanisms, not
// the results).
var SweepWhy = []string{
	"Each dd writes its own file. The dirty threshold bounds the dirty pages of all of them together, so each file holds about threshold ÷ dd of them.",
	"The flusher writes back one inode at a time: writeback_single_inode writes up to one chunk of that file's dirty pages (writeback_chunk_size) and moves on to the next inode. With many writers and a small threshold, each visit finds only a few MB, so the disk gets short runs from one file after another.",
	"Where those runs sit on the disk is the filesystem's allocator's choice: ext3 and ext4 give each file reservation windows or preallocations in turn, xfs 1 GB of speculative preallocation per file (allocsize=1g), so going from one file to the next moves the head. On a rotating disk every such move costs a seek and, on average, half a revolution: the fewer MB per visit, the larger the share of the disk's time lost.",
	"btrfs copies on write: every extent it writes back is allocated where the previous one ended, whichever file it belongs to, so its runs stay sequential and its line stays flat. One dd writes one file sequentially at every threshold.",
}
