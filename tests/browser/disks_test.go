//go:build !(js && wasm)

package browser

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/wblab/wblab/lab"
)

// TestDiskEditorAndCards: the USB-stick preset's further disk is a row of the disk
// list editor; a disk can be added and removed; a run shows one card per disk with
// the editor's and the reader's latencies, in A and B, with the editor's time per
// wait cause (its "?" opens that cause's explanation) and its saves' latency over
// time drawn as a chart; the applications' memory
// (page reclaim) comes with the preset; a bad disk is refused at the editor.
func TestDiskEditorAndCards(t *testing.T) {
	r, ok := lab.ReproByID("usbstick")
	if !ok {
		t.Fatal("no usbstick preset")
	}
	rows := `document.querySelectorAll("#disk-editor .disk-row").length`
	for _, w := range []struct{ width, height int }{{1400, 1000}, {390, 844}} {
		p := newPage(t)
		p.viewport(w.width, w.height)
		p.open("#" + lab.EncodeHash(r.State))
		p.poll("one further disk", rows+` === 1`, 30*time.Second)
		if v := p.value("#disk-1"); !strings.Contains(v, "wu2011-hdd") || !strings.Contains(v, "editors=1") || !strings.Contains(v, "readers=1") {
			t.Errorf("disk 2 row: %q", v)
		}
		if v := p.value("#f-anon_mb"); v != "3584" {
			t.Errorf("applications (MB): %q, want the preset's 3584", v)
		}
		if w.width == 1400 {
			p.click("#disk-add")
			p.poll("an added disk", rows+` === 2`, 10*time.Second)
			p.poll("the link carries it", `location.hash.split("disk=").length === 3`, 10*time.Second)
			p.set("#disk-2", "usb2-stick,fs=ext4,max_ratio=0")
			p.click("#run") // bad input runs nothing and shows at the disk editor
			p.poll("the disk's error at the editor", `(document.getElementById("err-disks")||{}).textContent.includes("max_ratio")`, 20*time.Second)
			p.click("#disk-rm-2")
			p.poll("the disk removed", rows+` === 1`, 10*time.Second)
		}
		p.click("#run")
		p.poll("both runs done and the disk cards", `!!document.querySelector("#disk-card-2") && document.querySelectorAll("#disk-card-2 tr").length > 4 && (document.getElementById("status")||{}).textContent.startsWith("done")`, 120*time.Second)
		card := p.text("#disk-card-2")
		for _, s := range []string{"wu2011-hdd", "editor 1 save (write+fsync) p50/p90/p99/max", "editor 1 time in ", " % (p99 ", "reader 1 read p50/p99/max", "ms ("} {
			if !strings.Contains(card, s) {
				t.Errorf("disk 2 card lacks %q: %q", s, card)
			}
		}
		// each wait cause's line explains it (the kernel function) on hover and at "?"
		var title string
		p.eval(`(() => { const td = Array.from(document.querySelectorAll("#disk-card-2 td.what")).find(e => e.textContent.includes("time in ")); return td ? td.title : "" })()`, &title)
		if !strings.Contains(title, "(") {
			t.Errorf("a wait cause's hover names no kernel function: %q", title)
		}
		p.eval(`(() => { const b = Array.from(document.querySelectorAll("#disk-card-2 td.what button.q")).find(e => e.closest("td").textContent.includes("time in ")); if (b) b.click(); return "" })()`, new(string))
		p.poll("the wait cause's help panel", `(document.getElementById("help-title")||{textContent:""}).textContent.startsWith("time in ")`, 10*time.Second)
		p.click("#help-close")
		// the editor's saves: latency against start time, dots coloured by the longest wait
		p.poll("the saves chart", `(() => { const b = document.getElementById("box-chart-saves"); return !!b && b.classList.contains("shown") && !!b.querySelector("canvas") && b.textContent.includes("longest in ") })()`, 30*time.Second)
		if s := p.text("#sum-chart-saves"); !strings.Contains(s, "saves drawn") || !strings.Contains(s, "B ") {
			t.Errorf("the saves chart's text, A and B: %q", s)
		}
		// its "what is this?" list: each colour's wait cause, "?" opens its explanation
		p.eval(`(() => { const b = document.querySelector("#docs-chart-saves dt button.q"); if (b) b.click(); return "" })()`, new(string))
		p.poll("the saves chart's wait cause help", `(document.getElementById("help-title")||{textContent:""}).textContent.startsWith("time in ")`, 10*time.Second)
		p.click("#help-close")
		// the per-disk chart: one series per disk, its metric picked by a select
		p.poll("the per-disk chart", `(() => { const b = document.getElementById("box-chart-disks"); return !!b && b.classList.contains("shown") && b.textContent.includes("disk 2 wu2011-hdd") })()`, 30*time.Second)
		p.set("#disk-metric", "bdi_thresh_MB")
		p.poll("the per-disk chart redrawn for bdi_thresh", `(document.getElementById("box-chart-disks")||{}).textContent.includes("Per disk: bdi_thresh") || Array.from(document.querySelectorAll("#box-chart-disks .u-title")).some(e => e.textContent.includes("bdi_thresh"))`, 30*time.Second)
		if c1 := p.text("#disk-card-1"); !strings.Contains(c1, "usb2-stick") || !strings.Contains(c1, "written") {
			t.Errorf("disk 1 card: %q", c1)
		}
		var sideways bool
		p.eval(`document.documentElement.scrollWidth > document.documentElement.clientWidth`, &sideways)
		if sideways {
			t.Errorf("%d px: the page scrolls sideways", w.width)
		}
		p.shot("usb-stick-stall-" + strconv.Itoa(w.width))
		p.shotOf("#disks-view", "usb-stick-stall-disks-"+strconv.Itoa(w.width))
		p.shotOf("#disk-editor", "usb-stick-stall-disk-editor-"+strconv.Itoa(w.width))
		p.shotOf("#box-chart-disks", "usb-stick-stall-disk-chart-"+strconv.Itoa(w.width))
		p.shotOf("#disk-card-2", "usb-stick-editor-card-"+strconv.Itoa(w.width))
		p.shotOf("#box-chart-saves", "usb-stick-editor-saves-"+strconv.Itoa(w.width))
	}
}

// shotOf saves a screenshot of one element.
func (p *page) shotOf(sel, name string) {
	var buf []byte
	if err := chromedp.Run(p.ctx, chromedp.ScrollIntoView(sel), chromedp.Screenshot(sel, &buf, chromedp.NodeVisible)); err != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(artifacts, name+".png"), buf, 0o644)
}
