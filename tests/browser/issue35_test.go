//go:build !(js && wasm)

package browser

// Issue 35's tests ("The lab on first contact"): each fails on the page before the
// issue (the problem it covers is named in its comment).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/wblab/wblab/lab"
)

// docShot saves the viewport as docs/issue35/NAME.png when WBLAB_ISSUE35_DOCS names
// the directory (and in the artifacts always).
func (p *page) docShot(name string, full bool) {
	p.t.Helper()
	var buf []byte
	act := chromedp.CaptureScreenshot(&buf)
	if full {
		act = chromedp.FullScreenshot(&buf, 90)
	}
	if err := chromedp.Run(p.ctx, act); err != nil {
		p.t.Logf("screenshot %s: %v", name, err)
		return
	}
	_ = os.WriteFile(filepath.Join(artifacts, name+".png"), buf, 0o644)
	if d := os.Getenv("WBLAB_ISSUE35_DOCS"); d != "" {
		_ = os.WriteFile(filepath.Join(d, name+".png"), buf, 0o644)
	}
}

// top is an element's top edge in the page (px from the document's top), -1 when
// the element is missing.
func (p *page) top(sel string) float64 {
	p.t.Helper()
	var y float64
	p.eval(fmt.Sprintf(`(() => { const e = document.querySelector(%q); return e ? e.getBoundingClientRect().top + scrollY : -1 })()`, sel), &y)
	return y
}

// Problem 1a: "#v=1&mode=matrix" started 30 runs of a kernel against itself, with
// the table picker ~4100 px down under the switch selects and the case bar showing
// an unrelated generic-1dd case. Now: the picker at the top, nothing runs.
func TestMatrixLinkRunsNothing(t *testing.T) {
	for _, w := range [][2]int{{1400, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", w[0], w[1]), func(t *testing.T) {
			p := newPage(t)
			p.viewport(w[0], w[1])
			p.open("#v=1&mode=matrix")
			p.poll("the table picker", `!!document.getElementById("m-table")`, 20*time.Second)
			time.Sleep(3 * time.Second) // a run would have started by now
			var st struct {
				Table, Pick bool
				Status      string
			}
			p.eval(`({Table: !!document.getElementById("matrix-table"), Pick: !!document.getElementById("matrix-pick"),
				Status: document.getElementById("status").textContent})`, &st)
			if st.Table || !st.Pick || strings.HasPrefix(st.Status, "matrix:") || strings.HasPrefix(st.Status, "starting") {
				t.Errorf("mode=matrix without a table: %+v (want the picker, no table, no run)", st)
			}
			y := p.top("#m-table")
			t.Logf("the table picker at %.0f px", y)
			if y < 0 || y > float64(w[1]) {
				t.Errorf("the table picker at %.0f px, below the fold of %d", y, w[1])
			}
			if p.top("#f-case") >= 0 {
				t.Errorf("the case bar shows the form's case %q in matrix mode", p.value("#f-case"))
			}
			p.set("#m-table", "T1")
			p.poll("the case bar naming T1", `(document.getElementById("matrix-casebar")||{textContent:""}).textContent.includes("T1")`, 10*time.Second)
			if got := p.text("#matrix-casebar"); !strings.Contains(got, "T1") || strings.Contains(got, "generic-1dd") {
				t.Errorf("case bar in matrix mode %q", got)
			}
		})
	}
}

