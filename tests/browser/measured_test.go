//go:build !(js && wasm)

package browser

import (
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
	cfg := m.Cfg
	cfg.Workload.DD = 3
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
		p.open(lab.MeasuredHash(m))
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
}
