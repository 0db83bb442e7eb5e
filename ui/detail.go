package ui

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/wblab/wblab/engine/report"
)

// TopN is how many tasks and inodes the detail views show one by one; the rest are a
// summary band (100 dd stay readable).
const TopN = 12

// listColors colour the writeback lists in the swim-lanes (report.InodeDetail.Lists
// letters) and the band.
var listColors = []struct {
	Letter      byte
	Name, Color string
}{
	{'d', "b_dirty", "#1f77b4"}, {'i', "b_io", "#ff7f0e"}, {'m', "b_more_io", "#d62728"},
	{'w', "b_more_io_wait", "#9467bd"}, {'-', "not on a list (clean, or being written)", "#c7ccd1"},
}

func listColor(b byte) string {
	for _, c := range listColors {
		if c.Letter == b {
			return c.Color
		}
	}
	return "#c7ccd1"
}

// SwimLane draws an inode's list over time as an SVG strip of w × h: one rectangle
// per run of rows on the same list, and a tick above rows in which it also visited
// b_io, b_more_io or b_more_io_wait (stays shorter than a row).
func SwimLane(lists, visited string, w, h int) string {
	n := len(lists)
	if n == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="lane" viewBox="0 0 %d %d" width="100%%" height="%d" preserveAspectRatio="none" aria-hidden="true">`, n, h, h)
	for i := 0; i < n; {
		j := i
		for j < n && lists[j] == lists[i] {
			j++
		}
		fmt.Fprintf(&b, `<rect x="%d" y="3" width="%d" height="%d" fill="%s"/>`, i, j-i, h-3, listColor(lists[i]))
		i = j
	}
	for i := 0; i < len(visited) && i < n; i++ {
		v := hexVal(visited[i])
		cur := map[byte]uint8{'d': Cat.OnBDirty, 'i': Cat.OnBIO, 'm': Cat.OnBMoreIO, 'w': Cat.OnBMoreIOWait}[lists[i]]
		if other := v &^ cur &^ Cat.OnBDirty; other != 0 {
			c := "#ff7f0e"
			if other&Cat.OnBMoreIO != 0 {
				c = "#d62728"
			} else if other&Cat.OnBMoreIOWait != 0 {
				c = "#9467bd"
			}
			fmt.Fprintf(&b, `<rect x="%d" y="0" width="1" height="3" fill="%s"/>`, i, c)
		}
	}
	b.WriteString(`</svg>`)
	_ = w
	return b.String()
}

func hexVal(c byte) uint8 {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return 0
}

// Sparkline draws values as an SVG polyline of w × h, scaled to their maximum (or
// to top when it is larger); zeros with skipZero break the line (no event).
func Sparkline(vals []float64, top float64, skipZero bool, h int) string {
	if len(vals) == 0 {
		return ""
	}
	for _, v := range vals {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			top = max(top, v)
		}
	}
	if top <= 0 {
		top = 1
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" viewBox="0 0 %d %d" width="100%%" height="%d" preserveAspectRatio="none" aria-hidden="true">`, len(vals), h, h)
	var pts []string
	flush := func() {
		if len(pts) > 0 {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="currentColor" stroke-width="1.2" vector-effect="non-scaling-stroke" points="%s"/>`, strings.Join(pts, " "))
			pts = pts[:0]
		}
	}
	for i, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) || (skipZero && v == 0) {
			flush()
			continue
		}
		pts = append(pts, fmt.Sprintf("%d,%.1f", i, float64(h)-v/top*float64(h-1)))
	}
	flush()
	b.WriteString(`</svg>`)
	return b.String()
}

// ListBand draws, for all inodes, how many are on each list at each row: a stacked
// SVG band of height h (the summary of inodes beyond the top N).
func ListBand(inodes []report.InodeDetail, h int) string {
	if len(inodes) == 0 || len(inodes[0].Lists) == 0 {
		return ""
	}
	n := len(inodes[0].Lists)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="band" viewBox="0 0 %d %d" width="100%%" height="%d" preserveAspectRatio="none" aria-hidden="true">`, n, h, h)
	scale := float64(h) / float64(len(inodes))
	for _, lc := range listColors {
		// one path per list: a column of height count at each row, stacked in order
		var p strings.Builder
		for i := 0; i < n; i++ {
			below, cnt := 0, 0
			for _, in := range inodes {
				if i >= len(in.Lists) {
					continue
				}
				for _, o := range listColors {
					if o.Letter == lc.Letter {
						break
					}
					if in.Lists[i] == o.Letter {
						below++
					}
				}
				if in.Lists[i] == lc.Letter {
					cnt++
				}
			}
			if cnt > 0 {
				fmt.Fprintf(&p, "M%d %.2fh1v%.2fh-1z", i, float64(h)-float64(below+cnt)*scale, float64(cnt)*scale)
			}
		}
		if p.Len() > 0 {
			fmt.Fprintf(&b, `<path fill="%s" d="%s"/>`, lc.Color, p.String())
		}
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// PauseBuckets are the pause histogram's bucket labels (kernel.ThreadStats.PauseHist).
func PauseBuckets() []string {
	out := []string{"<1"}
	for i := 1; i < Cat.PauseBuckets-1; i++ {
		out = append(out, fmt.Sprintf("%d-%d", 1<<(i-1), 1<<i))
	}
	return append(out, fmt.Sprintf("≥%d", 1<<(Cat.PauseBuckets-2)))
}

// Histogram draws pause counts as SVG bars (log-scaled heights), with a title per bar.
func Histogram(counts []int64, h int) string {
	if len(counts) == 0 {
		return ""
	}
	top := 0.0
	for _, c := range counts {
		top = max(top, math.Log1p(float64(c)))
	}
	if top == 0 {
		top = 1
	}
	labels := PauseBuckets()
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="hist" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="pauses by length (ms)">`, 4*len(counts), h, 4*len(counts)+2, h)
	for i, c := range counts {
		bh := math.Log1p(float64(c)) / top * float64(h)
		lab := ""
		if i < len(labels) {
			lab = labels[i]
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%.1f" width="3" height="%.1f" fill="currentColor"><title>%s ms: %d</title></rect>`, 4*i, float64(h)-bh, bh, html.EscapeString(lab), c)
	}
	b.WriteString(`</svg>`)
	return b.String()
}

