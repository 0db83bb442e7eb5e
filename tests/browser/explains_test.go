//go:build !(js && wasm)

package browser

// Issue 15's tests: each fails on the page before the issue (the problem it covers is
// named in its comment).

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/wblab/wblab/lab"
)

// viewport sets the tab's size (mobile below 500 px).
func (p *page) viewport(w, h int) {
	p.t.Helper()
	p.run(emulation.SetDeviceMetricsOverride(int64(w), int64(h), 1, w < 500))
}

// captureDownloads replaces the page's download helper with one that keeps the
// files in window.__dl (by name).
func (p *page) captureDownloads() {
	p.eval(`window.__dl = {}; window.wblab.download = (n, m, t) => { window.__dl[n] = t }; true`, nil)
}

// download clicks an export button and returns the one file it saved.
func (p *page) download(sel string) (name, text string) {
	p.t.Helper()
	p.eval(`window.__dl = {}; true`, nil)
	p.click(sel)
	p.poll("a download from "+sel, `Object.keys(window.__dl).length === 1`, 10*time.Second)
	var f struct{ N, T string }
	p.eval(`(() => { const n = Object.keys(window.__dl)[0]; return {N: n, T: window.__dl[n]} })()`, &f)
	return f.N, f.T
}

// Problem 1: a built-in matrix table sets both kernels, the runtime and the thread's
// other fields, and the table says when the run differs from the thread's setup.
func TestMatrixTableRunsTheThreadsKernels(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=10s&mode=matrix&dd=3")
	p.poll("the matrix controls", `!!document.getElementById("m-table")`, 20*time.Second)
	p.set("#m-table", "T2")
	t2, _ := lab.TableByName("T2")
	p.poll("B's kernel set to T2's test kernel", fmt.Sprintf(`document.getElementById("b-kernel").value === %q`, t2.Test), 10*time.Second)
	if got := p.value("#f-kernel"); got != t2.Base {
		t.Errorf("A's kernel %q, want T2's base %q", got, t2.Base)
	}
	if got := p.value("#f-runtime"); got == "10s" {
		t.Errorf("runtime still the leftover %q", got)
	}
	// a shorter run than the thread's: said plainly above the table
	p.set("#f-runtime", "2s")
	p.click("#run")
	// the table of the page's first matrix (default kernels, from the link) goes
	// when Run is pressed; the new one's header names T2's kernels
	var heads []string
	for end := time.Now().Add(20 * time.Second); ; {
		p.eval(`Array.from(document.querySelectorAll("#matrix-table th")).map(e => e.textContent)`, &heads)
		if len(heads) >= 3 && strings.HasPrefix(heads[2], t2.Test) || time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(heads) < 3 || heads[0] == heads[2] || !strings.HasPrefix(heads[0], t2.Base) || !strings.HasPrefix(heads[2], t2.Test) {
		t.Errorf("matrix header %q: want %s vs %s", heads, t2.Base, t2.Test)
	}
	p.poll("the setup warning", `!!document.getElementById("matrix-diffs")`, 10*time.Second)
	if w := p.text("#matrix-diffs"); !strings.Contains(w, "runtime 2s (thread: 10m0s)") {
		t.Errorf("setup warning %q", w)
	}
	p.click("#cancel")
}

// Problem 3: a new hash in an open tab (a pasted link) and Back apply their state.
func TestHashChangeApplies(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	p.eval(`location.hash = "#v=1&runtime=20s&dd=3"; true`, nil)
	p.poll("the pasted link's run", `document.getElementById("f-dd").value === "3" && document.getElementById("status").textContent.includes("3dd")`, 60*time.Second)
	p.waitDone()
	p.eval(`history.back(); true`, nil)
	p.poll("Back to the first state", `document.getElementById("f-dd").value === "1" && document.getElementById("status").textContent.includes("1dd")`, 60*time.Second)
}

// Problem 4: errors show in a summary next to Run (within the first screen), in human
// units, without the list of every device key.
func TestErrorsWhereTheUserLooks(t *testing.T) {
	for _, tc := range []struct {
		hash, want, not string
	}{
		{"#v=1&kernel=9.9", `"9.9" is not a kernel preset`, "presets: "},
		{"#v=1&runtime=100000h", "runtime: 100000 h is out of range 1 ms-24 h", "86400000000000"},
		{"#v=1&device=wu2011-hdd,seek_ms=5", `unknown key "seek_ms"`, "keys: "},
	} {
		t.Run(tc.hash, func(t *testing.T) {
			p := newPage(t)
			p.open(tc.hash)
			p.poll("the error summary", `!!document.getElementById("error-summary")`, 20*time.Second)
			s := p.text("#error-summary")
			if !strings.Contains(s, tc.want) || strings.Contains(s, tc.not) {
				t.Errorf("summary %q: want %q, not %q", s, tc.want, tc.not)
			}
			var visible bool
			p.eval(`(() => { const r = document.getElementById("error-summary").getBoundingClientRect(); return r.height > 0 && r.bottom <= innerHeight })()`, &visible)
			if !visible {
				t.Error("the error summary is not on the first screen")
			}
			if st := p.text("#status"); st == "ready" || !strings.Contains(st, "error") {
				t.Errorf("status %q", st)
			}
		})
	}
}

// Problem 5: exports cover what is on screen: A and B; the matrix as CSV, JSON and
// the harness's text.
func TestExportsCoverTheScreen(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s&mode=ab&b.v.scaled_chunk=off")
	p.poll("A/B results", `!!document.querySelector("#card-write_bw .bv")`, 60*time.Second)
	p.captureDownloads()
	_, js := p.download("#export-json")
	var ab map[string]struct {
		Case   string  `json:"case"`
		BW     float64 `json:"write_bw_MBps"`
		Series any     `json:"series"`
	}
	if err := json.Unmarshal([]byte(js), &ab); err != nil || ab["A"].BW == 0 || ab["B"].BW == 0 || ab["B"].Series == nil {
		t.Errorf("A/B JSON (%v): %.200s", err, js)
	}
	_, csv := p.download("#export-csv")
	if !strings.HasPrefix(csv, "run,time_s,") || !strings.Contains(csv, "\nB,") || !strings.Contains(csv, "\nA,") {
		t.Errorf("A/B CSV: %.200s", csv)
	}

	p.click("#mode-matrix")
	p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 10*time.Second)
	p.set("#m-cases", "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X\nthresh=100M/generic-2dd-4k-8p-4096M-100M:10-X")
	p.click("#run")
	p.poll("the matrix TOTAL", `document.getElementById("status").textContent.includes("4 of 4")`, 60*time.Second)
	_, mcsv := p.download("#export-csv")
	if !strings.HasPrefix(mcsv, "case,base_kernel,test_kernel,base_MBps") || strings.Count(mcsv, "generic-") != 2 {
		t.Errorf("matrix CSV:\n%s", mcsv)
	}
	_, mjs := p.download("#export-json")
	var m struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal([]byte(mjs), &m); err != nil || len(m.Rows) != 2 {
		t.Errorf("matrix JSON (%v): %.300s", err, mjs)
	}
	_, txt := p.download("#export-text")
	if !strings.Contains(txt, "TOTAL") || strings.TrimSpace(txt) != p.text("#matrix-text") {
		t.Errorf("harness text:\n%s\npage:\n%s", txt, p.text("#matrix-text"))
	}
}

