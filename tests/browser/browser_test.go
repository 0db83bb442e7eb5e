//go:build !(js && wasm)

// Package browser drives the built lab (static/, from ./build.sh build) in headless
// Chromium through chromedp. Without Chromium the tests skip, unless CI is set.
package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/wblab/wblab/wasm/site"
)

var (
	srv        *httptest.Server
	base       string // the lab's URL: served under a sub-path, as on any static host
	computed   string // the lab without first.json and catalog.json (withoutPrecomputed)
	norefs     string // the lab without references.gz (withoutReferences)
	browserCtx context.Context
	artifacts  string
)

func findChromium() string {
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	chrome := findChromium()
	if chrome == "" {
		if os.Getenv("CI") == "" {
			fmt.Println("SKIP browser tests: no chromium on PATH (apt-get install -y chromium); they run when CI is set")
			return 0
		}
		fmt.Println("FAIL browser tests: CI is set but chromium is not installed")
		return 1
	}
	static, _ := filepath.Abs("../../static")
	if d := os.Getenv("WBLAB_STATIC"); d != "" { // another built site (before/after measurements)
		static, _ = filepath.Abs(d)
	}
	for _, f := range []string{"index.html", "main.wasm", "worker.wasm", "wasm_exec.js", "vendor/uPlot.iife.min.js"} {
		if _, err := os.Stat(filepath.Join(static, f)); err != nil {
			fmt.Printf("FAIL browser tests: static/%s missing; run ./build.sh build first\n", f)
			return 1
		}
	}
	artifacts = os.Getenv("WBLAB_ARTIFACTS")
	if artifacts == "" {
		artifacts = filepath.Join(os.TempDir(), "wblab-browser-artifacts")
	}
	_ = os.MkdirAll(artifacts, 0o755)
	mux := http.NewServeMux()
	mux.Handle("/some/path/lab/", http.StripPrefix("/some/path/lab/", loads.count(site.Handler(static))))
	// the same site without the build's precomputed first run and catalog
	// (first.json, catalog.json): the worker computes both
	mux.Handle("/computed/lab/", http.StripPrefix("/computed/lab/", withoutPrecomputed(site.Handler(static))))
	// the same site with the measured references' bundle missing (HTTP 404)
	mux.Handle("/norefs/lab/", http.StripPrefix("/norefs/lab/", withoutReferences(site.Handler(static))))
	mux.HandleFunc("/embed-test.html", embedTestPage)
	srv = httptest.NewServer(mux)
	defer srv.Close()
	base = srv.URL + "/some/path/lab/"
	computed = srv.URL + "/computed/lab/"
	norefs = srv.URL + "/norefs/lab/"

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
		chromedp.WindowSize(1400, 1000))
	// Chromium's start can fail once on a busy machine (its zygote or crashpad
	// handler racing another browser's exit): up to three tries, each reported.
	var err error
	for try := 1; try <= 3; try++ {
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		defer cancelA()
		bctx, cancelB := chromedp.NewContext(actx)
		defer cancelB()
		if err = chromedp.Run(bctx); err == nil { // starts the browser; no timeout on this context
			browserCtx = bctx
			break
		}
		fmt.Printf("browser tests: chromium did not start (try %d of 3): %v\n", try, err)
		cancelB()
		cancelA()
		time.Sleep(2 * time.Second)
	}
	if err != nil {
		fmt.Println("FAIL browser tests: cannot start chromium:", err)
		return 1
	}
	code := m.Run()
	fmt.Println("browser test screenshots in", artifacts)
	return code
}

// withoutPrecomputed answers 404 for first.json, catalog.json and first.html (and
// their siblings), as a site built without them would.
func withoutPrecomputed(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b := path.Base(r.URL.Path); strings.HasPrefix(b, "first.json") || strings.HasPrefix(b, "catalog.json") || strings.HasPrefix(b, "first.html") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// withoutReferences answers 404 for references.gz (a site copied without it).
func withoutReferences(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if path.Base(r.URL.Path) == "references.gz" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// loads counts the site's responses by path and status (the embed test: each module
// is transferred once).
var loads = &loadCounter{n: map[string]int{}}

type loadCounter struct {
	mu sync.Mutex
	n  map[string]int // "main.wasm 200", `main.wasm encoding "gzip"` -> responses
}

func (c *loadCounter) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		c.mu.Lock()
		c.n[fmt.Sprintf("%s %d", r.URL.Path, sw.code)]++
		c.n[fmt.Sprintf("%s encoding %q", r.URL.Path, w.Header().Get("Content-Encoding"))]++
		c.mu.Unlock()
	})
}

func (c *loadCounter) reset() { c.mu.Lock(); c.n = map[string]int{}; c.mu.Unlock() }

func (c *loadCounter) get(key string) int { c.mu.Lock(); defer c.mu.Unlock(); return c.n[key] }

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

