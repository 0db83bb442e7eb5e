package ui

import (
	"fmt"
	"math"
	"sync"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// The references measured on Linux 6.1 (validate/) stay in the engine worker: a run
// whose config models one (wire.Run.Measured) fetches its series and figures once
// (fetchMeasured), and the page draws them dashed beside the model.

var (
	measuredMu    sync.Mutex
	measuredCache = map[string]*wire.Measured{}
	measuredAsked = map[string]bool{}
)

// measuredFor is the reference run r models, once fetched.
func measuredFor(r wire.Run) (*wire.Measured, bool) {
	if r.Measured == "" {
		return nil, false
	}
	measuredMu.Lock()
	defer measuredMu.Unlock()
	m, ok := measuredCache[r.Measured]
	return m, ok
}

// fetchMeasured asks the worker for the reference r models (once per reference) and
// renders when it arrives (call with the event lock held).
func (c *Root) fetchMeasured(r wire.Run) {
	name := r.Measured
	measuredMu.Lock()
	asked := name == "" || measuredAsked[name]
	measuredAsked[name] = true
	measuredMu.Unlock()
	if asked {
		return
	}
	go func() {
		var m wire.Measured
		if err := Ask("measured", wire.MeasuredAsk{Name: name}, &m); err != nil {
			measuredMu.Lock()
			delete(measuredAsked, name)
			measuredMu.Unlock()
			return
		}
		measuredMu.Lock()
		measuredCache[name] = &m
		measuredMu.Unlock()
		c.ee.Lock()
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