// Problem 6: sizes are MiB and say so; the 2.6.30 kernel draws no v3.2-only series.
func TestNumbersSayWhatTheyAre(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s&kernel=2.6.30-rc6")
	p.waitDone()
	if u := p.text("#card-written .unit"); u != "MiB" {
		t.Errorf("written unit %q", u)
	}
	var legends []string
	p.eval(`Array.from(document.querySelectorAll("#charts .u-legend .u-series")).map(e => e.textContent)`, &legends)
	for _, l := range legends {
		for _, bad := range []string{"setpoint", "dirty_ratelimit", "balanced_ratelimit", "task_ratelimit"} {
			if strings.Contains(l, bad) {
				t.Errorf("2.6.30 draws %q (legend %q)", bad, l)
			}
		}
	}
}

// Problem 7: charts follow their box; the phone layout puts results first, folds the
// form and has no horizontal scroll; dense series are averaged; the embed fits 600×450
// with its explanation and a chart above the fold.
func TestLayoutFollowsTheWindow(t *testing.T) {
	p := newPage(t)
	p.viewport(1400, 1000)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	fits := `(() => { const c = document.querySelector("#chart-dirty canvas"), b = document.getElementById("box-chart-dirty");
		return !!c && c.getBoundingClientRect().width <= b.clientWidth && c.getBoundingClientRect().width >= 0.85 * b.clientWidth })()`
	p.viewport(1024, 900)
	p.poll("the chart to shrink with its box", fits+` && document.documentElement.scrollWidth <= innerWidth`, 10*time.Second)
	p.viewport(1400, 1000)
	p.poll("the chart to grow with its box", fits, 10*time.Second)
	// the sampling note is in the chart's words, not its title (issue 35)
	if sum := p.text("#sum-chart-wsi"); !strings.Contains(sum, "stands for") {
		t.Errorf("dense writeback_single_inode chart drawn raw: %q", sum)
	}

	p.viewport(390, 844)
	p.poll("the phone layout", `document.documentElement.scrollWidth <= innerWidth`, 10*time.Second)
	var order struct{ Results, Form, Fields float64 }
	p.eval(`({Results: document.getElementById("results").getBoundingClientRect().top, Form: document.getElementById("controls").getBoundingClientRect().top,
		Fields: document.getElementById("form-fields").getBoundingClientRect().height})`, &order)
	if order.Results > order.Form || order.Fields != 0 {
		t.Errorf("phone: results at %.0f, form at %.0f, form fields %.0f px high (want results first, form folded)", order.Results, order.Form, order.Fields)
	}
	p.shot("phone")

	q := newPage(t)
	q.viewport(600, 450)
	q.open("#v=1&embed=1&repro=chinner2010&case=thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X&runtime=20s")
	q.poll("an embedded chart", `!!document.querySelector("#charts canvas")`, 60*time.Second)
	var fold struct{ Chart, Explain float64 }
	q.eval(`({Chart: document.querySelector("#charts canvas").getBoundingClientRect().top, Explain: (document.getElementById("repro-explain")||{getBoundingClientRect: () => ({height: 0})}).getBoundingClientRect().height})`, &fold)
	if fold.Chart > 450-100 || fold.Explain == 0 {
		t.Errorf("embed 600×450: first chart at %.0f px, explanation %.0f px high", fold.Chart, fold.Explain)
	}
	var sw int
	q.eval(`document.documentElement.scrollWidth`, &sw)
	if sw > 600 {
		t.Errorf("embed scrolls sideways: %d px", sw)
	}
	q.shot("embed-600x450")
}

