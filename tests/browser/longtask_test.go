//go:build !(js && wasm)

package browser

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

// LongTaskBound is the longest main-thread task the page may run during any
// activity (issue 35: no frozen page).
const LongTaskBound = 100.0 // ms

// longTaskSpy runs before the page's scripts: window.__lt collects every longtask
// (a main-thread task over 50 ms: start and duration, ms after navigation start).
func (p *page) longTaskSpy() {
	p.t.Helper()
	js := `(() => { window.__lt = []; window.__took = [];
		new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push({start: e.startTime, dur: e.duration}) })
			.observe({type: "longtask", buffered: true}); })();`
	p.run(chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := cdpage.AddScriptToEvaluateOnNewDocument(js).Do(ctx)
		return err
	}))
}

// now is the page's clock (ms after navigation start).
func (p *page) now() float64 {
	p.t.Helper()
	var t float64
	p.eval(`performance.now()`, &t)
	return t
}

// longestSince is the longest main-thread task that started at or after since, its
// start, and how many longtasks there were.
func (p *page) longestSince(since float64) (dur, at float64, n int) {
	p.t.Helper()
	var r struct {
		Dur, At float64
		N       int
	}
	p.eval(fmt.Sprintf(`(() => { let d = 0, a = 0, n = 0; for (const e of window.__lt || []) if (e.start >= %f) { n++; if (e.dur > d) { d = e.dur; a = e.start } }
		return {Dur: d, At: a, N: n} })()`, since), &r)
	return r.Dur, r.At, r.N
}

// took sums the page's steps (ui.Took) of the last load by name: count, total and
// longest, the longest first.
func (p *page) took() string {
	p.t.Helper()
	var rows []struct {
		Name           string
		N              int
		Total, Longest float64
	}
	p.eval(`(() => { const m = {}; const a = window.__took || [];
		for (let i = 0; i + 1 < a.length; i += 2) { const k = a[i].replace(/^draw chart-.*/, "draw a chart"); const r = m[k] || (m[k] = {Name: k, N: 0, Total: 0, Longest: 0});
			r.N++; r.Total += a[i+1]; r.Longest = Math.max(r.Longest, a[i+1]); }
		return Object.values(m).sort((x, y) => y.Longest - x.Longest).slice(0, 8) })()`, &rows)
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %s: %d, %.0f ms in all, longest %.0f ms\n", r.Name, r.N, r.Total, r.Longest)
	}
	return b.String()
}

// longTaskActivity is one thing a user does on the page, from start to finished.
type longTaskActivity struct {
	name string
	// do starts the activity and waits for its end
	do func(p *page)
}

// TestNoLongTasks: the page's main thread runs no task over LongTaskBound while it
// loads and while it runs a single run, an A/B with 5 seeds, a matrix and a sweep
// (issue 35; Chromium's longtask entries). It measures wall time, so it runs only
// alone (WBLAB_LONGTASK=1: ./build.sh test runs it after the other tests, with
// nothing else running), not beside the other packages' tests. A task over the
// bound is measured again (the activity repeated, three times at most): a task the
// machine's scheduler stretched once is not the page's; a task the page makes too
// long is too long every time.
func TestNoLongTasks(t *testing.T) {
	if os.Getenv("WBLAB_LONGTASK") == "" {
		t.Skip("a wall-time measurement: run alone with WBLAB_LONGTASK=1 (./build.sh test does, after the other tests)")
	}
	waitStatus := func(p *page, what, js string, d time.Duration) { p.poll(what, js, d) }
	acts := []longTaskActivity{
		{"cold load", func(p *page) {
			p.clearCache()
			p.run(chromedpNavigate(base))
			p.waitDone()
		}},
		{"warm load", func(p *page) {
			p.run(chromedpNavigate(base))
			p.waitDone()
		}},
		{"single run (600 s)", func(p *page) {
			p.run(chromedpNavigate(base + "#v=1&runtime=600s&seed=2"))
			p.waitDone()
		}},
		{"A/B with 5 seeds", func(p *page) {
			p.run(chromedpNavigate(base + "#v=1&case=thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X&kernel=3.1.0-rc9-ioless-full&runtime=60s&seed=1&mode=ab" +
				"&b.kernel=3.1.0-rc9-ioless-full-more_io_wait-5&seeds=5"))
			waitStatus(p, "the seed statistics", `(document.getElementById("seeds")||{textContent:""}).textContent.includes("paired by seed")`, 3*time.Minute)
			p.waitDone()
		}},
		{"matrix (8 runs)", func(p *page) {
			p.run(chromedpNavigate(base + "#v=1&runtime=60s&mode=matrix"))
			p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 10*time.Second)
			cases := []string{"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X",
				"thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X", "thresh=1G/generic-10dd-4k-8p-4096M-1024M:10-X"}
			p.set("#m-cases", strings.Join(cases, "\n"))
			p.click("#run")
			p.poll("all cells", `document.getElementById("status").textContent.includes("8 of 8")`, 2*time.Minute)
		}},
		{"sweep (24 runs)", func(p *page) {
			p.run(chromedpNavigate(base + "#v=1&kernel=3.1.0-rc9-ioless-full&runtime=30s&seed=1&mode=sweep"))
			p.poll("the sweep view", `!!document.getElementById("sweep")`, 30*time.Second)
			for _, fs := range []string{"ext3", "btrfs", "xfs"} {
				p.click("#sweep-fs-" + fs)
			}
			p.poll("24 runs planned", `document.getElementById("sweep-runs").textContent.includes("24 runs")`, 10*time.Second)
			p.click("#run")
			p.poll("every sweep run", `(document.getElementById("sweep-status")||{textContent:""}).textContent.includes("24 of 24 runs finished")`, 4*time.Minute)
		}},
	}
	p := newPageTimeout(t, 25*time.Minute)
	p.longTaskSpy()
	p.speedSpy()
	var report strings.Builder
	var over []string
	only := os.Getenv("WBLAB_LONGTASK_ONLY") // a part of an activity's name: only those
	for _, a := range acts {
		if only != "" && !strings.Contains(a.name, only) {
			continue
		}
		var tries []string
		best := 1e9
		for try := 0; try < 3 && best > LongTaskBound; try++ {
			p.run(chromedp.Navigate("about:blank"))
			start := time.Now()
			a.do(p)
			d, at, n := p.longestSince(0)
			tries = append(tries, fmt.Sprintf("%.0f ms at %.0f ms (%d over 50 ms, %v)", d, at, n, time.Since(start).Round(100*time.Millisecond)))
			best = min(best, d)
			tries[len(tries)-1] += "\n" + p.took()
			if strings.HasSuffix(a.name, "load") {
				var ui, chart float64
				p.eval(`window.__ui`, &ui)
				p.eval(`window.__chart`, &chart)
				tries[len(tries)-1] += fmt.Sprintf(", UI mounted %.0f ms, charts drawn %.0f ms", ui, chart)
			}
		}
		fmt.Fprintf(&report, "%-20s longest task %s\n", a.name, strings.Join(tries, "; again: "))
		if best > LongTaskBound {
			over = append(over, fmt.Sprintf("%s %.0f ms", a.name, best))
		}
	}
	t.Logf("longest main-thread task per activity:\n%s", report.String())
	if len(over) > 0 {
		t.Errorf("longest main-thread task over %.0f ms in: %s", LongTaskBound, strings.Join(over, ", "))
	}
}
