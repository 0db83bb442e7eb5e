//go:build !(js && wasm)

package browser

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/lab"
)

const chartPixels = `(() => { let n = 0;
	for (const c of document.querySelectorAll("#charts canvas")) {
		const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data; let k = 0;
		for (let i = 3; i < d.length; i += 4) if (d[i]) k++;
		if (k > 500) n++;
	} return n })()`

func TestDefaultCaseRenders(t *testing.T) {
	p := newPage(t)
	p.open("")
	p.waitDone()
	bw := p.text("#card-write_bw .a")
	if bw == "" || bw == "0.00" {
		t.Fatalf("write_bw card %q", bw)
	}
	var drawn int
	p.eval(chartPixels, &drawn)
	if drawn < 4 {
		t.Errorf("%d charts have drawn pixels, want >= 4", drawn)
	}
	var legends int
	p.eval(`document.querySelectorAll("#charts .u-legend .u-series").length`, &legends)
	if legends < 10 {
		t.Errorf("%d legend entries", legends)
	}
	p.shot("default")
	t.Logf("default case write_bw %s MB/s, %d charts drawn", bw, drawn)
}

func TestFormChangesResults(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=60s")
	p.waitDone()
	before := p.text("#cards")
	var nfs int
	p.eval(`document.querySelectorAll("#f-fs option").length`, &nfs)
	if nfs > 1 { // change the filesystem too when the engine models more than one
		p.eval(`(() => { const s = document.querySelector("#f-fs"); return s.options[(s.selectedIndex+1) % s.options.length].value })()`, new(string))
		var next string
		p.eval(`(() => { const s = document.querySelector("#f-fs"); return s.options[(s.selectedIndex+1) % s.options.length].value })()`, &next)
		p.set("#f-fs", next)
	}
	p.set("#f-dd", "10")
	p.click("#run")
	p.poll("the 10dd run", `document.getElementById("status").textContent.includes("10dd")`, 60*time.Second)
	p.waitDone()
	after := p.text("#cards")
	if after == before {
		t.Fatalf("results unchanged after dd=10: %s", after)
	}
	if got := p.value("#f-case"); !strings.Contains(got, "-10dd-") {
		t.Errorf("case box %q does not follow the form", got)
	}
	p.shot("dd10")
}