// TaskRow is one row of the per-task table.
type TaskRow struct {
	Name                                     string
	WrittenMB, RateMBps, PausedS, MaxPauseMs float64
	Pauses                                   int64
	Rate, Hist                               string // SVG
	Summary                                  bool   // the band of the tasks beyond the top N
	Exit                                     string // how a task that exited did: "finished in 12.3 s", "exited with ENOSPC after 9.1 s"
}

// taskExit is how a task ended before the run did, or "" (it ran to the end).
func taskExit(t report.TaskResult) string {
	switch {
	case t.Exit == report.ExitENOSPC:
		return fmt.Sprintf("exited with ENOSPC after %.1f s", t.RuntimeS)
	case t.Done:
		return fmt.Sprintf("finished in %.1f s", t.RuntimeS)
	}
	return ""
}

// TaskRows are the top-N tasks by bytes written, then one summary row for the rest.
func TaskRows(r *report.Result) []TaskRow {
	if r == nil || r.Detail == nil {
		return nil
	}
	idx := make([]int, len(r.Tasks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.Tasks[idx[a]].DirtiedMB > r.Tasks[idx[b]].DirtiedMB })
	byPID := map[int]report.TaskDetail{}
	top := 0.0
	for _, d := range r.Detail.Tasks {
		byPID[d.PID] = d
		for _, v := range d.RateMBps {
			top = max(top, v)
		}
	}
	var out []TaskRow
	var rest TaskRow
	restHist := make([]int64, Cat.PauseBuckets)
	nrest := 0
	for k, i := range idx {
		t := r.Tasks[i]
		d := byPID[t.PID]
		if k < TopN {
			out = append(out, TaskRow{Name: fmt.Sprintf("%s %d", t.Comm, t.PID), WrittenMB: t.DirtiedMB, RateMBps: t.RateMBps,
				Pauses: t.Pauses, PausedS: t.PausedS, MaxPauseMs: t.MaxPauseMs, Exit: taskExit(t),
				Rate: Sparkline(d.RateMBps, top, false, 22), Hist: Histogram(d.PauseHist, 22)})
			continue
		}
		nrest++
		rest.WrittenMB += t.DirtiedMB
		rest.RateMBps += t.RateMBps
		rest.Pauses += t.Pauses
		rest.PausedS += t.PausedS
		rest.MaxPauseMs = max(rest.MaxPauseMs, t.MaxPauseMs)
		for j, c := range d.PauseHist {
			restHist[j] += c
		}
	}
	if nrest > 0 {
		rest.Name = fmt.Sprintf("the other %d (sum; longest pause)", nrest)
		rest.Summary = true
		rest.Hist = Histogram(restHist, 22)
		out = append(out, rest)
	}
	return out
}

// InodeRow is one row of the per-inode view.
type InodeRow struct {
	Ino                      uint64
	WrittenMB, Calls         float64
	PerCall                  float64 // mean pages per writeback_single_inode call
	Lane, Dirty, Wrote, Band string  // SVG
}

// InodeRows are the top-N inodes by bytes written, each with its swim-lane, dirty
// pages and pages per writeback_single_inode call.
func InodeRows(r *report.Result) []InodeRow {
	if r == nil || r.Detail == nil {
		return nil
	}
	res := map[uint64]report.InodeResult{}
	for _, in := range r.Inodes {
		res[in.Ino] = in
	}
	ds := append([]report.InodeDetail(nil), r.Detail.Inodes...)
	sort.SliceStable(ds, func(a, b int) bool { return res[ds[a].Ino].WrittenMB > res[ds[b].Ino].WrittenMB })
	topDirty, topCall := 0.0, 0.0
	for _, d := range ds {
		for _, v := range d.DirtyMB {
			topDirty = max(topDirty, v)
		}
		for _, v := range d.WrotePerCall {
			topCall = max(topCall, v)
		}
	}
	var out []InodeRow
	for k, d := range ds {
		if k >= TopN {
			break
		}
		x := res[d.Ino]
		row := InodeRow{Ino: d.Ino, WrittenMB: x.WrittenMB, Calls: float64(x.Calls),
			Lane: SwimLane(d.Lists, d.Visited, 600, 14), Dirty: Sparkline(d.DirtyMB, topDirty, false, 18),
			Wrote: Sparkline(d.WrotePerCall, topCall, true, 18)}
		if x.Calls > 0 {
			row.PerCall = x.WrittenMB * 256 / float64(x.Calls)
		}
		out = append(out, row)
	}
	return out
}
