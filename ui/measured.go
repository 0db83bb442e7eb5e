package ui

import (
	"fmt"
	"math"
	"sync"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// The references measured on Linux 6.1 (validate/) stay in the engine worker: when
// run A finished, the page asks which one its config models (matchMeasured); the
// answer brings that reference's series and figures, drawn dashed beside the model,
// and the links to all references. The worker fetches the references when first asked
// (static/references.gz); a failed fetch is the answer's error, shown as the note.

var (
	measuredMu    sync.Mutex
	measuredCache = map[string]*wire.MeasuredMatch{} // by config JSON
)

// measuredFor is the reference run r models, once the engine answered.
func measuredFor(r *RunState) (*wire.Measured, bool) {
	if r == nil || r.measured == nil || r.measured.Match == nil {
		return nil, false
	}
	return r.measured.Match, true
}

// matchMeasured asks the engine which reference r's config models (once per
// config) and renders when the answer comes (call with the event lock held).
func (c *Root) matchMeasured(r *RunState) {
	measuredMu.Lock()
	m, ok := measuredCache[r.Run.Config]
	measuredMu.Unlock()
	if ok {
		r.measured = m
		return
	}
	go func() {
		var m wire.MeasuredMatch
		if err := Ask("measured", wire.MeasuredAsk{Config: r.Run.Config}, &m); err != nil {
			// the worker could not load the references (it fetches them): said where
			// the overlay's note would be, and asked again for the next run
			c.ee.Lock()
			r.measuredErr = err.Error()
			c.ee.UnlockRender()
			return
		}
		measuredMu.Lock()
		measuredCache[r.Run.Config] = &m
		measuredMu.Unlock()
		c.ee.Lock()
		r.measured = &m
		c.Charts.changed()
		c.ee.UnlockRender()
	}()
}

// MeasuredRun is the measured series as a chart run on the model's time grid (the
// charts index every run by the first run's samples): at each model time the last
// measured sample at or before it (the guest samples about once a second). Columns
// the harness does not measure are absent.
func MeasuredRun(m *wire.Measured, model *report.Result) Run {
	ms := m.Series
	absent := map[string]bool{}
	for _, n := range model.Series.Names {
		if _, ok := ms.Column(n); !ok {
			absent[n] = true
		}
	}
	t, _ := model.Series.Column("time_s")
	mt, _ := ms.Column("time_s")
	out := &report.Series{IntervalS: model.Series.IntervalS, Names: ms.Names, Data: make([][]float64, len(ms.Names))}
	j := -1
	for _, x := range t {
		for j+1 < len(mt) && mt[j+1] <= x+1e-9 {
			j++
		}
		for c := range ms.Names {
			v := math.NaN() // before the first sample
			if j >= 0 {
				v = ms.Data[c][j]
			}
			if ms.Names[c] == "time_s" {
				v = x
			}
			out.Data[c] = append(out.Data[c], v)
		}
	}
	return Run{Label: MeasuredLabel, Result: &report.Result{Series: out}, Absent: absent}
}

// MeasuredCards adds the measured figure to the cards it has one for: write_bw over
// the window (MiB/s), with the window in the unit.
func MeasuredCards(cards []Card, m *wire.Measured) []Card {
	for i := range cards {
		if cards[i].ID == "write_bw" {
			cards[i].M = fmt.Sprintf("%.2f (%s window)", m.WriteBWMBps, m.Window)
		}
	}
	return cards
}
