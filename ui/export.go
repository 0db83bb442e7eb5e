package ui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// File is a download: its name, MIME type and contents.
type File struct{ Name, Mime, Text string }

// fileBase is a file name for a case ("wblab-thresh-100M_generic-1dd...").
func fileBase(name string) string {
	return "wblab-" + strings.NewReplacer("/", "_", "=", "-", ":", "-").Replace(name)
}

// ExportRuns is the json, csv or trace export of what the page shows: one run, or A
// and B (labelled) side by side.
func ExportRuns(kind string, runs []*RunState) (File, error) {
	if len(runs) == 0 || runs[0] == nil || runs[0].Res == nil {
		return File{}, fmt.Errorf("nothing to export yet")
	}
	labels := []string{"A", "B"}
	name := fileBase(runs[0].Res.Case)
	if len(runs) > 1 {
		name += "-ab"
	}
	var b bytes.Buffer
	switch kind {
	case "json":
		e := json.NewEncoder(&b)
		e.SetIndent("", " ")
		if len(runs) == 1 {
			_ = e.Encode(runs[0].Res)
		} else {
			m := map[string]any{}
			for i, r := range runs {
				m[labels[i]] = r.Res
			}
			_ = e.Encode(m)
		}
		return File{name + ".json", "application/json", b.String()}, nil
	case "csv":
		if len(runs) == 1 {
			if err := runs[0].Res.WriteSeriesCSV(&b); err != nil {
				return File{}, err
			}
			return File{name + ".csv", "text/csv", b.String()}, nil
		}
		// one table: a "run" column, then the union of both runs' columns
		var names []string
		seen := map[string]bool{}
		for _, r := range runs {
			if r.Res.Series == nil {
				return File{}, fmt.Errorf("run %s has no time series", r.Res.Case)
			}
			for _, n := range r.Res.Series.Names {
				if !seen[n] {
					seen[n] = true
					names = append(names, n)
				}
			}
		}
		w := csv.NewWriter(&b)
		_ = w.Write(append([]string{"run"}, names...))
		for i, r := range runs {
			s := r.Res.Series
			t, _ := s.Column("time_s")
			for row := range t {
				rec := []string{labels[i]}
				for _, n := range names {
					v, ok := s.Column(n)
					if !ok || row >= len(v) {
						rec = append(rec, "")
						continue
					}
					rec = append(rec, strconv.FormatFloat(v[row], 'f', -1, 64))
				}
				_ = w.Write(rec)
			}
		}
		w.Flush()
		return File{name + ".csv", "text/csv", b.String()}, w.Error()
	case "trace":
		for i, r := range runs {
			if r.Trace == "" {
				return File{}, fmt.Errorf(`no trace: tick "record trace" and run again`)
			}
			if len(runs) > 1 {
				fmt.Fprintf(&b, "# %s: %s on %s\n", labels[i], r.Res.Case, r.Run.Kernel)
			}
			b.WriteString(r.Trace)
		}
		return File{name + ".trace.txt", "text/plain", b.String()}, nil
	}
	return File{}, fmt.Errorf("unknown export %q", kind)
}

// ExportMatrix is the matrix table as csv, json or the harness's text.
func ExportMatrix(kind string, m *Matrix) (File, error) {
	if m == nil {
		return File{}, fmt.Errorf("no matrix yet: press Run")
	}
	name := "wblab-matrix"
	if m.Thread != "" {
		name += "-" + m.Thread
	}
	pub := map[string][2]float64{}
	if t, ok := TableByName(m.Thread); ok {
		for i, c := range t.Cases {
			pub[c] = [2]float64{t.BaseBW[i], t.TestBW[i]}
		}
	}
	type row struct {
		Case       string   `json:"case"`
		Base       *float64 `json:"base_MBps"`
		Test       *float64 `json:"test_MBps"`
		DeltaPct   *float64 `json:"delta_pct"`
		ThreadBase *float64 `json:"thread_base_MBps,omitempty"`
		ThreadTest *float64 `json:"thread_test_MBps,omitempty"`
		Error      string   `json:"error,omitempty"`
	}
	var rows []row
	for i, r := range m.Cells {
		x := row{Case: m.Cases[i]}
		if r[0].Done {
			x.Base = ptr(r[0].BW)
		}
		if r[1].Done {
			x.Test = ptr(r[1].BW)
		}
		if r[0].Done && r[1].Done && r[0].BW != 0 {
			x.DeltaPct = ptr((r[1].BW - r[0].BW) / r[0].BW * 100)
		}
		if p, ok := pub[m.Cases[i]]; ok {
			x.ThreadBase, x.ThreadTest = ptr(p[0]), ptr(p[1])
		}
		x.Error = r[0].Err
		if x.Error == "" {
			x.Error = r[1].Err
		}
		rows = append(rows, x)
	}
	var b bytes.Buffer
	switch kind {
	case "json":
		bt, tt, n := m.Total()
		out := map[string]any{"base": m.Base, "test": m.Test, "thread": m.Thread, "setup_differs": m.Diffs, "rows": rows}
		if n > 0 {
			out["total"] = map[string]any{"base_MBps": bt, "test_MBps": tt, "rows": n}
		}
		e := json.NewEncoder(&b)
		e.SetIndent("", " ")
		_ = e.Encode(out)
		return File{name + ".json", "application/json", b.String()}, nil
	case "csv":
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"case", "base_kernel", "test_kernel", "base_MBps", "delta_pct", "test_MBps", "thread_base_MBps", "thread_test_MBps", "error"})
		f := func(p *float64) string {
			if p == nil {
				return ""
			}
			return strconv.FormatFloat(*p, 'f', 2, 64)
		}
		for _, r := range rows {
			_ = w.Write([]string{r.Case, m.Base, m.Test, f(r.Base), f(r.DeltaPct), f(r.Test), f(r.ThreadBase), f(r.ThreadTest), r.Error})
		}
		w.Flush()
		return File{name + ".csv", "text/csv", b.String()}, w.Error()
	case "text":
		return File{name + ".txt", "text/plain", m.Text()}, nil
	}
	return File{}, fmt.Errorf("unknown export %q", kind)
}

func ptr(v float64) *float64 { return &v }
