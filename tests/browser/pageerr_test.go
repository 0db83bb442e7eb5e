//go:build !(js && wasm)

package browser

// Issue 35 items 1 and 4, the page's side: every input error shows after one edit
// each (no Run), a disk that fills says so, a failed run shows its short message with
// the details folded.

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	cdpage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// docsDir is where the screenshots are kept (docs/issue35).
const docsDir = "../../docs/issue35"

// keepShot saves the viewport (full: the whole page) as docs/issue35/NAME.png.
func (p *page) keepShot(name string, full bool) {
	p.t.Helper()
	var buf []byte
	act := chromedp.CaptureScreenshot(&buf)
	if full {
		act = chromedp.FullScreenshot(&buf, 100) // 100: PNG
	}
	if err := chromedp.Run(p.ctx, act); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(docsDir, 0o755); err == nil {
		_ = os.WriteFile(docsDir+"/"+name+".png", buf, 0o644)
	}
}

// keepShotOf saves one element as docs/issue35/NAME.png.
func (p *page) keepShotOf(sel, name string) {
	p.t.Helper()
	var buf []byte
	if err := chromedp.Run(p.ctx, chromedp.Screenshot(sel, &buf, chromedp.ByQuery)); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.MkdirAll(docsDir, 0o755); err == nil {
		_ = os.WriteFile(docsDir+"/"+name+".png", buf, 0o644)
	}
}