// Problem 1b: T1's TOTAL was bold while 2 of its rows were done; an opened row's A/B
// showed above the table under "Below", and was not in the link; a one-seed -0.1 %
// was flagged as a sign disagreement. Now: TOTAL says over how many rows, the A/B
// is below the table, open= in the link reopens it, nothing is flagged with one
// seed and the thread's repeatability is stated.
func TestMatrixT1RowOpens(t *testing.T) {
	p := newPageTimeout(t, 400*time.Second)
	p.viewport(1400, 900)
	p.open("#v=1&mode=matrix")
	p.poll("the table picker", `!!document.getElementById("m-table")`, 20*time.Second)
	p.set("#m-table", "T1")
	t1, _ := lab.TableByName("T1")
	p.poll("B's kernel set to T1's test kernel", fmt.Sprintf(`document.getElementById("b-kernel").value === %q`, t1.Test), 10*time.Second)
	p.click("#run")
	// a TOTAL over some of the rows: labelled so, not bold
	partial := regexp.MustCompile(fmt.Sprintf(`^TOTAL of (\d+) of %d rows$`, len(t1.Cases)))
	all := fmt.Sprintf("%d of %d", 2*len(t1.Cases), 2*len(t1.Cases))
	seen := ""
	for end := time.Now().Add(240 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		var r struct {
			Label, Weight, Status string
		}
		p.eval(`(() => { const tr = document.querySelector('#matrix-table tr[data-case="TOTAL"]'); if (!tr) return {};
			const td = tr.children[3]; return {Label: td.textContent, Weight: getComputedStyle(tr.children[0]).fontWeight,
			Status: document.getElementById("status").textContent} })()`, &r)
		if m := partial.FindStringSubmatch(r.Label); m != nil && m[1] != "0" {
			seen = r.Label
			if r.Weight == "700" || r.Weight == "bold" {
				t.Errorf("partial TOTAL %q is bold", r.Label)
			}
			break
		}
		if strings.Contains(r.Status, all) {
			t.Fatalf("the matrix finished without a partial TOTAL label (last %q)", r.Label)
		}
	}
	if seen == "" {
		t.Fatal("no partial TOTAL seen")
	}
	p.poll("all runs", fmt.Sprintf(`document.getElementById("status").textContent.includes(%q)`, all), 300*time.Second)
	if got := p.text(`#matrix-table tr[data-case="TOTAL"] td.case`); got != "TOTAL" {
		t.Errorf("finished TOTAL label %q", got)
	}
	rep := p.text("#matrix-repeat")
	if !strings.Contains(rep, "2.1-4.3 %") {
		t.Errorf("the thread's repeatability: %q", rep)
	}
	var flagged int
	p.eval(`document.querySelectorAll("#matrix-table tr.disagree").length`, &flagged)
	if flagged != 0 {
		t.Errorf("one seed: %d rows flagged as sign disagreements (one seed has no spread)", flagged)
	}
	open := t1.Cases[2]
	p.click(fmt.Sprintf(`#matrix-table tr[data-case=%q]`, open))
	p.poll("the row's A/B", `!!document.querySelector("#card-write_bw .bv") && !!document.querySelector("#matrix-table tr.opened") && document.querySelectorAll("#charts canvas").length >= 4`, 120*time.Second)
	if tb, cards := p.top("#matrix-table"), p.top("#cards"); cards < tb {
		t.Errorf("the opened A/B's cards at %.0f px, above the table at %.0f (the note says Below)", cards, tb)
	}
	p.poll("open= in the link", `location.hash.includes("&open=")`, 10*time.Second)
	var hash string
	p.eval(`location.hash`, &hash)
	t.Logf("T1 %s; link %s", seen, hash)
	p.eval(`document.querySelector("#matrix-table tr.opened").scrollIntoView({block: "start"}), true`, nil)
	p.docShot("t1-row-opened-1400", false)

	// the link reopens the row, at 390 px too
	q := newPageTimeout(t, 400*time.Second)
	q.viewport(390, 844)
	q.open(hash)
	q.poll("the reopened row", fmt.Sprintf(`!!document.querySelector('#matrix-table tr.opened[data-case=%q]') && !!document.querySelector("#card-write_bw .bv")`, open), 300*time.Second)
	if s := q.text("#matrix-opened"); !strings.Contains(s, open) {
		q.t.Errorf("reopened note %q", s)
	}
	q.eval(`document.querySelector("#matrix-table tr.opened").scrollIntoView({block: "start"}), true`, nil)
	q.docShot("t1-row-opened-390", false)
	q.click("#cancel")
}