// embedTestPage is a blog page with two labs in iframes (TestEmbedLoadsModulesOnce).
func embedTestPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html><title>two labs</title><p>First:</p>
<iframe id="lab1" src="some/path/lab/#v=1&embed=1&runtime=60s" width="700" height="500"></iframe><p>Second:</p>
<iframe id="lab2" src="some/path/lab/#v=1&embed=1&runtime=60s&fs=ext4" width="700" height="500"></iframe>`)
}

// page is one tab with console-error and foreign-request watchers.
type page struct {
	t   *testing.T
	ctx context.Context
	mu  sync.Mutex
	bad []string
}

func newPage(t *testing.T) *page { t.Helper(); return newPageTimeout(t, 90*time.Second) }

// newPageTimeout is newPage with the page's whole life bounded by d.
func newPageTimeout(t *testing.T, d time.Duration) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserCtx)
	ctx, cancelT := context.WithTimeout(ctx, d)
	p := &page{t: t, ctx: ctx}
	host := strings.TrimPrefix(srv.URL, "http://")
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value))
				}
				p.fail("console error: " + strings.Join(parts, " "))
			}
		case *runtime.EventExceptionThrown:
			p.fail("exception: " + e.ExceptionDetails.Text + " " + fmt.Sprint(e.ExceptionDetails.Exception))
		case *network.EventRequestWillBeSent:
			u, err := url.Parse(e.Request.URL)
			if err == nil && (u.Scheme == "http" || u.Scheme == "https" || u.Scheme == "ws" || u.Scheme == "wss") && u.Host != host {
				p.fail("request to another origin: " + e.Request.URL)
			}
		}
	})
	if err := chromedp.Run(ctx, network.Enable(), runtime.Enable()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.mu.Lock()
		for _, b := range p.bad {
			t.Error(b)
		}
		p.mu.Unlock()
		cancelT()
		cancel()
	})
	return p
}

func (p *page) fail(s string) {
	p.mu.Lock()
	p.bad = append(p.bad, s)
	p.mu.Unlock()
}

func (p *page) run(actions ...chromedp.Action) {
	p.t.Helper()
	if err := chromedp.Run(p.ctx, actions...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *page) eval(js string, out any) {
	p.t.Helper()
	p.run(chromedp.Evaluate(js, out))
}

// open loads the lab with a hash and waits for Vugu's first render.
func (p *page) open(hash string) {
	p.t.Helper()
	p.run(chromedpNavigate(base + hash))
}

// poll evaluates a JS boolean expression until true.
func (p *page) poll(what, js string, within time.Duration) {
	p.t.Helper()
	end := time.Now().Add(within)
	for {
		var ok bool
		if err := chromedp.Run(p.ctx, chromedp.Evaluate(js, &ok)); err == nil && ok {
			return
		}
		if time.Now().After(end) {
			var status string
			_ = chromedp.Run(p.ctx, chromedp.Evaluate(`(document.getElementById("status")||{}).textContent + " | " + Array.from(document.querySelectorAll(".err")).map(e=>e.textContent).join(" | ")`, &status))
			p.shot("timeout-" + p.t.Name())
			p.t.Fatalf("timed out waiting for %s (page: %s)", what, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (p *page) text(sel string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`(document.querySelector(%q)||{}).textContent||""`, sel), &s)
	return strings.TrimSpace(s)
}

func (p *page) value(sel string) string {
	p.t.Helper()
	var s string
	p.eval(fmt.Sprintf(`(document.querySelector(%q)||{}).value||""`, sel), &s)
	return s
}

// set types a value into a control and fires change, as a user would.
func (p *page) set(sel, v string) {
	p.t.Helper()
	p.present(sel)
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.value = %q;
		e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); return true })()`, sel, v), nil)
}

// present waits until sel is in the page, as a user waits for a control to
// appear: the page builds its form and views in mount stages (ui.Root.Stage).
func (p *page) present(sel string) {
	p.t.Helper()
	p.poll(sel, fmt.Sprintf(`!!document.querySelector(%q)`, sel), 10*time.Second)
}

func (p *page) click(sel string) {
	p.t.Helper()
	p.present(sel)
	p.eval(fmt.Sprintf(`document.querySelector(%q).click(), true`, sel), nil)
}

func (p *page) shot(name string) {
	var buf []byte
	if err := chromedp.Run(p.ctx, chromedp.FullScreenshot(&buf, 100)); err != nil {
		return
	}
	fn := filepath.Join(artifacts, strings.NewReplacer("/", "_", " ", "_").Replace(name)+".png")
	_ = os.WriteFile(fn, buf, 0o644)
}

// waitDone waits for the single run to finish and the charts to be drawn.
func (p *page) waitDone() {
	p.t.Helper()
	p.poll("a finished run", `(() => { const s = document.getElementById("status"); return !!s && s.textContent.startsWith("done") && !!document.querySelector("#card-write_bw .a") && document.querySelectorAll("#charts canvas").length >= 4 })()`, 60*time.Second)
}

// chromedpNavigate loads u and waits for Vugu's first render: the page's root has
// the id "lab" then (the first page's snapshot, first.html, shown before main.wasm
// mounts, has the mount point's id and no event handlers).
func chromedpNavigate(u string) chromedp.Action {
	return chromedp.Tasks{chromedp.Navigate(u), chromedp.WaitVisible("#lab", chromedp.ByID), chromedp.WaitVisible("#run", chromedp.ByID)}
}
