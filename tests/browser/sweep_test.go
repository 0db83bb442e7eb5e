//go:build !(js && wasm)

package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSweepView: the Sweep mode runs write_bw against the dirty threshold for 1, 2,
// 10 and 100 dd on the checked filesystems (here ext4 and xfs, 60 s runs of the
// form), draws one chart per filesystem with a line per dd count, fills the table,
// says what the finished runs show and why the curves have that shape; at 1400 and
// 390 px without sideways scrolling.
func TestSweepView(t *testing.T) {
	p := newPageTimeout(t, 6*time.Minute)
	p.open("#v=1&kernel=3.1.0-rc9-ioless-full&runtime=60s&seed=1&mode=sweep")
	p.poll("the sweep view", `!!document.getElementById("sweep")`, 30*time.Second)
	for _, fs := range []string{"ext3", "btrfs"} {
		p.click("#sweep-fs-" + fs)
	}
	p.poll("48 runs planned", `document.getElementById("sweep-runs").textContent.includes("48 runs")`, 10*time.Second)
	p.click("#run")
	p.poll("every sweep run", `(document.getElementById("sweep-status")||{textContent:""}).textContent.includes("48 of 48 runs finished")`, 5*time.Minute)
	for _, fs := range []string{"ext4", "xfs"} {
		var lines, points int
		p.eval(`document.querySelectorAll("#sweep-`+fs+` svg polyline").length`, &lines)
		p.eval(`document.querySelectorAll("#sweep-`+fs+` svg circle").length`, &points)
		if lines != 4 || points != 24 {
			t.Errorf("%s chart: %d lines, %d points; want 4 and 24", fs, lines, points)
		}
		txt := p.text("#sweep-" + fs + " .sweep-text")
		for _, want := range []string{fs + ": with 1 dd, write_bw stays between", "With 100 dd it is", "% of 1 dd", "seeks"} {
			if !strings.Contains(txt, want) {
				t.Errorf("%s text lacks %q: %s", fs, want, txt)
			}
		}
		var cells int
		p.eval(`Array.from(document.querySelectorAll("#sweep-`+fs+` .sweep-table td")).filter(e => e.textContent.includes("seeks/s")).length`, &cells)
		if cells != 24 {
			t.Errorf("%s table: %d cells with write_bw and seeks/s, want 24", fs, cells)
		}
	}
	if p.text("#sweep-ext3") != "" || p.text("#sweep-btrfs") != "" {
		t.Error("unchecked filesystems were swept")
	}
	if why := p.text("#sweep-why"); !strings.Contains(why, "writeback_chunk_size") || !strings.Contains(why, "seek") {
		t.Errorf("no explanation of the shape: %s", why)
	}
	if !strings.Contains(p.text("#status"), "48 of 48") {
		t.Errorf("status line %q", p.text("#status"))
	}
	for _, w := range []int64{1400, 390} {
		p.run(chromedp.EmulateViewport(w, 1000))
		time.Sleep(400 * time.Millisecond)
		var over bool
		p.eval(`document.documentElement.scrollWidth > window.innerWidth + 1`, &over)
		if over {
			t.Errorf("%d px: the page scrolls sideways", w)
		}
		p.shot(map[int64]string{1400: "sweep-1400", 390: "sweep-390"}[w])
	}
}