// Problem 2: in the USB-stick story the write_bw card said 7.76 MiB/s while the
// stick's card said "written 1.7 MB/s" (over 600 s; the copy ends at ~102 s), in MB
// where the rest says MiB, and the preset's text showed literal backticks. Now the
// per-disk rate is over the disk's active window, stated, in MiB, near write_bw;
// the card says when the stick's last dirty page was written beside the copier's
// exit; the text's code is code.
func TestUSBStickCardsAgree(t *testing.T) {
	r, ok := lab.ReproByID("usbstick")
	if !ok || len(r.Missing) > 0 {
		t.Skip("the USB-stick story's kernels are not in the engine")
	}
	for _, w := range [][2]int{{1400, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%d", w[0]), func(t *testing.T) {
			p := newPageTimeout(t, 240*time.Second)
			p.viewport(w[0], w[1])
			p.open("")
			p.waitDone()
			p.click("#story-run-usbstick")
			p.poll("the story's A/B and disk cards", `!!document.querySelector("#card-write_bw .bv") && document.querySelectorAll("#disk-card-1 tr").length > 4 && document.getElementById("status").textContent.startsWith("done")`, 200*time.Second)
			var c struct {
				BW, BWB, Disk, Explain string
				Code                   int
			}
			p.eval(`({BW: document.querySelector("#card-write_bw .a").textContent, BWB: document.querySelector("#card-write_bw .bv").textContent,
				Disk: document.getElementById("disk-card-1").textContent, Explain: document.getElementById("repro-explain").textContent,
				Code: document.querySelectorAll("#repro-explain code").length})`, &c)
			if strings.Contains(c.Explain, "`") || c.Code == 0 {
				t.Errorf("preset text shows backticks or no code: %d code elements in %q", c.Code, c.Explain)
			}
			if regexp.MustCompile(`\d MB\b|MB/s`).MatchString(c.Disk) {
				t.Errorf("the disk card says MB: %q", c.Disk)
			}
			rate := regexp.MustCompile(`([\d.]+) MiB/s over (\d+)-(\d+) s`).FindAllStringSubmatch(c.Disk, -1)
			if len(rate) != 2 {
				t.Fatalf("the stick's card has no windowed rates for A and B: %q", c.Disk)
			}
			for i, bw := range []string{c.BW, c.BWB} {
				var card, disk float64
				fmt.Sscan(bw, &card)
				fmt.Sscan(rate[i][1], &disk)
				if d := (disk - card) / card; d < -0.1 || d > 0.1 {
					t.Errorf("%s: the stick's %.2f MiB/s (over %s-%s s) and write_bw %.2f differ by %.0f %%", []string{"A", "B"}[i], disk, rate[i][2], rate[i][3], card, d*100)
				}
			}
			if !strings.Contains(c.Disk, "last dirty page written by") {
				t.Errorf("the stick's card does not say when its data was written: %q", c.Disk)
			}
			t.Logf("write_bw A %s B %s; stick: %q", c.BW, c.BWB, c.Disk)
			p.run(chromedp.ScrollIntoView("#cards"))
			p.docShot(fmt.Sprintf("usb-stick-cards-%d", w[0]), false)
			p.run(chromedp.ScrollIntoView("#disks-view"))
			p.docShot(fmt.Sprintf("usb-stick-disks-%d", w[0]), false)
		})
	}
}

// Problem 3: A/B cards showed deltas of the wall time (+112 %) and the ages
// (+1544 %); with seeds the write_bw card's number was seed 1's while the seed
// panel showed the mean. Now: no delta where it means nothing, the mean ±CI.
func TestABCardsSayWhatMeans(t *testing.T) {
	p := newPageTimeout(t, 240*time.Second)
	p.open("#v=1&runtime=30s&mode=ab&b.v.scaled_chunk=off&seeds=3")
	p.poll("the seed statistics", `(document.getElementById("seeds")||{textContent:""}).textContent.includes("paired by seed")`, 200*time.Second)
	var c struct{ Wall, Age, DataAge, BW, Unit, Seeds string }
	p.eval(`(() => { const d = id => (document.querySelector("#card-" + id + " .delta")||{}).textContent||"";
		return {Wall: d("wall"), Age: d("age"), DataAge: d("data_age"), BW: document.querySelector("#card-write_bw .a").textContent,
		Unit: document.querySelector("#card-write_bw .unit").textContent, Seeds: document.getElementById("seeds").textContent} })()`, &c)
	if c.Wall != "" || c.Age != "" || c.DataAge != "" {
		t.Errorf("deltas that mean nothing: wall %q, age %q, data age %q", c.Wall, c.Age, c.DataAge)
	}
	m := regexp.MustCompile(`A write_bw ([\d.]+) MiB/s ±([\d.]+)`).FindStringSubmatch(c.Seeds)
	if m == nil || c.BW != m[1]+" ±"+m[2] || !strings.Contains(c.Unit, "mean of 3 seeds") {
		t.Errorf("write_bw card %q %q, seed panel %q: want the mean ±CI", c.BW, c.Unit, c.Seeds)
	}
}

