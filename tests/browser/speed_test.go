//go:build !(js && wasm)

package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	cdperf "github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"
)

// speedSpy runs before the page's scripts: it records, in ms after navigation start,
// when the page first got a series chunk from a worker (window.__chunk), when the UI
// had mounted (window.__ui: the status line exists), when the first chart was drawn
// (window.__chart) and when the default case's first result card showed a value
// (window.__result).
func (p *page) speedSpy() {
	p.t.Helper()
	js := `(() => { window.__chunk = 0; window.__result = 0; window.__ui = 0; window.__chart = 0;
		const W = window.Worker;
		window.Worker = function (u, o) { const w = new W(u, o);
			w.addEventListener("message", (e) => { if (!window.__chunk && e.data && e.data.type === "chunk") window.__chunk = performance.now(); });
			return w; };
		window.Worker.prototype = W.prototype;
		const seen = () => { const a = document.querySelector("#card-write_bw .a");
			if (!window.__ui && document.getElementById("status")) window.__ui = performance.now();
			if (!window.__chart && document.querySelector("#charts canvas")) window.__chart = performance.now();
			if (!window.__result && a && a.textContent !== "") window.__result = performance.now(); };
		new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
	})();`
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
}

// clearCache empties the browser's HTTP cache (with the compiled code kept beside it).
func (p *page) clearCache() {
	p.t.Helper()
	p.run(network.ClearBrowserCache())
}

// firstTimes are a page load's moments, in ms after navigation start.
type firstTimes struct{ Chunk, UI, Chart, Result float64 }

func (f firstTimes) String() string {
	return fmt.Sprintf("first chunk %.0f ms, UI mounted %.0f ms, first chart %.0f ms, first result %.0f ms", f.Chunk, f.UI, f.Chart, f.Result)
}

// firstResult loads the default page and returns when its first chunk, its UI, its
// first chart and its first result arrived.
func (p *page) firstResult() firstTimes {
	p.t.Helper()
	p.open("")
	p.poll("the default case's first result", `window.__result > 0`, 60*time.Second)
	p.waitDone()
	var f firstTimes
	p.eval(`({Chunk: window.__chunk, UI: window.__ui, Chart: window.__chart, Result: window.__result})`, &f)
	return f
}

// progressUntil samples the progress bar's width every tick until the JS expression
// done is true (failing after within) and returns how often the bar moved forward.
func (p *page) progressUntil(what, done string, within, tick time.Duration) int {
	p.t.Helper()
	end := time.Now().Add(within)
	moved, last := 0, 0.0
	for {
		var w float64
		p.eval(`parseFloat(document.getElementById("progress").style.width) || 0`, &w)
		if w > last {
			moved++
		}
		last = w
		var finished bool
		p.eval(done, &finished)
		if finished {
			return moved
		}
		if time.Now().After(end) {
			p.t.Fatalf("%s unfinished after %v: %s", what, within, p.text("#status"))
		}
		time.Sleep(tick)
	}
}

// TestPageSpeed measures the lab's first-result figures (issues 7 and 16), reported,
// not asserted: the default case's first series chunk and first result card after
// navigation with an empty HTTP cache, then again warm (reload: HTTP cache and the
// compiled code kept with it).
func TestPageSpeed(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.clearCache()
	p.speedSpy()
	cold := p.firstResult()
	warm := p.firstResult()
	t.Logf("default case after navigation: cold %v; warm %v", cold, warm)
}

// TestPageSpeedMatrix runs Wu's T1 matrix (24 cases × 2 kernels, 600 s each) across
// the page's workers and reports its time and the page's worst timer stall, with the
// progress bar moving.
func TestPageSpeedMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("the T1 matrix takes a minute")
	}
	p := newPageTimeout(t, 6*time.Minute)
	p.open("")
	p.waitDone()
	p.run(cdperf.Enable())
	before := p.mainThread()
	start := time.Now()
	p.stallTimer()
	p.click("#repro-wu2011")
	p.poll("the matrix running", `document.getElementById("status").textContent.includes(" of 48")`, 30*time.Second)
	moved := p.progressUntil("the T1 matrix", `document.getElementById("status").textContent.includes("48 of 48")`, 5*time.Minute, 250*time.Millisecond)
	matrix := time.Since(start)
	main := p.mainThread() - before
	stall := p.stall()
	txt := p.text("#matrix-text")
	if !strings.Contains(txt, "TOTAL") || strings.Contains(txt, "error") {
		t.Errorf("T1 table:\n%s", txt)
	}
	if moved < 3 {
		t.Errorf("progress bar moved %d times during the matrix", moved)
	}
	p.shot("t1-matrix")
	var workers int
	p.eval(`navigator.hardwareConcurrency`, &workers)
	t.Logf("Wu T1 matrix (48 runs): %v, worst timer stall %.0f ms, progress bar moved %d times; the page's main thread busy %.1f s (%d cores)",
		matrix.Round(time.Millisecond), stall, moved, main, workers)
}

// mainThread is the page's main-thread task time so far, in seconds (CDP
// Performance.getMetrics TaskDuration: scripts, style, layout, paint; not workers).
func (p *page) mainThread() float64 {
	p.t.Helper()
	var s float64
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		ms, err := cdperf.GetMetrics().Do(ctx)
		for _, m := range ms {
			if m.Name == "TaskDuration" {
				s = m.Value
			}
		}
		return err
	}))
	return s
}

// TestEmbedLoadsModulesOnce opens a page with two embedded labs in an empty cache:
// both show results, and each module crosses the network once (the second frame
// gets it from the HTTP cache, at most revalidated with a 304).
func TestEmbedLoadsModulesOnce(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.clearCache()
	loads.reset()
	start := time.Now()
	p.run(chromedp.Navigate(srv.URL + "/embed-test.html"))
	for _, id := range []string{"lab1", "lab2"} {
		p.poll("a result in "+id, fmt.Sprintf(`(() => { const d = document.getElementById(%q).contentDocument;
			const s = d && d.getElementById("status"); return !!s && s.textContent.startsWith("done") && !!d.querySelector("#card-write_bw .a") })()`, id), 2*time.Minute)
	}
	took := time.Since(start)
	p.shot("embed-two-labs")
	for _, m := range []string{"main.wasm", "worker.wasm"} {
		if n := loads.get(m + " 200"); n != 1 {
			t.Errorf("%s transferred %d times for two embedded labs, want 1", m, n)
		}
	}
	enc := "none"
	for _, e := range []string{"br", "gzip"} {
		if loads.get(fmt.Sprintf("main.wasm encoding %q", e)) > 0 {
			enc = e
		}
	}
	t.Logf("two embedded labs done after %v; main.wasm 200×%d 304×%d, worker.wasm 200×%d 304×%d; Content-Encoding %s", took.Round(time.Millisecond),
		loads.get("main.wasm 200"), loads.get("main.wasm 304"), loads.get("worker.wasm 200"), loads.get("worker.wasm 304"), enc)
}
