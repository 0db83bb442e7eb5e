//go:build !(js && wasm)

package browser

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	cdpage "github.com/chromedp/cdproto/page"
	cdperf "github.com/chromedp/cdproto/performance"
	cdruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// speedSpy runs before the page's scripts: it records, in ms after navigation start,
// when the page first got a series chunk from a worker (window.__chunk), when the
// first page's snapshot was shown (window.__snap), when the UI had mounted
// (window.__ui: Vugu's first render gave the root its id), when the first chart was drawn
// (window.__chart) and when the default case's first result card showed a value
// (window.__result); and a boot timeline (window.__marks: the modules compiled, each
// worker's first three messages of each type, the resources' fetch ends).
func (p *page) speedSpy() {
	p.t.Helper()
	js := `(() => { window.__chunk = 0; window.__result = 0; window.__ui = 0; window.__snap = 0; window.__chart = 0; window.__marks = {};
		const mark = (k) => { for (let i = 1; i <= 3; i++) { const n = i > 1 ? k + " " + i : k;
			if (!(n in window.__marks)) { window.__marks[n] = performance.now(); return; } } };
		const W = window.Worker; let nw = 0;
		window.Worker = function (u, o) { const w = new W(u, o); const n = nw++;
			w.addEventListener("message", (e) => { if (!window.__chunk && e.data && e.data.type === "chunk") window.__chunk = performance.now();
				if (e.data && e.data.type) mark("worker" + n + " " + e.data.type); });
			return w; };
		window.Worker.prototype = W.prototype;
		const cs = WebAssembly.compileStreaming, is = WebAssembly.instantiateStreaming;
		if (cs) WebAssembly.compileStreaming = function (...a) { const r = cs.apply(this, a); r.then(() => mark("compiled worker.wasm"), () => {}); return r; };
		if (is) WebAssembly.instantiateStreaming = function (...a) { const r = is.apply(this, a); r.then(() => mark("instantiated main.wasm"), () => {}); return r; };
		const seen = () => { const a = document.querySelector("#card-write_bw .a");
			if (!window.__ui && document.getElementById("lab")) window.__ui = performance.now();
			if (!window.__snap && document.querySelector(".snapshot #status")) window.__snap = performance.now();
			if (!window.__chart && document.querySelector("#charts canvas")) window.__chart = performance.now();
			if (!window.__result && a && a.textContent !== "") window.__result = performance.now(); };
		new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true, attributeFilter: ["id"] });
	})();`
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
}

// timeline is the boot marks of the last load (speedSpy), sorted by time, with the
// fetch end of each .wasm, .js, .json and .html resource, when the snapshot was shown
// and when the UI mounted.
func (p *page) timeline() string {
	p.t.Helper()
	var marks map[string]float64
	p.eval(`(() => { const m = Object.assign({}, window.__marks || {});
		for (const r of performance.getEntriesByType("resource")) { const n = r.name.split("/").pop();
			if (/\.(wasm|js|json|html)$/.test(n)) m["fetched " + n] = r.responseEnd; }
		if (window.__snap) m["snapshot shown"] = window.__snap; if (window.__ui) m["UI mounted"] = window.__ui;
		return m; })()`, &marks)
	keys := make([]string, 0, len(marks))
	for k := range marks {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return marks[keys[i]] < marks[keys[j]] })
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%6.0f %s\n", marks[k], k)
	}
	return b.String()
}

// clearCache empties the browser's HTTP cache (with the compiled code kept beside it).
func (p *page) clearCache() {
	p.t.Helper()
	p.run(network.ClearBrowserCache())
}

// firstTimes are a page load's moments, in ms after navigation start.
type firstTimes struct{ Chunk, Snap, UI, Chart, Result float64 }

func (f firstTimes) String() string {
	return fmt.Sprintf("first chunk %.0f ms, snapshot %.0f ms, UI mounted %.0f ms, first chart %.0f ms, first result %.0f ms", f.Chunk, f.Snap, f.UI, f.Chart, f.Result)
}

// firstResult loads the default page and returns when its first chunk, its UI, its
// first chart and its first result arrived.
func (p *page) firstResult() firstTimes { p.t.Helper(); return p.firstResultAt(base) }

