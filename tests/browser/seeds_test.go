//go:build !(js && wasm)

package browser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSeedsAB: an A/B with 5 seeds shows each side's mean and CI, the delta paired
// by seed (on the write_bw card too), and the switch-activity panel with the
// switches that never ran; at 1400 and 390 px. WBLAB_SEEDS_SCREENSHOT=$PWD/docs/seeds-ab.png
// writes the docs' screenshot.
func TestSeedsAB(t *testing.T) {
	p := newPageTimeout(t, 4*time.Minute)
	p.open("#v=1&case=thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X&kernel=3.1.0-rc9-ioless-full&runtime=60s&seed=1&mode=ab" +
		"&b.kernel=3.1.0-rc9-ioless-full-more_io_wait-5&seeds=5")
	p.poll("the seed statistics", `(document.getElementById("seeds")||{textContent:""}).textContent.includes("paired by seed")`, 3*time.Minute)
	p.waitDone()
	seeds := p.text("#seeds")
	for _, want := range []string{"5 seeds", "A write_bw", "B write_bw", "95% CI", "delta"} {
		if !strings.Contains(seeds, want) {
			t.Errorf("seed panel lacks %q: %s", want, seeds)
		}
	}
	if d := p.text("#card-write_bw .delta"); !strings.Contains(d, "(5 seeds)") || !strings.Contains(d, "±") {
		t.Errorf("write_bw card delta %q: want the paired delta with its CI", d)
	}
	sw := p.text("#switch-activity")
	for _, want := range []string{"Switch activity", "balance_dirty_pages.io_less", "writeback_chunk_size.scaled"} {
		if !strings.Contains(sw, want) {
			t.Errorf("switch panel lacks %q: %s", want, sw)
		}
	}
	if !strings.Contains(p.text("#seeds-toggle"), "5 seeds") || !strings.Contains(p.text("#seeds-toggle"), "seeds") {
		t.Errorf("seeds button %q", p.text("#seeds-toggle"))
	}
	for _, w := range []int64{1400, 390} {
		p.run(chromedp.EmulateViewport(w, 1000))
		time.Sleep(300 * time.Millisecond)
		p.shot("seeds-ab-" + map[int64]string{1400: "1400", 390: "390"}[w])
	}
	if out := os.Getenv("WBLAB_SEEDS_SCREENSHOT"); out != "" {
		p.run(chromedp.EmulateViewport(1400, 1000))
		time.Sleep(300 * time.Millisecond)
		var buf []byte
		p.run(chromedp.CaptureScreenshot(&buf))
		if err := os.WriteFile(out, buf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("screenshots in %s", filepath.Join(artifacts, "seeds-ab-*.png"))
}

// TestSeedsNeverRan: on ext4 1dd the switches patches 1-4 change never run, so the
// paired runs are identical: the delta is "~+0.0%" and the panel says which change
// never ran.
func TestSeedsNeverRan(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("#v=1&case=thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X&kernel=3.1.0-rc9-ioless-full&runtime=20s&seed=1&mode=ab" +
		"&b.kernel=3.1.0-rc9-ioless-full-more_io_wait-5&seeds=5")
	p.poll("the seed statistics", `(document.getElementById("seeds")||{textContent:""}).textContent.includes("paired by seed")`, 2*time.Minute)
	p.waitDone()
	if d := p.text("#card-write_bw .delta"); !strings.HasPrefix(d, "~+0.0%") {
		t.Errorf("write_bw card delta %q: want ~+0.0%% (identical paired runs)", d)
	}
	if nr := p.text("#never-ran"); !strings.HasSuffix(nr, "this change never ran in this case") || !strings.Contains(nr, "more_io_wait") {
		t.Errorf("never-ran line %q", nr)
	}
}

// TestSeedsButton: "5 seeds" is one click; it reruns with 5 seeds, says so in the
// link and goes back to one seed on the next click.
func TestSeedsButton(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	if body := p.text("body"); strings.Contains(body, "paired by seed") || strings.Contains(body, "1 seeds") {
		t.Fatal("one seed by default, and no seed panel for it")
	}
	p.click("#seeds-toggle")
	p.poll("the 5-seed statistics", `(document.getElementById("seeds")||{textContent:""}).textContent.includes("CV")`, 2*time.Minute)
	var hash string
	p.eval(`location.hash`, &hash)
	if !strings.Contains(hash, "seeds=5") {
		t.Errorf("hash %q lacks seeds=5", hash)
	}
	p.waitDone()
	p.click("#seeds-toggle")
	p.waitDone()
	if strings.Contains(p.text("body"), "CV ") {
		t.Errorf("the seed panel stays after going back to one seed: %q", p.text("#seeds"))
	}
}

// TestSeedsMatrix: a matrix with 5 seeds runs every cell 5 times and pairs the
// deltas by seed (identical runs on ext4 1dd are "~+0.0%").
func TestSeedsMatrix(t *testing.T) {
	p := newPageTimeout(t, 4*time.Minute)
	p.open("#v=1&runtime=20s&mode=matrix&b.kernel=3.1.0-rc9-ioless-full-more_io_wait-5&seeds=5")
	p.set("#m-cases", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X\nthresh=100M/xfs-2dd-4k-8p-4096M-100M:10-X")
	p.click("#run")
	p.poll("the matrix with seeds", `document.getElementById("status").textContent.includes("4 of 4 cells finished (5 seeds each, 20 of 20 runs)")`, 3*time.Minute)
	txt := p.text("#matrix-text")
	if !strings.Contains(txt, "~+0.0%") || !strings.Contains(txt, "TOTAL") {
		t.Errorf("matrix text:\n%s", txt)
	}
}

// TestPageSpeedT1Seeds measures Wu's T1 matrix with 5 seeds in the page (240 runs)
// when WBLAB_PAGE_SEEDS_SPEED is set (minutes; not in CI): the wall time from the
// link to the 48th cell, the page's worst main-thread stall (a 10 ms timer's longest
// gap, and the idle page's as the machine's noise floor) and how often the progress
// bar moved; reported, not asserted, beside the machine's load average.
func TestPageSpeedT1Seeds(t *testing.T) {
	if os.Getenv("WBLAB_PAGE_SEEDS_SPEED") == "" {
		t.Skip("set WBLAB_PAGE_SEEDS_SPEED=1 to time the T1 matrix with 5 seeds in the page")
	}
	p := newPageTimeout(t, 30*time.Minute)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	load := func() string { b, _ := os.ReadFile("/proc/loadavg"); return strings.TrimSpace(string(b)) }
	loadBefore := load()
	var workers int
	p.eval(`navigator.hardwareConcurrency`, &workers)
	p.stallTimer() // the machine's noise floor: the idle page's worst gap
	time.Sleep(2 * time.Second)
	idle := p.stall()
	start := time.Now()
	p.stallTimer()
	p.open("#v=1&case=thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X&kernel=3.1.0-rc9-ioless-full&runtime=10m0s&seed=1&mode=matrix" +
		"&b.kernel=3.1.0-rc9-ioless-full-more_io_wait-5&table=T1&seeds=5")
	moved := p.progressUntil("the T1 matrix with 5 seeds", `document.getElementById("status").textContent.includes("48 of 48 cells finished")`,
		29*time.Minute, time.Second)
	took := time.Since(start)
	stall := p.stall()
	txt := p.text("#matrix-text")
	if !strings.Contains(txt, "TOTAL") || strings.Contains(txt, "error") || strings.Contains(txt, "...") {
		t.Errorf("T1 table with 5 seeds:\n%s", txt)
	}
	if moved < 3 {
		t.Errorf("progress bar moved %d times during the matrix", moved)
	}
	t.Logf("Wu T1 matrix, 5 seeds (240 runs of 600 s) in the page, %d workers: %v, worst main-thread stall %.0f ms (idle page %.0f ms), progress bar moved %d times; loadavg before %s, after %s",
		workers, took.Round(time.Second), stall, idle, moved, loadBefore, load())
	t.Log(p.text("#status"))
	t.Log(txt)
}