func TestHashRestoresAndReproduces(t *testing.T) {
	hash := "#v=1&case=thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X&runtime=90s&seed=5&expire=1500&count=20000&v.scaled_chunk=off"
	p := newPage(t)
	p.open(hash)
	p.waitDone()
	for sel, want := range map[string]string{"#f-dd": "2", "#f-runtime": "90s", "#f-seed": "5", "#f-expire": "1500", "#f-count": "20000", "#f-v\\.scaled_chunk": "off", "#f-bs": "4k"} {
		if got := p.value(sel); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	bw := p.text("#card-write_bw .a")

	// the same config natively gives the same write_bw (wasm and native agree)
	st, ferr := lab.DecodeHash(hash)
	if ferr != nil {
		t.Fatal(ferr)
	}
	cfg, ferr := lab.FormConfig(st.Form)
	if ferr != nil {
		t.Fatal(ferr)
	}
	res, err := engine.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("%.2f", res.WriteBWMBps); bw != want {
		t.Errorf("write_bw in the page %s, native %s", bw, want)
	}

	// Share gives a link that reproduces it in a fresh tab
	p.click("#share")
	p.poll("the share link", `!!document.getElementById("share-text")`, 10*time.Second)
	link := p.value("#share-text")
	if !strings.Contains(link, "#v=1&case=") {
		t.Fatalf("share link %q", link)
	}
	q := newPage(t)
	q.run(chromedpNavigate(link))
	q.waitDone()
	if got := q.text("#card-write_bw .a"); got != bw {
		t.Errorf("shared link write_bw %s, want %s", got, bw)
	}
}

func TestABAndMatrix(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=60s&mode=ab&b.v.scaled_chunk=off")
	p.poll("A/B results", `!!document.querySelector("#card-write_bw .bv") && document.querySelectorAll("#charts canvas").length >= 4`, 60*time.Second)
	if d := p.text("#card-write_bw .delta"); !strings.HasSuffix(d, "%") {
		t.Errorf("A/B delta %q", d)
	}
	var series int
	p.eval(`document.querySelectorAll("#chart-dirty .u-legend .u-series").length`, &series)
	if series < 5 {
		t.Errorf("overlay chart has %d legend rows", series)
	}
	p.shot("ab")

	p.click("#mode-matrix")
	p.poll("the matrix controls", `!!document.getElementById("m-cases")`, 10*time.Second)
	p.set("#f-runtime", "600s")
	cases := []string{"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X",
		"thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X", "thresh=1G/generic-10dd-4k-8p-4096M-1024M:10-X"}
	p.set("#m-cases", strings.Join(cases, "\n"))
	// a timer in the page: the worst gap between 10 ms ticks, idle (the machine's noise
	// floor) and while the sweep runs
	p.stallTimer()
	time.Sleep(time.Second)
	idle := p.stall()
	p.stallTimer()
	start := time.Now()
	p.click("#run")
	p.poll("the TOTAL row", `document.getElementById("matrix-text") && document.getElementById("matrix-text").textContent.includes("TOTAL") && !document.getElementById("status").textContent.includes(" 0 of")`, 90*time.Second)
	p.poll("all cells", fmt.Sprintf(`document.getElementById("status").textContent.includes("%d of %d")`, 2*len(cases), 2*len(cases)), 90*time.Second)
	stall := p.stall()
	txt := p.text("#matrix-text")
	if strings.Contains(txt, "error") || strings.Count(txt, "%") < len(cases)+1 {
		t.Errorf("matrix table:\n%s", txt)
	}
	p.shot("matrix")
	t.Logf("matrix of %d runs in %v; worst timer stall %.0f ms (idle page: %.0f ms)\n%s", 2*len(cases), time.Since(start).Round(time.Millisecond), stall, idle, txt)
}

func TestInvalidInputRunsNothing(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=30s")
	p.waitDone()
	status := p.text("#status")
	p.set("#f-dd", "0")
	p.click("#run")
	p.poll("the dd error", `!!document.getElementById("err-dd")`, 10*time.Second)
	if e := p.text("#err-dd"); !strings.Contains(e, "0 is out of range") {
		t.Errorf("error next to dd: %q", e)
	}
	time.Sleep(300 * time.Millisecond) // give a wrongly started run time to show
	// the last results stay on screen (a re-render once hid every chart)
	var shown int
	p.eval(`Array.from(document.querySelectorAll("#charts .chart")).filter(e => getComputedStyle(e).display !== "none" && e.querySelector("canvas")).length`, &shown)
	if shown < 4 {
		t.Errorf("%d charts visible after bad input, want the last run's", shown)
	}
	if s := p.text("#status"); s != "not run: 1 input error" {
		t.Errorf("status changed from %q to %q: something ran", status, s)
	}
	// the engine's limits, with the limit in the message
	p.set("#f-dd", "1")
	p.set("#f-memory", "1048576")
	p.click("#run")
	p.poll("the memory error", `!!document.getElementById("err-memory")`, 10*time.Second)
	if e := p.text("#err-memory"); !strings.Contains(e, "is out of range 64 MiB-256 GiB") {
		t.Errorf("error next to memory: %q", e)
	}
	if s := p.text("#status"); s != "not run: 1 input error" {
		t.Errorf("status changed from %q to %q: something ran", status, s)
	}
	p.shot("invalid")

	// a link with an unknown filesystem: the engine's message next to fs, no run
	q := newPage(t)
	q.open("#v=1&fs=ntfs&runtime=30s")
	q.poll("the fs error", `!!document.getElementById("err-fs")`, 10*time.Second)
	if e := q.text("#err-fs"); !strings.HasPrefix(e, `fs: "ntfs" is not a filesystem`) {
		t.Errorf("error next to fs: %q", e)
	}
	if s := q.text("#status"); s != "not run: 1 input error" {
		t.Errorf("status %q after an invalid link: something ran", s)
	}
	q.shot("invalid-fs")
}

func TestEmbedHidesChrome(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=60s&embed=1")
	p.waitDone()
	var hidden bool
	p.eval(`["header .actions", "header .modes", "fieldset"].every(s => getComputedStyle(document.querySelector(s)).display === "none")`, &hidden)
	if !hidden {
		t.Error("embed mode shows the page chrome")
	}
	p.shot("embed")
}

func TestWorkerPanicIsReported(t *testing.T) {
	p := newPage(t)
	p.open("#v=1&runtime=10s")
	p.eval(`window.__w = new Worker("worker.js"); window.__got = null;
		window.__w.onmessage = (e) => { if (e.data.type === "error") window.__got = e.data.message };
		window.__w.postMessage({type: "panic", id: 7}); true`, nil)
	p.poll("the worker's panic report", `window.__got !== null`, 30*time.Second)
	var msg string
	p.eval(`window.__got`, &msg)
	if !strings.Contains(msg, "panic") {
		t.Errorf("worker reported %q", msg)
	}
}
