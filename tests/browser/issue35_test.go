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
			if y := p.top("#m-table"); y < 0 || y > float64(w[1]) {
				t.Errorf("the table picker at %.0f px, below the fold of %d", y, w[1])
			}
			if p.top("#f-case") >= 0 {
				t.Errorf("the case bar shows the form's case %q in matrix mode", p.value("#f-case"))
			}
			p.set("#m-table", "T1")
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
