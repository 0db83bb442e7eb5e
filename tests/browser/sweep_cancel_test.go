//go:build !(js && wasm)

package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wblab/wblab/harness"
)

// sweepOne opens the sweep at hash, leaves every filesystem but fs out, checks the
// run count (seeds runs per cell) and presses Run; it returns the cells.
func (p *page) sweepOne(hash, fs string, seeds int) int {
	p.t.Helper()
	p.open(hash)
	p.poll("the sweep view", `!!document.getElementById("sweep-fs-`+fs+`")`, 30*time.Second)
	for _, other := range harness.SweepFilesystems {
		if other != fs {
			p.click("#sweep-fs-" + other)
		}
	}
	n := len(harness.SweepThresholdsMB) * len(harness.SweepWriters)
	p.poll("one filesystem's runs", fmt.Sprintf(`document.getElementById("sweep-runs").textContent === "%d runs"`, seeds*n), 10*time.Second)
	p.click("#run")
	return n
}

// TestSweepExportAndCancel: the sweep view is only in sweep mode; a short sweep of
// ext4 exports its table as CSV (a row per run, as the page shows it), sweep mode has
// no B kernel or trace export; then a
// long sweep stops at Cancel: the finished runs stay, the others say cancelled, and
// nothing moves after.
func TestSweepExportAndCancel(t *testing.T) {
	p := newPageTimeout(t, 5*time.Minute)
	for _, mode := range []string{"", "ab", "matrix"} {
		p.open("#v=1&runtime=5s&mode=" + mode)
		var shown bool
		p.eval(`!!document.getElementById("sweep")`, &shown)
		if shown {
			t.Errorf("mode %q shows the sweep view", mode)
		}
	}
	n := p.sweepOne("#v=1&kernel=3.1.0-rc9-ioless-full&runtime=5s&seed=1&mode=sweep", "ext4", 1)
	p.poll("the sweep", fmt.Sprintf(`document.getElementById("status").textContent.startsWith("sweep: %d of %d runs finished (")`, n, n), 4*time.Minute)
	var b, trace bool
	p.eval(`!!document.querySelector("fieldset.g-b")`, &b)
	p.eval(`!!document.getElementById("export-trace")`, &trace)
	if b || trace {
		t.Errorf("sweep mode shows B's kernel controls (%v) or a trace export (%v)", b, trace)
	}
	p.captureDownloads()
	name, csv := p.download("#export-csv")
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if name != "wblab-sweep-ext4.csv" || len(lines) != n+1 || !strings.HasPrefix(lines[0], "fs,thresh_MB,dd,write_bw_MBps,write_bw_ci95,seeds,seeks_s") ||
		!strings.HasPrefix(lines[1], "ext4,8,1,") || strings.Contains(csv, "not finished") {
		t.Errorf("CSV %s:\n%s", name, csv)
	}

	p.set("#f-runtime", "2h")
	p.click("#run")
	p.poll("the long sweep running", fmt.Sprintf(`document.getElementById("status").textContent.startsWith("sweep: 0 of %d runs finished (")`, n), time.Minute)
	p.click("#cancel")
	p.poll("the cancelled sweep", `document.getElementById("status").textContent.includes("cancelled")`, 20*time.Second)
	st := p.text("#status")
	var done, cancelled int
	if _, err := fmt.Sscanf(st, fmt.Sprintf("sweep: %%d of %d runs finished, %%d cancelled", n), &done, &cancelled); err != nil || done+cancelled != n || cancelled == 0 {
		t.Errorf("status after Cancel %q: want finished + cancelled = %d runs", st, n)
	}
	var shown int
	p.eval(`[...document.querySelectorAll(".sweep-table td")].filter((e) => e.textContent === "cancelled").length`, &shown)
	if shown != cancelled {
		t.Errorf("%d table cells say cancelled, the status %d", shown, cancelled)
	}
	time.Sleep(time.Second)
	if again := p.text("#status"); again != st {
		t.Errorf("the status moved after Cancel: %q then %q", st, again)
	}
}

// TestSweepSeeds: with seeds in the link each cell runs every seed, the status counts
// cells and runs, and the table gives each cell's mean with its 95 % CI.
func TestSweepSeeds(t *testing.T) {
	p := newPageTimeout(t, 5*time.Minute)
	n := p.sweepOne("#v=1&kernel=3.1.0-rc9-ioless-full&runtime=5s&seed=1&mode=sweep&seeds=2", "xfs", 2)
	p.poll("the sweep with 2 seeds", fmt.Sprintf(`document.getElementById("status").textContent.startsWith("sweep: %d of %d cells finished (2 seeds each, %d of %d runs; ")`,
		n, n, 2*n, 2*n), 4*time.Minute)
	var withCI int
	p.eval(`[...document.querySelectorAll("#sweep-xfs .sweep-table td")].filter((e) => / ±[0-9.]+ \(/.test(e.textContent)).length`, &withCI)
	if withCI != n {
		t.Errorf("%d table cells with a mean ± CI, want %d", withCI, n)
	}
	var points int
	p.eval(`document.querySelectorAll("#sweep-xfs svg circle").length`, &points)
	if points != n {
		t.Errorf("%d points drawn, want %d", points, n)
	}
}