// firstResultAt is firstResult for the lab at url.
func (p *page) firstResultAt(url string) firstTimes {
	p.t.Helper()
	p.run(chromedpNavigate(url))
	p.poll("the default case's first result", `window.__result > 0`, 60*time.Second)
	p.waitDone()
	var f firstTimes
	p.eval(`({Chunk: window.__chunk, Snap: window.__snap, UI: window.__ui, Chart: window.__chart, Result: window.__result})`, &f)
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
// compiled code kept with it); with the build's precomputed first run (first.json),
// then the same site without it and catalog.json, where the worker computes both
// (other URLs: its first load is cold for the HTTP cache).
func TestPageSpeed(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.clearCache()
	p.speedSpy()
	var lines []string
	for _, site := range []struct{ name, url string }{{"precomputed by the build", base}, {"computed in the worker (no first.json, catalog.json)", computed}} {
		for i := 0; i < 4; i++ {
			f := p.firstResultAt(site.url)
			load := "cold"
			if i > 0 { // Chromium keeps a module's compiled code from about the third load
				load = fmt.Sprintf("warm %d", i)
			}
			t.Logf("default case, %s, %s: %v", site.name, load, f)
			if i == 0 || i == 3 {
				lines = append(lines, fmt.Sprintf("%s, %s (ms):\n%s", site.name, load, p.timeline()))
			}
		}
	}
	t.Log(strings.Join(lines, "\n"))
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
	p.watchFrames()
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
	t.Logf("the longest animation frames (ms: frame = scripts + style and layout; the scripts by invoker):\n%s", p.longFrames(6))
}

// watchFrames records the page's long animation frames (Chromium's
// long-animation-frame entries, frames over 50 ms) from now on: what a stall is made of.
func (p *page) watchFrames() {
	p.t.Helper()
	p.eval(`window.__frames = []; if (window.__frameObs) window.__frameObs.disconnect();
		window.__frameObs = new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__frames.push({
			start: e.startTime, dur: e.duration, layout: e.styleAndLayoutStart ? e.startTime + e.duration - e.styleAndLayoutStart : 0,
			scripts: e.scripts.map((s) => ({ who: s.invoker, dur: s.duration, forced: s.forcedStyleAndLayoutDuration })) }) });
		window.__frameObs.observe({ type: "long-animation-frame" }); true`, nil)
}

// longFrames are the n longest frames watchFrames saw, one line each.
func (p *page) longFrames(n int) string {
	p.t.Helper()
	type script struct {
		Who         string
		Dur, Forced float64
	}
	var fs []struct {
		Start, Dur, Layout float64
		Scripts            []script
	}
	p.eval(`window.__frames || []`, &fs)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Dur > fs[j].Dur })
	var b strings.Builder
	fmt.Fprintf(&b, "%d frames over 50 ms\n", len(fs))
	for i, f := range fs {
		if i == n {
			break
		}
		fmt.Fprintf(&b, "at %.0f: %.0f (style and layout %.0f)", f.Start, f.Dur, f.Layout)
		for _, s := range f.Scripts {
			fmt.Fprintf(&b, "; %s %.0f", s.Who, s.Dur)
			if s.Forced > 0 {
				fmt.Fprintf(&b, " (forced layout %.0f)", s.Forced)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
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

// TestPrerenderIsTheWorkersRun: the first page shows the build's precomputed run
// (first.json, said in the status line and the wall-time card), and that file holds
// what the page's own engine worker posts for the first page's case: the same config,
// result, trace and series bits. Without first.json the worker computes the case.
func TestPrerenderIsTheWorkersRun(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("")
	p.waitDone()
	if s := p.text("#status"); !strings.Contains(s, "when the site was built") {
		t.Errorf("status %q does not say the result was computed by the build", s)
	}
	if w := p.text("#card-wall .a"); w != "–" {
		t.Errorf("wall-time card %q for a run the page did not time", w)
	}
	var cmp struct {
		Rows, Chunks                   int
		Config, Result, Trace, Data, N bool
		Bytes                          int
	}
	p.run(chromedp.Evaluate(`new Promise((resolve, reject) => {
		const w = wblab.newWorker(), parts = [];
		let cfg = "";
		w.onmessage = async (e) => { const d = e.data;
			if (d.type === "chunk") { parts.push(new Uint8Array(d.data.buffer, d.data.byteOffset, d.data.byteLength).slice()); if (d.from === 0) cfg = d.config; }
			if (d.type === "error") { reject(new Error(d.message)); }
			if (d.type !== "result") return;
			w.terminate();
			const f = await (await fetch("first.json")).json();
			const b = atob(f.data), n = parts.reduce((s, p) => s + p.length, 0);
			const all = new Uint8Array(n); let o = 0; for (const p of parts) { all.set(p, o); o += p.length; }
			let same = b.length === n; for (let i = 0; same && i < n; i++) same = b.charCodeAt(i) === all[i];
			resolve({Rows: f.rows, Chunks: parts.length, Config: f.config === cfg, Result: f.result === d.result,
				Trace: f.trace === d.trace, Data: same, N: n === 8 * f.rows * f.cols, Bytes: n}); };
		w.postMessage({type: "run", id: 7, default: true, stream: true});
	})`, &cmp, func(e *cdruntime.EvaluateParams) *cdruntime.EvaluateParams { return e.WithAwaitPromise(true) }))
	if !cmp.Config || !cmp.Result || !cmp.Trace || !cmp.Data || !cmp.N || cmp.Rows < 100 {
		t.Errorf("first.json is not the worker's run: %+v", cmp)
	}
	p.run(chromedpNavigate(computed))
	p.waitDone()
	if s := p.text("#status"); strings.Contains(s, "built") || !strings.Contains(s, " ms") {
		t.Errorf("without first.json, status %q", s)
	}
	t.Logf("first.json = the worker's run: %d rows in %d chunks, %d bytes of series; without it: %s", cmp.Rows, cmp.Chunks, cmp.Bytes, p.text("#status"))
}

// TestCatalogIsTheWorkersAnswer: the build's catalog.json is what the page's engine
// worker answers to the catalog question, byte for byte, and a page without it asks the
// worker and mounts the same form.
func TestCatalogIsTheWorkersAnswer(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("")
	p.waitDone()
	var cmp struct {
		Same  bool
		Bytes int
	}
	p.run(chromedp.Evaluate(`new Promise((resolve, reject) => {
		const w = wblab.newWorker();
		w.onmessage = async (e) => { const d = e.data;
			if (d.type !== "answer") return;
			w.terminate();
			if (!d.answer) { reject(new Error(d.message)); return; }
			const f = await (await fetch("catalog.json")).text();
			resolve({Same: f === d.answer, Bytes: f.length}); };
		w.postMessage({type: "ask", id: 9, kind: "catalog", req: "null"});
	})`, &cmp, func(e *cdruntime.EvaluateParams) *cdruntime.EvaluateParams { return e.WithAwaitPromise(true) }))
	if !cmp.Same || cmp.Bytes < 1000 {
		t.Errorf("catalog.json is not the worker's answer: %+v", cmp)
	}
	form := func() string {
		var s string
		p.eval(`Array.from(document.querySelectorAll("#f-fs option, #f-kernel option, #f-device option")).map(o => o.value).join(",")`, &s)
		return s
	}
	p.click("#show-lab")
	p.poll("the full form", `!!document.getElementById("f-dd")`, 10*time.Second)
	withFile := form()
	p.run(chromedpNavigate(computed))
	p.waitDone()
	p.click("#show-lab")
	p.poll("the full form", `!!document.getElementById("f-dd")`, 10*time.Second)
	if asked := form(); asked != withFile || withFile == "" {
		t.Errorf("the form's options with catalog.json %q, asked of the worker %q", withFile, asked)
	}
	t.Logf("catalog.json = the worker's answer (%d bytes)", cmp.Bytes)
}

// TestMatrixResultsWithoutRender: while a matrix runs, a result that leaves the
// page's shape as it was is written into the table without a render of the page
// (ui.MatrixView.patch, static/lab.js patchMatrix), and what it writes is what the
// page's render writes: every row finished at a patch shows the same texts in the
// table the final render leaves.
func TestMatrixResultsWithoutRender(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("#v=1&runtime=600s&mode=matrix")
	p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 10*time.Second)
	var cases []string
	for _, n := range []string{"1dd", "2dd", "10dd"} {
		for _, th := range []string{"100M", "1G"} {
			cases = append(cases, fmt.Sprintf("thresh=%s/generic-%s-4k-8p-4096M-%s:10-X", th, n, strings.Replace(th, "1G", "1024M", 1)))
		}
	}
	p.set("#m-cases", strings.Join(cases, "\n"))
	p.eval(`(() => { window.__renders = 0; window.__patches = 0; window.__seen = {}; let busy = false;
		const r = window.vuguRender; window.vuguRender = function () { if (!busy) { busy = true; window.__renders++; setTimeout(() => busy = false, 0); } return r.apply(this, arguments); };
		const row = (tr) => Array.from(tr.children).map((td) => td.textContent).join(" | ");
		const pm = window.wblab.patchMatrix; window.wblab.patchMatrix = function (j) { const ok = pm.call(this, j); if (ok) { window.__patches++;
			for (const tr of document.querySelectorAll("#matrix-table > tbody > tr.mrow")) if (!/…/.test(tr.textContent)) window.__seen[tr.dataset.case] = row(tr); }
			return ok; };
		return true; })()`, nil)
	p.click("#run")
	total := 2 * len(cases)
	p.poll("all cells", fmt.Sprintf(`document.getElementById("status").textContent.includes("%d of %d")`, total, total), 2*time.Minute)
	var renders, patches int
	var seen, final map[string]string
	p.eval(`window.__renders`, &renders)
	p.eval(`window.__patches`, &patches)
	p.eval(`window.__seen`, &seen)
	p.eval(`(() => { const m = {}; for (const tr of document.querySelectorAll("#matrix-table > tbody > tr.mrow"))
		m[tr.dataset.case] = Array.from(tr.children).map((td) => td.textContent).join(" | "); return m; })()`, &final)
	t.Logf("%d results: %d written without a render, %d renders; rows seen finished at a patch: %d", total, patches, renders, len(seen))
	require.Positive(t, patches, "no result was written without a render")
	require.Less(t, renders, total, "a render per result")
	require.NotEmpty(t, seen)
	for c, row := range seen {
		require.Equal(t, final[c], row, "row %s: the patch's texts and the render's", c)
	}
	require.Len(t, final, len(cases))
}

// TestSnapshotIsTheFirstRender: the first page's snapshot (first.html) is shown
// before main.wasm mounts, with the precomputed result's cards; Vugu's first render
// keeps its elements (it matches them by position): it removes none, adds only the
// charts' (uPlot), the views the page writes itself (class "filled": ui.FillHTML)
// and what no one sees (the first page's hidden form, which later mount stages add:
// ui.Root.Stage), and changes no text of the snapshot but the status line's. Without
// first.html the page mounts as before.
func TestSnapshotIsTheFirstRender(t *testing.T) {
	p := newPage(t)
	js := `(() => { window.__mut = { shown: 0, cards: "", added: [], removed: [], texts: [] };
		const inChart = (n) => { for (let e = n.nodeType === 1 ? n : n.parentElement; e; e = e.parentElement) if (e.classList && (e.classList.contains("uplot") || e.classList.contains("chart") || e.classList.contains("filled"))) return true;
			for (let e = n.nodeType === 1 ? n.parentElement : n.parentElement; e; e = e.parentElement) if (getComputedStyle(e).display === "none") return true; // unseen: the form, added in mount stages
			return false; };
		const name = (n) => n.nodeType === 1 ? n.tagName.toLowerCase() + (n.id ? "#" + n.id : "") + (n.className && typeof n.className === "string" ? "." + n.className.split(" ").join(".") : "") : "#text " + JSON.stringify((n.textContent || "").slice(0, 40));
		new MutationObserver((ms) => { const m = window.__mut;
			const root = document.querySelector(".snapshot");
			if (!m.shown && root) { m.shown = performance.now(); m.cards = (document.getElementById("cards") || {}).textContent || ""; return; }
			if (!m.shown) return;
			for (const r of ms) {
				if (r.type === "childList") {
					if (r.target === document.body || inChart(r.target)) continue;
					const ws = (n) => n.nodeType === 3 && n.data.trim() === ""; // a merged whitespace text split
					for (const n of r.addedNodes) if (!inChart(n) && !ws(n)) m.added.push(name(n) + " in " + name(r.target));
					for (const n of r.removedNodes) if (!ws(n)) m.removed.push(name(n) + " from " + name(r.target));
				} else if (r.type === "characterData" && r.target.parentElement && r.target.parentElement.id !== "status" && !inChart(r.target) && r.target.data.trim() !== r.oldValue.trim()) m.texts.push(name(r.target.parentElement) + ": " + JSON.stringify(r.oldValue) + " -> " + JSON.stringify(r.target.data));
			}
		}).observe(document, { subtree: true, childList: true, characterData: true, characterDataOldValue: true });
	})();`
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
	p.open("")
	p.waitDone()
	var m struct {
		Shown                 float64
		Cards                 string
		Added, Removed, Texts []string
	}
	p.eval(`window.__mut`, &m)
	require.NotZero(t, m.Shown, "no snapshot shown")
	require.Contains(t, m.Cards, "MiB/s", "the snapshot's cards have no write_bw")
	assert.Equal(t, strings.Join(strings.Fields(m.Cards), " "), strings.Join(strings.Fields(p.text("#cards")), " "), "the snapshot's cards are the page's")
	assert.Empty(t, m.Removed, "Vugu's first render removed nodes of the snapshot")
	assert.Empty(t, m.Added, "Vugu's first render added nodes outside the charts")
	assert.Empty(t, m.Texts, "Vugu's first render changed texts of the snapshot")
	t.Logf("snapshot shown at %.0f ms; the first render removed %d nodes, added %d outside the charts, changed %d texts", m.Shown, len(m.Removed), len(m.Added), len(m.Texts))
	p.shot("snapshot-mounted")

	q := newPage(t) // without first.html (and the precomputed run): no snapshot
	q.run(chromedpNavigate(computed))
	q.waitDone()
	var snap bool
	q.eval(`!!document.querySelector(".snapshot")`, &snap)
	assert.False(t, snap)
}