// Problem 8: Enter in the case box runs it; aria-live status, a progressbar, a text
// alternative per chart; dark mode; kernel and device descriptions; docs and source links.
func TestAccessibleAndDiscoverable(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	p.eval(`(() => { const e = document.getElementById("f-case"); e.value = "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X";
		e.dispatchEvent(new Event("change", {bubbles: true}));
		e.dispatchEvent(new KeyboardEvent("keydown", {key: "Enter", bubbles: true})); return true })()`, nil)
	p.poll("Enter to run the typed case", `document.getElementById("f-dd").value === "2" && document.getElementById("status").textContent.includes("generic-2dd")`, 60*time.Second)
	p.waitDone()
	var a11y struct {
		Live, Role string
		Now        string
		Charts     int
		Labelled   int
	}
	p.eval(`({Live: document.getElementById("status").getAttribute("aria-live"), Role: (document.querySelector("[role=progressbar]")||{getAttribute: () => ""}).getAttribute("role"),
		Now: (document.querySelector("[role=progressbar]")||{getAttribute: () => ""}).getAttribute("aria-valuenow"),
		Charts: document.querySelectorAll("#charts .chart.shown").length,
		Labelled: Array.from(document.querySelectorAll("#charts .chart.shown [role=img]")).filter(e => (e.getAttribute("aria-label")||"").length > 20).length})`, &a11y)
	if a11y.Live != "polite" || a11y.Role != "progressbar" || a11y.Now != "100" || a11y.Charts < 4 || a11y.Labelled != a11y.Charts {
		t.Errorf("accessibility %+v", a11y)
	}
	for _, id := range []string{"doc-kernel", "doc-device"} {
		if d := p.text("#" + id); len(d) < 20 {
			t.Errorf("%s: %q", id, d)
		}
	}
	var links []string
	p.eval(`Array.from(document.querySelectorAll("#link-docs, #link-source")).map(a => a.href)`, &links)
	if len(links) != 2 || !strings.HasPrefix(links[0], "https://") {
		t.Errorf("links %q", links)
	}
	var light, dark string
	p.eval(`getComputedStyle(document.body).backgroundColor`, &light)
	p.run(emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}))
	p.eval(`getComputedStyle(document.body).backgroundColor`, &dark)
	if light == dark {
		t.Errorf("dark mode: background %s in both", light)
	}
	p.shot("dark")
}

