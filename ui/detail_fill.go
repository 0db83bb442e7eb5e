package ui

import (
	"fmt"
	"html"
	"strings"
)

// The per-task table and the per-inode swim lanes are written into the page as one
// HTML string, once per shown run (Root.AfterRender: FillHTML), not by Vugu: their
// SVG is hundreds of kilobytes, which a Vugu render re-sent at every pass.

// fillKey names what the detail body shows: the shown result and the A/B toggle.
func (c *DetailView) fillKey() string {
	r := c.res()
	if r == nil || r.Detail == nil {
		return ""
	}
	return fmt.Sprintf("%p/%v", r, c.ShowB && c.HasB())
}

// fill writes the detail body, in a task of its own, when the shown run changed or
// a render redid the element.
func (c *DetailView) fill() {
	k := c.fillKey()
	if k == "" || Filled("detail-body", k) || c.lab.w == nil {
		return
	}
	c.lab.w.later(func() {
		if c.fillKey() == k {
			FillHTML("detail-body", k, c.bodyHTML)
		}
	})
}

// bodyHTML is the detail body: the task table and the inode rows.
func (c *DetailView) bodyHTML() string {
	var b strings.Builder
	e := html.EscapeString
	b.WriteString(`<div class="detail-tasks"><h3>dd tasks <span class="muted">(top 12 by bytes written; the rest summed)</span></h3><table id="task-table"><thead><tr><th>task</th><th>written MiB</th><th>MiB/s</th><th>pauses</th><th>paused s</th><th>longest ms</th>`)
	fmt.Fprintf(&b, `<th>pauses by length (%s, log)</th><th>dirtying rate over time</th></tr></thead><tbody>`, e(c.Buckets()))
	for _, t := range c.Tasks() {
		cl := ""
		if t.Summary {
			cl = ` class="summary"`
		}
		name := e(t.Name)
		if t.Exit != "" {
			name += ` <span class="task-exit">` + e(t.Exit) + `</span>`
		}
		fmt.Fprintf(&b, `<tr%s><td>%s</td><td class="num">%s</td><td class="num">%s</td><td class="num">%d</td><td class="num">%s</td><td class="num">%s</td><td class="hist-cell">%s</td><td class="spark-cell">%s</td></tr>`,
			cl, name, f1(t.WrittenMB), f1(t.RateMBps), t.Pauses, f1(t.PausedS), f0(t.MaxPauseMs), t.Hist, t.Rate)
	}
	b.WriteString(`</tbody></table></div><div class="detail-inodes" id="inode-timeline">`)
	fmt.Fprintf(&b, `<h3>inodes over time <span class="muted">%s</span></h3><div class="legend">`, e(c.Span()))
	for _, l := range c.Legend() {
		fmt.Fprintf(&b, `<span><i style="background:%s"></i> <span>%s</span></span>`, e(l[0]), e(l[1]))
	}
	b.WriteString(`<span><i class="tick"></i> a short stay between samples</span></div>`)
	fmt.Fprintf(&b, `<div class="band-row"><div class="lab">%s</div><div>%s</div></div>`, e(c.BandTitle()), c.Band())
	for _, in := range c.Inodes() {
		fmt.Fprintf(&b, `<div class="inode-row" id="inode-%d"><div class="lab"><b>ino %d</b> <span>%.0f MiB, %.0f calls, ≈%.0f pages/call</span></div>`, in.Ino, in.Ino, in.WrittenMB, in.Calls, in.PerCall)
		fmt.Fprintf(&b, `<div class="lanes"><div class="lane-row" title="writeback list over time">%s</div><div class="spark-row" title="dirty pages (MiB)">%s</div><div class="spark-row wrote" title="pages per writeback_single_inode call">%s</div></div></div>`, in.Lane, in.Dirty, in.Wrote)
	}
	b.WriteString(`<p class="muted">Per inode: the list it is on at each sample (swim-lane), its dirty pages, and the pages each flusher writeback_single_inode call wrote (Wu's graph; gaps: no call).</p></div>`)
	return b.String()
}
