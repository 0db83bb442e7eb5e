//go:build !(js && wasm)

package browser

import (
	"github.com/chromedp/chromedp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/ui"
)

// TestMeasuredOverlay opens a reference case's link: the charts draw the measured
// "Linux 6.1, measured" series next to the model's, the write_bw card shows the
// measured figure, and a note says where it comes from and how to re-measure.
func TestMeasuredOverlay(t *testing.T) {
	ms := lab.MeasuredCases()
	if len(ms) == 0 {
		t.Fatal("no measured references (validate/references)")
	}
	m := ms[0]
	for _, x := range ms { // a disk-bound case shows the comparison best
		if x.Name == "ext4-1dd-4k-100M" {
			m = x
		}
	}
	// a 6.1 run without a reference offers the references' links
	p := newPage(t)
	cfg := m.Cfg.Clone() // Disks is shared: the reference stays as it was
	cfg.Disks[0].Workload.DD = 3
	p.open("#" + lab.EncodeHash(lab.State{Form: lab.FormFromConfig(cfg)}))
	p.click("#run")
	p.waitDone()
	p.poll("the references' links", `!!document.querySelector("#measured-links a")`, 30*time.Second)
	if got := p.text("#measured-links"); !strings.Contains(got, m.Name) {
		t.Errorf("links %q lack %s", got, m.Name)
	}
	for _, w := range []struct{ width, height int }{{1400, 1000}, {390, 844}} {
		p := newPage(t)
		p.viewport(w.width, w.height)
		p.run(chromedp.Navigate("about:blank")) // a fresh load of the link
		p.open(lab.MeasuredHash(m))
		// the link applies in the open tab once the worker decoded it: wait for its
		// dd count before pressing Run (a press before runs the previous form)
		p.poll("the link's form", `(document.getElementById("f-dd")||{}).value === "`+strconv.Itoa(m.Cfg.Disks[0].Workload.DD)+`"`, 30*time.Second)
		p.click("#run")
		p.waitDone()
		p.poll("the measured overlay", `(() => { const l = Array.from(document.querySelectorAll("#charts .u-legend")).map(e => e.textContent).join(" "); return l.includes(`+"`"+ui.MeasuredLabel+"`"+`) })()`, 30*time.Second)
		if got := p.text("#card-write_bw .measured"); !strings.Contains(got, "Linux 6.1, measured") || !strings.Contains(got, "window") {
			t.Errorf("write_bw card: measured line %q", got)
		}
		note := p.text("#measured-note")
		for _, s := range []string{m.Name, "validate/README.md", "run-case.sh", "QEMU"} {
			if !strings.Contains(note, s) {
				t.Errorf("note %q lacks %q", note, s)
			}
		}
		p.shot("measured-overlay-" + m.Name + "-" + strconv.Itoa(w.width))
	}
	// the engine worker embeds no references: it fetched the build's bundle
	if n := loads.get("references.gz 200") + loads.get("references.gz 304"); n == 0 {
		t.Errorf("references.gz was not fetched")
	}
}

// TestMeasuredWithoutReferences: a site without references.gz (HTTP 404) runs a
// reference's case as usual and says, where the measured overlay's note would be, that
// the references could not be loaded and why; nothing hangs or panics.
func TestMeasuredWithoutReferences(t *testing.T) {
	ms := lab.MeasuredCases()
	if len(ms) == 0 {
		t.Fatal("no measured references (validate/references)")
	}
	p := newPage(t)
	p.run(chromedpNavigate(norefs + lab.MeasuredHash(ms[0])))
	p.click("#run")
	p.waitDone()
	p.poll("the note on the references", `(document.querySelector("#measured-note") || {}).textContent?.includes("references.gz: HTTP 404")`, 30*time.Second)
	want := "the references measured on Linux 6.1 could not be loaded: references.gz: HTTP 404"
	if got := p.text("#measured-note"); got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	var legend string
	p.eval(`Array.from(document.querySelectorAll("#charts .u-legend")).map(e => e.textContent).join(" ")`, &legend)
	if strings.Contains(legend, ui.MeasuredLabel) {
		t.Errorf("a measured overlay without references: %q", legend)
	}
	if got := p.text("#card-write_bw .value"); got == "" {
		t.Errorf("the run's write_bw card is empty")
	}
	p.shot("measured-without-references")
}