// Problem 2: charts draw while the run goes; the previous result stays (dimmed) until
// the new one replaces it; a changed form marks the results; Cancel keeps what was
// computed, marked "cancelled at t = …".
func TestChartsGrowAndCancelKeeps(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	p.set("#f-dd", "10")
	p.poll("the stale mark", `document.getElementById("cards").classList.contains("stale") && document.getElementById("run-note").textContent.includes("form has changed")`, 10*time.Second)
	p.set("#f-runtime", "2h")
	p.click("#run")
	var cards int
	p.eval(`document.querySelectorAll("#cards .card").length`, &cards)
	if cards == 0 {
		t.Error("the previous results vanished when the new run started")
	}
	p.poll("a chart of the running run", `document.getElementById("status").textContent.startsWith("running") &&
		!!document.querySelector("#chart-dirty canvas") && document.getElementById("run-note").textContent.startsWith("Running: t =")`, 60*time.Second)
	var t1, t2 float64
	p.eval(`parseFloat(document.getElementById("run-note").textContent.replace("Running: t = ", ""))`, &t1)
	p.poll("the chart to grow", fmt.Sprintf(`parseFloat(document.getElementById("run-note").textContent.replace("Running: t = ", "")) > %f`, t1+5), 60*time.Second)
	p.eval(`parseFloat(document.getElementById("run-note").textContent.replace("Running: t = ", ""))`, &t2)
	p.click("#cancel")
	p.poll("the cancelled mark", `document.getElementById("status").textContent.startsWith("cancelled at t = ")`, 20*time.Second)
	var kept int
	p.eval(chartPixels, &kept)
	if kept < 4 {
		t.Errorf("%d charts kept after Cancel", kept)
	}
	if n := p.text("#run-note"); !strings.HasPrefix(n, "Cancelled at t = ") {
		t.Errorf("note after Cancel %q", n)
	}
	p.shot("cancelled-partial")
	t.Logf("live run: t = %.1f s, then %.1f s; %s", t1, t2, p.text("#status"))
}

