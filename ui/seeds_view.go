package ui

import (
	"encoding/json"
	"fmt"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/ui/wire"
)

// MaxPageSeeds bounds the seeds per run in the page (engine.MaxSeeds in the CLI).
const MaxPageSeeds = wire.MaxPageSeeds

// PageSeeds is what the "5 seeds" button sets.
const PageSeeds = 5

// SeedsView is the seed sweep of a single or A/B run: the "5 seeds" switch, the
// extra runs with seeds seed+1 ... (the shown A and B runs are the first seed) and
// their statistics: write_bw mean, min-max and 95 % CI per side, and for A/B the
// delta paired by seed with its CI, marked "~" inside the noise. The matrix takes N
// from here and keeps its own cells.
type SeedsView struct {
	N int // seeds per run; 1: one

	// extra[side] are the runs of seeds 2..N of A (0) and B (1)
	extra [2][]*RunState
	ab    bool
	lab   *Root
}

// Toggle switches between one seed and PageSeeds, and runs again.
func (c *SeedsView) Toggle() {
	if c.N > 1 {
		c.N = 1
	} else {
		c.N = PageSeeds
	}
	c.lab.Run()
}

// ButtonClass marks the "5 seeds" button when on.
func (c *SeedsView) ButtonClass() string {
	if c.N > 1 {
		return "mode active"
	}
	return "mode"
}

// ButtonText is the button's label.
func (c *SeedsView) ButtonText() string { return fmt.Sprintf("%d seeds", PageSeeds) }

// start runs the extra seeds of a checked state (summary runs).
func (c *SeedsView) start(ck wire.Checked, ab bool) {
	c.extra = [2][]*RunState{}
	c.ab = ab
	for side, cfgs := range [][]string{ck.SeedsA, ck.SeedsB} {
		if side == 1 && !ab {
			continue
		}
		for _, cfg := range cfgs {
			c.extra[side] = append(c.extra[side], c.lab.w.Start(wire.Run{Config: cfg}, true))
		}
	}
}

func (c *SeedsView) all() []*RunState {
	return append(append([]*RunState(nil), c.extra[0]...), c.extra[1]...)
}

func (c *SeedsView) running() bool {
	for _, r := range c.all() {
		if inFlight(r) {
			return true
		}
	}
	return false
}

func (c *SeedsView) cancel() {
	for _, r := range c.all() {
		if inFlight(r) {
			c.lab.w.Cancel(r.ID)
			r.Err = "cancelled"
		}
	}
}

func (c *SeedsView) owns(id int) bool {
	for _, r := range c.all() {
		if r.ID == id {
			return true
		}
	}
	return false
}

// onMsg applies a message about an extra seed's run; it reports whether to render.
func (c *SeedsView) onMsg(m Msg) bool {
	for _, r := range c.all() {
		if r.ID != m.ID {
			continue
		}
		switch m.Type {
		case "result":
			var res report.Result
			if err := json.Unmarshal([]byte(m.Result), &res); err != nil {
				r.Err = "result: " + err.Error()
				return true
			}
			r.Res, r.Progress = &res, 1
			return true
		case "error":
			r.Err = m.Message
			return true
		}
	}
	return false
}

// side is the write_bw of every seed of one side (nil until all finished).
func (c *SeedsView) side(first *RunState, extra []*RunState) []float64 {
	if first == nil || first.Res == nil {
		return nil
	}
	out := []float64{first.Res.WriteBWMBps}
	for _, r := range extra {
		if r.Res == nil {
			return nil
		}
		out = append(out, r.Res.WriteBWMBps)
	}
	return out
}

// SeedStats is what the view shows, computed when every seed finished.
type SeedStats struct {
	A, B  stats.Summary
	Delta stats.Summary // paired by seed (A/B)
	AB    bool
}

// Stats are the seed statistics, ok once every run finished (N > 1 only).
func (c *SeedsView) Stats() (SeedStats, bool) {
	if c.N < 2 || c.lab.tableMode() {
		return SeedStats{}, false
	}
	a := c.side(c.lab.Results.A, c.extra[0])
	if a == nil {
		return SeedStats{}, false
	}
	st := SeedStats{A: stats.Of(a)}
	if c.ab && c.lab.Mode == "ab" {
		b := c.side(c.lab.Results.B, c.extra[1])
		if b == nil {
			return SeedStats{}, false
		}
		st.AB, st.B, st.Delta = true, stats.Of(b), stats.PairedDeltaPct(a, b)
	}
	return st, true
}

// Shown reports whether the seed panel is on screen.
func (c *SeedsView) Shown() bool { return c.N > 1 && !c.lab.tableMode() && c.lab.Results.A != nil }

// Lines are the panel's text lines.
func (c *SeedsView) Lines() []string {
	st, ok := c.Stats()
	if !ok {
		done := 0
		for _, r := range c.all() {
			if r.Res != nil || r.Err != "" {
				done++
			}
		}
		return []string{fmt.Sprintf("%d seeds: %d of %d extra runs finished …", c.N, done, len(c.all()))}
	}
	line := func(name string, s stats.Summary) string {
		return fmt.Sprintf("%swrite_bw %.2f MiB/s ±%.2f (95%% CI), min-max %.2f-%.2f, CV %.2f%%", name, s.Mean, s.CI95, s.Min, s.Max, 100*s.CV())
	}
	if !st.AB {
		return []string{fmt.Sprintf("%d seeds", st.A.N), line("", st.A)}
	}
	d := st.Delta
	verdict := "outside the noise"
	if d.InNoise() {
		verdict = "inside the noise (its 95 % CI contains 0)"
	}
	return []string{fmt.Sprintf("%d seeds", st.A.N), line("A ", st.A), line("B ", st.B),
		fmt.Sprintf("delta %s ±%.1f (paired by seed, min-max %+.1f..%+.1f%%): %s", stats.FormatDeltaPct(d), d.CI95, d.Min, d.Max, verdict)}
}

// WriteBWDelta is the write_bw card's delta over the seeds ("~+0.4%"), ok when
// known.
func (c *SeedsView) WriteBWDelta() (string, bool) {
	st, ok := c.Stats()
	if !ok || !st.AB {
		return "", false
	}
	return stats.FormatDeltaPct(st.Delta) + fmt.Sprintf(" ±%.1f", st.Delta.CI95), true
}