// Problem 5: the first page told before it showed: its first chart was 2,866 px
// down on a phone; "Five stories" headed 8 cards; "Show the full lab" dropped the
// keyboard focus to <body>. Now a chart and its headline number are above the fold
// at 1400x900 and 390x844, the heading counts the stories, the focus stays.
func TestFirstPageShowsFirst(t *testing.T) {
	for _, w := range [][2]int{{1400, 900}, {390, 844}} {
		t.Run(fmt.Sprintf("%dx%d", w[0], w[1]), func(t *testing.T) {
			p := newPage(t)
			p.viewport(w[0], w[1])
			p.open("")
			p.waitDone()
			var f struct {
				Canvas, Headline, Width float64
				Heading                 string
			}
			p.eval(`({Canvas: document.querySelector("#charts canvas").getBoundingClientRect().top,
				Headline: (document.getElementById("headline-bw")||{getBoundingClientRect: () => ({bottom: 1e9})}).getBoundingClientRect().bottom,
				Width: document.documentElement.scrollWidth, Heading: document.querySelector("#guide h2").textContent})`, &f)
			if f.Canvas+100 > float64(w[1]) || f.Headline > float64(w[1]) {
				t.Errorf("first chart at %.0f px, headline number ending at %.0f px: want both above the fold of %d px", f.Canvas, f.Headline, w[1])
			}
			t.Logf("%dx%d: first chart's canvas at %.0f px, headline number ends at %.0f px", w[0], w[1], f.Canvas, f.Headline)
			if f.Width > float64(w[0]) {
				t.Errorf("the page scrolls sideways: %.0f px", f.Width)
			}
			if n := len(lab.Repros()); !strings.HasPrefix(f.Heading, fmt.Sprint(n)+" stories") {
				t.Errorf("stories heading %q for %d stories", f.Heading, n)
			}
			p.docShot(fmt.Sprintf("first-page-%d", w[0]), false)
			p.run(chromedp.Focus("#show-lab", chromedp.ByID))
			p.eval(`document.getElementById("show-lab").click(), true`, nil)
			p.poll("the full lab", `!document.getElementById("guide")`, 10*time.Second)
			time.Sleep(300 * time.Millisecond)
			var active string
			p.eval(`document.activeElement ? (document.activeElement.id || document.activeElement.tagName) : ""`, &active)
			if active == "BODY" || active == "" {
				t.Errorf("after Show the full lab the focus is on %q", active)
			}
		})
	}
}

// Problem 4: Cancel mixed two runs: the cancelled run's charts beside the previous
// run's dimmed cards, with no figures of its own. Now the cards are the cancelled
// run's, up to the cancel time, marked so.
func TestCancelKeepsItsFigures(t *testing.T) {
	p := newPageTimeout(t, 3*time.Minute)
	p.open("#v=1&runtime=20s")
	p.waitDone()
	p.set("#f-runtime", "2h")
	p.click("#run")
	p.poll("the long run's charts", `document.getElementById("status").textContent.startsWith("running") && !!document.querySelector("#chart-dirty canvas") &&
		parseFloat((document.getElementById("run-note").textContent.match(/t = ([\d.]+)/)||[0, 0])[1]) > 30`, 90*time.Second)
	p.click("#cancel")
	p.poll("the cancelled mark", `document.getElementById("status").textContent.startsWith("cancelled at t = ")`, 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	var c struct {
		Stale         bool
		Unit, Runtime string
		Note          string
	}
	p.eval(`({Stale: document.getElementById("cards").classList.contains("stale"), Unit: (document.querySelector("#card-write_bw .unit")||{}).textContent||"",
		Runtime: (document.querySelector("#card-runtime .a")||{}).textContent||"", Note: document.getElementById("run-note").textContent})`, &c)
	var at float64
	fmt.Sscanf(p.text("#status"), "cancelled at t = %f s", &at)
	var rt float64
	fmt.Sscan(c.Runtime, &rt)
	if c.Stale || !strings.Contains(c.Unit, "cancelled") || rt < at-1 || rt > at+1 || !strings.Contains(c.Note, "cards show this run") {
		t.Errorf("after Cancel at t = %.1f s: cards %+v (want the cancelled run's own figures, to the cancel time, marked)", at, c)
	}
	p.docShot("cancelled-own-figures", false)
}