// Per-task and per-inode views (issue part 3): a 10dd run shows every dd and every
// inode's swim-lane of writeback lists.
func TestPerInodeTimeline(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=30s&dd=10")
	p.waitDone()
	// the view is filled in a task of its own after a render (ui.FillHTML), the
	// live run's first, then the finished run's: wait until it shows them all
	js := `(() => ({Tasks: document.querySelectorAll("#task-table tbody tr").length, Inodes: document.querySelectorAll("#inode-timeline .inode-row").length,
		Colors: new Set(Array.from(document.querySelectorAll("#inode-timeline svg.lane rect")).map(r => r.getAttribute("fill"))).size}))()`
	var n struct{ Tasks, Inodes, Colors int }
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		p.eval(js, &n)
		if n.Tasks == 10 && n.Inodes == 10 && n.Colors >= 2 {
			break
		}
	}
	if n.Tasks != 10 || n.Inodes != 10 || n.Colors < 2 {
		t.Errorf("detail view: %+v (want 10 tasks, 10 inode lanes, more than one list colour)", n)
	}
	if a := p.text("#card-data_age .a"); a == "" || a == "0.0" {
		t.Errorf("oldest dirty data card %q", a)
	}
}

// Explanations (issue part 2): every series in every chart and every card says what
// it is on hover (title) and in the "?" panel.
func TestEverySeriesExplained(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s&mode=ab&b.kernel=6.1")
	p.poll("A/B results", `!!document.querySelector("#card-write_bw .bv") && document.querySelectorAll("#charts .chart.shown canvas").length >= 4`, 60*time.Second)
	var missing []string
	p.eval(`(() => { const out = [];
		for (const box of document.querySelectorAll("#charts .chart.shown")) {
			const rows = Array.from(box.querySelectorAll(".u-legend .u-series")).slice(1);
			rows.forEach(r => { if (!r.title || r.title.length < 20) out.push(box.id + ": " + r.textContent) });
			const docs = box.querySelectorAll(".chart-docs dd");
			if (docs.length === 0 || Array.from(docs).some(d => d.textContent.length < 20)) out.push(box.id + ": no explanation list");
		}
		for (const c of document.querySelectorAll("#cards .card")) if (!c.title) out.push(c.id);
		return out })()`, &missing)
	if len(missing) > 0 {
		t.Errorf("without an explanation: %q", missing)
	}
	p.click("#q-data_age")
	p.poll("the help panel", `!!document.getElementById("help-panel") && document.getElementById("help-panel").textContent.includes("kupdate")`, 10*time.Second)
	p.click("#help-close")
	p.poll("the help panel closed", `!document.getElementById("help-panel")`, 10*time.Second)
	p.click("#q-kernel")
	p.poll("the kernel preset's help", `!!document.getElementById("help-panel") && document.getElementById("help-panel").textContent.includes("switches on")`, 10*time.Second)
	p.shot("explained")
}

