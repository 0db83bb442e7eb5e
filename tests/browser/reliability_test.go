//go:build !(js && wasm)

package browser

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/wasm/site"
)

// spyWorkers runs before the page's scripts: it keeps every Web Worker the page starts
// in window.__workers (so a test can terminate one) and shortens the pool's watchdog.
func (p *page) spyWorkers(watchdogMs int) {
	p.t.Helper()
	js := fmt.Sprintf(`window.wblabWatchdogMs = %d; window.__workers = [];
		(() => { const W = window.Worker; window.Worker = function (u, o) { const w = new W(u, o); window.__workers.push(w); return w; };
		window.Worker.prototype = W.prototype; })();`, watchdogMs)
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
}

// stallTimer starts a 10 ms interval timer in the page that records its worst gap.
func (p *page) stallTimer() {
	p.eval(`window.__stall = 0; window.__last = performance.now(); clearInterval(window.__tick); window.__tick = setInterval(() => {
		const n = performance.now(); window.__stall = Math.max(window.__stall, n - window.__last); window.__last = n }, 10); true`, nil)
}

func (p *page) stall() float64 {
	var ms float64
	p.eval(`clearInterval(window.__tick), window.__stall`, &ms)
	return ms
}

// TestWorkerKilledMidRun terminates an engine worker from the page's JS while a matrix
// runs: its run reports an error, the other worker and a replacement finish the rest,
// and running again fills every cell.
func TestWorkerKilledMidRun(t *testing.T) {
	p := newPage(t)
	p.spyWorkers(4000)
	p.open("#v=1&runtime=1200s&mode=matrix")
	p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 10*time.Second)
	cases := []string{"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X"}
	p.set("#m-cases", strings.Join(cases, "\n"))
	p.click("#run")
	p.poll("a worker running", `window.__workers.length > 0 && /matrix: 0 of/.test(document.getElementById("status").textContent)`, 20*time.Second)
	time.Sleep(200 * time.Millisecond)
	p.eval(`window.__workers[0].terminate(), true`, nil)
	total := 2 * len(cases)
	p.poll("every cell finished or failed", fmt.Sprintf(`document.getElementById("status").textContent.includes("%d of %d")`, total, total), 60*time.Second)
	txt := p.text("#matrix-text")
	if n := strings.Count(txt, "error"); n != 1 {
		t.Errorf("%d failed cells after killing one worker, want 1:\n%s", n, txt)
	}
	var title string
	p.eval(`Array.from(document.querySelectorAll("#matrix-table tr")).map(r => r.title).join(" ")`, &title)
	if !strings.Contains(title, "engine worker failed") {
		t.Errorf("the failed cell does not say why: %q", title)
	}
	p.shot("worker-killed")

	p.click("#run") // a rerun works
	p.poll("the rerun", fmt.Sprintf(`document.getElementById("status").textContent.includes("%d of %d") && !document.getElementById("matrix-text").textContent.includes("...")`, total, total), 60*time.Second)
	p.poll("the rerun's table", `document.getElementById("matrix-text").textContent.includes("TOTAL")`, 60*time.Second)
	if txt := p.text("#matrix-text"); strings.Contains(txt, "error") {
		t.Errorf("rerun after a killed worker:\n%s", txt)
	}
	var workers int
	p.eval(`window.__workers.length`, &workers)
	t.Logf("workers started: %d\n%s", workers, p.text("#matrix-text"))
}

// maxUIStallMs bounds the worst gap between the page's 10 ms timer ticks while a
// run goes and is cancelled (raised to 10x the idle page's gap on a loaded machine).
const maxUIStallMs = 500.0

// TestCancelLongRun starts a day-long simulation, cancels it, and checks that the page
// answered all along and that the next run is not queued behind the cancelled one.
func TestCancelLongRun(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=24h&dd=10")
	// the machine's noise floor: the worst gap between 10 ms ticks while the page waits
	p.stallTimer()
	time.Sleep(time.Second)
	idle := p.stall()
	p.stallTimer()
	p.poll("the long run's progress", `/running .* [1-9][0-9]*%/.test(document.getElementById("status").textContent)`, 60*time.Second)
	// the page answers while it runs: switching modes re-renders at once
	start := time.Now()
	p.click("#mode-ab")
	p.poll("the A/B view", `document.getElementById("mode-ab").classList.contains("active")`, 5*time.Second)
	click := time.Since(start)
	p.click("#mode-single")
	p.click("#cancel")
	p.poll("the cancelled status", `document.getElementById("status").textContent.startsWith("cancelled at t = ")`, 20*time.Second)
	stall := p.stall()
	p.set("#f-runtime", "30s")
	p.set("#f-dd", "1")
	p.click("#run")
	p.waitDone()
	t.Logf("worst timer stall during a day-long run %.0f ms (idle page %.0f ms); mode switch answered in %v", stall, idle, click.Round(time.Millisecond))
	// the run is in a worker: the page's own thread never waits for it
	if bound := math.Max(maxUIStallMs, 10*idle); stall > bound {
		t.Errorf("the page stalled %.0f ms during the run and its cancel (bound %.0f ms: %.0f ms or 10x the idle page's %.0f ms)", stall, bound, maxUIStallMs, idle)
	}
	p.shot("cancelled-then-run")
}

