package ui

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/wblab/wblab/engine/report"
)

// The editors' latency over time: each recorded save (report.LatencyResult.Series)
// as a dot at its start time and latency, coloured by the wait cause it spent most
// time in (report.WaitDocs, the one explanations table); B's dots lighter, in A/B.
// The latency axis is logarithmic: one stalled save is seconds, the rest ms.

// SavesChart is the chart of the editors' saves (ChartSpec.Saves).
var SavesChart = ChartSpec{ID: "saves", Title: "Editor saves: latency (log scale) at each save's start, coloured by its longest wait", Units: [2]string{"ms"}, Saves: true}

// waitColor is a wait cause's colour, by its place in report.WaitDocs.
func waitColor(cause string) string {
	for i, d := range report.WaitDocs() {
		if d.Name == cause {
			return palette[i%len(palette)]
		}
	}
	return palette[len(palette)-1]
}

// waitDoc is a wait cause's entry of report.WaitDocs.
func waitDoc(cause string) (Doc, bool) {
	for _, d := range report.WaitDocs() {
		if d.Name == cause {
			return d, true
		}
	}
	return Doc{}, false
}

// runSaves are a run's recorded saves, every editor of every disk.
func runSaves(r *report.Result) []report.SavePoint {
	if r == nil {
		return nil
	}
	var out []report.SavePoint
	for _, d := range r.Disks {
		for _, e := range d.Editors {
			out = append(out, e.Series...)
		}
	}
	return out
}

// savesCauses are the dominant waits of runs' saves, in report.WaitDocs order.
func savesCauses(runs []Run) []string {
	seen := map[string]bool{}
	for _, r := range runs {
		for _, p := range runSaves(r.Result) {
			seen[p.Wait] = true
		}
	}
	var out []string
	for _, d := range report.WaitDocs() {
		if seen[d.Name] {
			out = append(out, d.Name)
			delete(seen, d.Name)
		}
	}
	var rest []string // causes the table lacks (none today)
	for c := range seen {
		rest = append(rest, c)
	}
	slices.Sort(rest)
	return append(out, rest...)
}

// savesHas reports whether some run recorded an editor's saves.
func savesHas(runs []Run) bool {
	for _, r := range runs {
		if len(runSaves(r.Result)) > 0 {
			return true
		}
	}
	return false
}

// savesChartJSON is SavesChart's uPlot options and data: x the saves' start times
// (every run's, merged), one dotted series per run and dominant wait.
func savesChartJSON(spec ChartSpec, runs []Run) (opts, data string, ok bool) {
	type series struct {
		Label  string `json:"label"`
		Scale  string `json:"scale,omitempty"`
		Stroke string `json:"stroke,omitempty"`
		Unit   string `json:"unit,omitempty"`
		Doc    string `json:"doc,omitempty"`
		Dots   bool   `json:"dots,omitempty"`
	}
	var xs []float64
	for _, r := range runs {
		for _, p := range runSaves(r.Result) {
			xs = append(xs, p.TimeS)
		}
	}
	if len(xs) == 0 {
		return "", "", false
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	causes := savesCauses(runs)
	ser := []series{{Label: "save start", Unit: "s"}}
	var cols [][]*float64
	for ri, r := range runs {
		pts := runSaves(r.Result)
		if len(pts) == 0 {
			continue
		}
		for _, c := range causes {
			col := make([]*float64, len(xs))
			has := false
			for _, p := range pts {
				if p.Wait != c || math.IsNaN(p.LatencyMs) || p.LatencyMs <= 0 { // log scale
					continue
				}
				i, _ := slices.BinarySearch(xs, p.TimeS)
				v := p.LatencyMs
				col[i] = &v
				has = true
			}
			if !has {
				continue
			}
			lab := "longest in " + c
			if r.Label != "" {
				lab = r.Label + ": " + lab
			}
			st := waitColor(c)
			if ri > 0 {
				st = lighter(st)
			}
			sr := series{Label: lab, Scale: "ms", Stroke: st, Unit: "ms", Dots: true}
			if d, ok := waitDoc(c); ok {
				sr.Doc = d.Text()
			}
			ser = append(ser, sr)
			cols = append(cols, col)
		}
	}
	o := map[string]any{
		"title":  spec.Title,
		"scales": map[string]any{"x": map[string]any{"time": false}, "ms": map[string]any{"auto": true, "distr": 3, "log": 10}},
		"axes":   []map[string]any{{"label": "save start (s)", "size": 40}, {"scale": "ms", "label": "latency (ms)", "size": 60}},
		"series": ser,
		"cursor": map[string]any{"drag": map[string]any{"x": true, "y": false, "setScale": true}},
		"legend": map[string]any{"live": true},
	}
	ob, _ := json.Marshal(o)
	all := []any{xs}
	for _, c := range cols {
		all = append(all, c)
	}
	db, _ := json.Marshal(all)
	return string(ob), string(db), true
}

// savesSeries are SavesChart's legend entries as chart docs: one per dominant wait.
func savesSeries(runs []Run) []SeriesLine {
	var out []SeriesLine
	for _, c := range savesCauses(runs) {
		d, _ := waitDoc(c)
		out = append(out, SeriesLine{Col: c, Label: "longest in " + c, Text: d.Text(), Key: "wait:" + c})
	}
	return out
}

// savesSummary is SavesChart's text alternative: per run its saves' count, median
// and longest (when it began) and the waits they spent most time in.
func savesSummary(spec ChartSpec, runs []Run) string {
	var parts []string
	for _, r := range runs {
		pts := runSaves(r.Result)
		if len(pts) == 0 {
			continue
		}
		lat := make([]float64, len(pts))
		worst := pts[0]
		n := map[string]int{}
		for i, p := range pts {
			lat[i] = p.LatencyMs
			if p.LatencyMs > worst.LatencyMs {
				worst = p
			}
			n[p.Wait]++
		}
		slices.Sort(lat)
		var ws []string
		for _, c := range savesCauses([]Run{r}) {
			ws = append(ws, fmt.Sprintf("%d in %s", n[c], c))
		}
		lab := ""
		if r.Label != "" {
			lab = r.Label + " "
		}
		parts = append(parts, fmt.Sprintf("%s%d saves drawn, median %s ms, longest %s ms at %.1f s (%s); longest wait: %s",
			lab, len(pts), num(lat[len(lat)/2]), num(worst.LatencyMs), worst.TimeS, worst.Wait, strings.Join(ws, ", ")))
	}
	if len(parts) == 0 {
		return ""
	}
	return spec.Title + ": " + strings.Join(parts, "; ") + "."
}