// TestEveryInputErrorAtOnce: four bad inputs (dd=-3, dirty_bytes=abc, memory=0,
// runtime=99999h) show four errors, one next to each field, after one edit each and
// without Run; the summary by Run lists four; the status is not a stale "done"; the
// case box says why it has no name. Before: one error per press of Run, four presses.
func TestEveryInputErrorAtOnce(t *testing.T) {
	bad := [][2]string{{"dd", "-3"}, {"dirty_bytes", "abc"}, {"memory", "0"}, {"runtime", "99999h"}}
	for _, w := range [][2]int{{1400, 1000}, {390, 844}} {
		t.Run(fmt.Sprintf("%d", w[0]), func(t *testing.T) {
			p := newPage(t)
			p.viewport(w[0], w[1])
			p.open("#v=1&runtime=30s")
			p.waitDone()
			for _, b := range bad {
				p.set("#f-"+b[0], b[1])
			}
			errs := `["dd","dirty_bytes","memory","runtime"].filter(f => !!document.getElementById("err-" + f)).length`
			var n int
			end := time.Now().Add(15 * time.Second)
			for time.Now().Before(end) {
				p.eval(errs, &n)
				if n == 4 {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			var got struct {
				Summary      int
				Status, Case string
				Placeholder  string
				Note         string
				Texts        []string
			}
			p.eval(`({Summary: document.querySelectorAll("#error-summary button").length,
				Status: document.getElementById("status").textContent, Case: document.getElementById("f-case").value,
				Placeholder: document.getElementById("f-case").placeholder,
				Note: (document.getElementById("case-note")||{}).textContent || "",
				Texts: Array.from(document.querySelectorAll("#error-summary button")).map(e => e.textContent)})`, &got)
			t.Logf("%d field errors, summary %d: %q; status %q; case box %q (placeholder %q)", n, got.Summary, got.Texts, got.Status, got.Case, got.Placeholder)
			if n != 4 {
				t.Errorf("%d of 4 fields show an error", n)
			}
			if got.Summary != 4 {
				t.Errorf("the summary lists %d errors, want 4: %q", got.Summary, got.Texts)
			}
			if strings.HasPrefix(got.Status, "done") || !strings.HasPrefix(got.Status, "not run: ") {
				t.Errorf("status %q with input errors", got.Status)
			}
			if got.Case != "" || !strings.HasPrefix(got.Placeholder, "no case name: ") {
				t.Errorf("case box %q, placeholder %q, note %q: want why it has no name", got.Case, got.Placeholder, got.Note)
			}
			// a summary line goes to its field
			p.eval(`(() => { const b = Array.from(document.querySelectorAll("#error-summary button")).find(e => e.dataset.target === "f-memory"); if (b) b.click(); return true })()`, nil)
			p.poll("the memory field focused", `document.activeElement && document.activeElement.id === "f-memory"`, 5*time.Second)
			p.eval(`window.scrollTo(0, 0), true`, nil)
			p.keepShot(fmt.Sprintf("four-errors-%d", w[0]), w[0] == 1400)
			// one fix: the other three stay, the status does not go back to "done"
			p.set("#f-dd", "2")
			p.poll("the dd error gone", `!document.getElementById("err-dd")`, 10*time.Second)
			time.Sleep(time.Second)
			p.eval(errs, &n)
			if s := p.text("#status"); n != 3 || strings.HasPrefix(s, "done") {
				t.Errorf("after fixing dd: %d errors, status %q (want 3, not done)", n, s)
			}
		})
	}
}

// TestDiskFullShown: a 1 GiB disk with 2 dd fills; the results say when and who got
// ENOSPC, each dd row says it exited with ENOSPC, and the "disk full at" card
// explains itself. (A one-disk run has no per-disk cards: TestDiskCardsFull.)
func TestDiskFullShown(t *testing.T) {
	for _, w := range [][2]int{{1400, 1000}, {390, 844}} {
		t.Run(fmt.Sprintf("%d", w[0]), func(t *testing.T) {
			p := newPage(t)
			p.viewport(w[0], w[1])
			p.open("#v=1&runtime=60s")
			p.waitDone()
			p.set("#f-dd", "2")
			p.set(`[id="f-dev.capacity"]`, "1G")
			time.Sleep(500 * time.Millisecond)
			p.click("#run")
			p.poll("the full-disk line", `(document.getElementById("full-disks")||{}).textContent.includes("full at") && (document.getElementById("status")||{}).textContent.startsWith("done")`, 120*time.Second)
			line := p.text("#full-disks")
			t.Logf("full-disk line: %q", line)
			if !strings.Contains(line, "Disk 8:0 full at") || !strings.Contains(line, "2 dd exited with ENOSPC") {
				t.Errorf("full-disk line %q", line)
			}
			if c := p.text("#card-full"); !strings.Contains(c, "disk full at") {
				t.Errorf("no 'disk full at' card: %q", c)
			}
			var tip string
			p.eval(`(document.getElementById("card-full")||{}).title || ""`, &tip)
			if !strings.Contains(tip, "ENOSPC") {
				t.Errorf("the full card's explanation: %q", tip)
			}
			// the task table is filled in a task of its own after the render (ui.FillHTML)
			p.poll("the task rows", `document.querySelectorAll("#task-table .task-exit").length >= 2`, 20*time.Second)
			var exits []string
			p.eval(`Array.from(document.querySelectorAll("#task-table .task-exit")).map(e => e.textContent.trim())`, &exits)
			t.Logf("task rows: %q", exits)
			if len(exits) != 2 || !strings.HasPrefix(exits[0], "exited with ENOSPC after") {
				t.Errorf("task rows' exits %q, want 2 'exited with ENOSPC after'", exits)
			}
			p.eval(`window.scrollTo(0, 0), true`, nil)
			p.keepShot(fmt.Sprintf("disk-full-%d", w[0]), false)
			if w[0] == 1400 {
				p.keepShotOf("#detail .detail-tasks", "disk-full-tasks-1400")
			}
		})
	}
}

// failNextResult runs before the page's scripts: while window.__failNext is set, the
// next run's "result" from a worker reaches the page as the "error" the worker posts
// for an invariant failure (short line, then the config). The engine has no hook to
// force an invariant failure; this checks the page's side of that message.
func (p *page) failNextResult() {
	p.t.Helper()
	js := `(() => { const W = window.Worker; const d = Object.getOwnPropertyDescriptor(W.prototype, "onmessage");
		window.Worker = function (u, o) { const w = new W(u, o);
			Object.defineProperty(w, "onmessage", { configurable: true, set(f) { d.set.call(w, (ev) => {
				const m = ev.data;
				if (window.__failNext && m && m.type === "result") { window.__failNext = false;
					return f({data: {type: "error", id: m.id, message: "invariant test-forced: 3 pages > 2 pages (at t=12.500000s, seed 1)\nconfig {\"runtime\":\"30s\"}"}}); }
				return f(ev); }); }, get() { return d.get.call(w); } });
			return w; };
		window.Worker.prototype = W.prototype; })();`
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
}

// TestRunFailureShown: a failed run shows its short message in the status line and
// the results, the details in a closed fold; the status does not say "running".
func TestRunFailureShown(t *testing.T) {
	p := newPage(t)
	p.failNextResult()
	p.open("#v=1&runtime=30s")
	p.waitDone()
	p.eval(`window.__failNext = true`, nil)
	p.click("#run")
	p.poll("the failure", `!!document.getElementById("run-failures")`, 60*time.Second)
	time.Sleep(500 * time.Millisecond)
	var got struct {
		Status, Msg, Details string
		Open                 bool
		Note                 string
	}
	p.eval(`({Status: document.getElementById("status").textContent, Msg: document.querySelector("#run-failures .err").textContent,
		Details: (document.querySelector("#run-failures details pre")||{}).textContent || "",
		Open: !!(document.querySelector("#run-failures details")||{}).open,
		Note: (document.getElementById("run-note")||{}).textContent || ""})`, &got)
	t.Logf("%+v", got)
	if !strings.HasPrefix(got.Status, "run failed: invariant test-forced") || strings.Contains(strings.ToLower(got.Status), "running") {
		t.Errorf("status %q", got.Status)
	}
	if !strings.Contains(got.Msg, "invariant test-forced: 3 pages > 2 pages (at t=12.500000s, seed 1)") || strings.Contains(got.Msg, "config") {
		t.Errorf("short message %q", got.Msg)
	}
	if got.Open || !strings.HasPrefix(got.Details, "config {") {
		t.Errorf("details fold: open %v, %q", got.Open, got.Details)
	}
	if strings.HasPrefix(got.Note, "Running") {
		t.Errorf("run note %q under a failure", got.Note)
	}
	p.keepShot("run-failed-1400", false)
}