// TestReproducePresets: each preset's button is enabled exactly when the engine has
// its kernels; choosing one sets up the controls, the mode and the explanation.
func TestReproducePresets(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute) // five presets' runs on a shared machine
	p.open("#v=1&runtime=30s")
	p.waitDone()
	for _, r := range lab.Repros() {
		var disabled bool
		p.eval(fmt.Sprintf(`document.getElementById("repro-%s").disabled`, r.ID), &disabled)
		if disabled == (len(r.Missing) == 0) {
			t.Errorf("%s: disabled=%v, but its kernels available=%v", r.ID, disabled, (len(r.Missing) == 0))
		}
		if !(len(r.Missing) == 0) {
			var title string
			p.eval(fmt.Sprintf(`document.getElementById("repro-%s").title`, r.ID), &title)
			if !strings.Contains(title, strings.Join(r.Missing, ", ")) {
				t.Errorf("%s: tooltip %q does not name the missing kernels", r.ID, title)
			}
			continue
		}
		p.click("#repro-" + r.ID)
		p.poll(r.ID+"'s explanation", fmt.Sprintf(`(document.getElementById("repro-explain")||{}).textContent === %q`, r.Title+": "+strings.ReplaceAll(r.Explain, "`", "")), 10*time.Second)
		set := r.State.Form
		want := map[string]string{"#f-kernel": set["kernel"], "#b-kernel": r.State.B["kernel"], "#f-device": set["device"]}
		for _, k := range []string{"fs", "dd", "bs", "count", "cpus", "memory"} {
			want["#f-"+k] = set[k]
		}
		if r.State.Table != "" {
			want["#m-table"] = r.State.Table
		}
		for sel, v := range want {
			if got := p.value(sel); got != v {
				t.Errorf("%s: %s = %q, want %q", r.ID, sel, got, v)
			}
		}
		var fsync bool
		p.eval(`document.getElementById("f-fsync").checked`, &fsync)
		if fsync != (set["fsync"] == "on") {
			t.Errorf("%s: conv=fsync %v", r.ID, fsync)
		}
		var active bool
		p.eval(fmt.Sprintf(`document.getElementById("mode-%s").classList.contains("active")`, r.State.Mode), &active)
		if !active {
			t.Errorf("%s: mode %s not active", r.ID, r.State.Mode)
		}
		if r.State.Mode == "matrix" {
			var lines int
			p.eval(`document.getElementById("m-cases").value.trim().split("\n").length`, &lines)
			if lines != 24 {
				t.Errorf("%s: %d matrix cases, want T1's 24", r.ID, lines)
			}
		}
		if r.ID == "kara2016" { // quick enough to finish: A/B cards with the dd's time
			p.poll("Kara's A/B result", `!!document.querySelector("#card-dd_time .bv")`, 60*time.Second)
			p.shot("repro-kara2016")
		}
		p.click("#cancel")
		p.poll("the page idle after "+r.ID, `(s => /cancelled|^done|ready|failed/.test(s) || /matrix: (\d+) of \1 /.test(s + " "))(document.getElementById("status").textContent)`, 30*time.Second)
	}
}

// TestDocScreenshot writes the README's screenshot (the Chinner 2010 A/B) when
// WBLAB_DOC_SCREENSHOT names the output file: WBLAB_DOC_SCREENSHOT=$PWD/docs/lab.png.
func TestDocScreenshot(t *testing.T) {
	out := os.Getenv("WBLAB_DOC_SCREENSHOT")
	if out == "" {
		t.Skip("set WBLAB_DOC_SCREENSHOT to write docs/lab.png")
	}
	r, _ := lab.ReproByID("kara2016")
	if !(len(r.Missing) == 0) {
		t.Skip("the Kara 2016 kernels are not in the engine")
	}
	p := newPage(t)
	p.run(chromedp.EmulateViewport(1280, 860))
	p.open("#v=1&runtime=30s")
	p.waitDone()
	p.click("#repro-kara2016")
	p.poll("the A/B result", `!!document.querySelector("#card-write_bw .bv") && document.querySelectorAll("#charts canvas").length >= 4`, 60*time.Second)
	time.Sleep(300 * time.Millisecond)
	var buf []byte
	p.run(chromedp.CaptureScreenshot(&buf))
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes", out, len(buf))
}

// TestEngineMissingSaysSo serves the site without worker.wasm: the UI asks the engine
// worker for its catalog before it mounts, so the page must say it could not start
// (not stay on "Loading" or mount a form without presets).
func TestEngineMissingSaysSo(t *testing.T) {
	static := os.Getenv("WBLAB_STATIC")
	if static == "" {
		static = "../../static"
	}
	files := site.Handler(static)
	noEngine := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/worker.wasm") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer noEngine.Close()
	p := newPage(t)
	p.run(chromedp.Navigate(noEngine.URL + "/"))
	p.poll("the failure shown", `(document.getElementById("boot-status")||{textContent:""}).textContent.startsWith("Failed to start")`, 60*time.Second)
	got := p.text("#boot-status")
	if !strings.Contains(got, "engine worker") {
		t.Errorf("boot status %q does not say the engine worker failed", got)
	}
	p.shot("engine-missing")
	p.mu.Lock()
	p.bad = nil // the 404 and the failed compile are logged as errors, as they should
	p.mu.Unlock()
}