// Trace viewer (issue part 4): filter by event, task and inode and search; a click on
// a chart moves the viewer to that time; a click on a line marks it on every chart;
// the kept trace spans the whole run (sampled).
func TestTraceViewer(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=30s&dd=2&trace=on")
	p.waitDone()
	p.poll("the trace viewer", `document.querySelectorAll("#trace-lines .tl").length > 10`, 20*time.Second)
	p.set("#trace-event", "writeback_single_inode")
	p.poll("the event filter", `Array.from(document.querySelectorAll("#trace-lines .tl")).every(l => l.textContent.includes(" writeback_single_inode: ")) && document.querySelectorAll("#trace-lines .tl").length > 0`, 10*time.Second)
	var ino string
	p.eval(`document.querySelector("#trace-lines .tl").textContent.match(/ino=(\d+)/)[1]`, &ino)
	p.set("#trace-ino", ino)
	p.poll("the inode filter", fmt.Sprintf(`Array.from(document.querySelectorAll("#trace-lines .tl")).every(l => l.textContent.includes(" ino=%s "))`, ino), 10*time.Second)
	p.set("#trace-event", "")
	p.set("#trace-ino", "")
	p.set("#trace-search", "balance_dirty_pages")
	p.poll("the search", `document.querySelectorAll("#trace-lines .tl").length > 0 && Array.from(document.querySelectorAll("#trace-lines .tl")).every(l => l.textContent.includes("balance_dirty_pages"))`, 10*time.Second)
	p.set("#trace-search", "")
	// the whole run, sampled: the kept lines reach the run's last seconds
	p.set("#trace-time", "25")
	p.poll("lines near the end of the run", `(() => { const l = document.querySelector("#trace-lines .tl"); return !!l && parseFloat(l.dataset.t) >= 25 && parseFloat(l.dataset.t) < 30 })()`, 10*time.Second)
	// a click in the middle of the dirty chart jumps the viewer there
	p.eval(`(() => { const o = document.querySelector("#chart-dirty .u-over"), r = o.getBoundingClientRect();
		const ev = (t) => new MouseEvent(t, {bubbles: true, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2});
		o.dispatchEvent(ev("mousemove")); o.dispatchEvent(ev("mousedown")); o.dispatchEvent(ev("mouseup")); o.dispatchEvent(ev("click")); return true })()`, nil)
	p.poll("the viewer at the chart's time", `(() => { const t = parseFloat(document.getElementById("trace-time").value); const l = document.querySelector("#trace-lines .tl");
		return t > 10 && t < 20 && !!l && parseFloat(l.dataset.t) >= t })()`, 10*time.Second)
	p.shot("trace-at-chart-time")
	// a click on a line marks its time on the charts
	var lt float64
	p.eval(`(() => { const l = document.querySelectorAll("#trace-lines .tl")[3]; l.click(); return parseFloat(l.dataset.t) })()`, &lt)
	p.poll("the marked time", fmt.Sprintf(`window.wblab.markT === %v && !!document.querySelector("#trace-lines .tl.marked")`, lt), 10*time.Second)
}

// Matrix tools (issue part 5): sort by delta, click a row to open it as A/B.
func TestMatrixRowOpens(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=20s&mode=matrix&b.v.scaled_chunk=off")
	p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 20*time.Second)
	p.set("#m-cases", "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X\nthresh=100M/generic-10dd-4k-8p-4096M-100M:10-X")
	p.click("#run")
	p.poll("the matrix", `document.getElementById("status").textContent.includes("4 of 4")`, 90*time.Second)
	p.set("#m-sort", "delta")
	var first string
	p.eval(`document.querySelector("#matrix-table tbody tr").dataset.case`, &first)
	p.click(`#matrix-table tr[data-case="thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X"]`)
	p.poll("the row's A/B", `!!document.querySelector("#card-write_bw .bv") && !!document.querySelector("#matrix-table tr.opened") && document.querySelectorAll("#charts canvas").length >= 4`, 90*time.Second)
	if s := p.text("#matrix-opened"); !strings.Contains(s, "generic-10dd") {
		t.Errorf("opened note %q", s)
	}
	if !strings.Contains(p.text("#card-kernel"), "scaled_chunk=off") {
		t.Errorf("the opened A/B's B is not the matrix's test kernel: %s", p.text("#card-kernel"))
	}
	t.Logf("sorted by delta, first row %s", first)
}

// The first page (issue part 6): no hash gives the guide (three sentences), the five
// stories as cards, a real filesystem, and the full form one click away.
func TestFirstPageTeaches(t *testing.T) {
	p := newPage(t)
	p.open("")
	p.waitDone()
	var g struct {
		Sentences, Stories int
		FormHidden         bool
	}
	p.eval(`({Sentences: document.querySelectorAll("#guide .intro p").length, Stories: document.querySelectorAll("#guide .story").length,
		FormHidden: getComputedStyle(document.getElementById("controls")).display === "none"})`, &g)
	if g.Sentences != 3 || g.Stories != len(lab.Repros()) || !g.FormHidden {
		t.Errorf("first page %+v", g)
	}
	if fs := p.text("#card-fs .a"); fs == "generic" || fs == "" {
		t.Errorf("first page filesystem %q", fs)
	}
	p.click("#show-lab")
	p.poll("the full form", `!document.getElementById("guide") && getComputedStyle(document.getElementById("controls")).display !== "none" && !!document.getElementById("f-dd")`, 10*time.Second)
}
