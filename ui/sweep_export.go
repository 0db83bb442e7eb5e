package ui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/stats"
)

// ExportSweep is the sweep's table as csv (a row per cell: filesystem, dirty
// threshold, dd count, write_bw, with several seeds their mean and 95 % CI, and what
// the disk did) or json, as the page shows it: cells not finished have empty figures
// and their state in "error".
func ExportSweep(kind string, s *Sweep) (File, error) {
	if s == nil {
		return File{}, fmt.Errorf("no sweep yet: press Run")
	}
	name := "wblab-sweep-" + strings.Join(s.Plan.Filesystems, "-")
	state := func(c SweepCell) string {
		switch {
		case c.Err != "":
			return c.Err
		case !c.Done:
			return "not finished"
		}
		return ""
	}
	var b bytes.Buffer
	switch kind {
	case "csv":
		w := csv.NewWriter(&b)
		_ = w.Write([]string{"fs", "thresh_MB", "dd", "write_bw_MBps", "write_bw_ci95", "seeds", "seeks_s", "seek_pct", "avgrq_KiB", "kernel", "device", "runtime_s", "error"})
		f := func(v float64, ok bool) string {
			if !ok {
				return ""
			}
			return strconv.FormatFloat(v, 'f', 2, 64)
		}
		for _, c := range s.Cells {
			_ = w.Write([]string{c.FS, strconv.FormatInt(c.ThreshMB, 10), strconv.Itoa(c.DD), f(c.WriteBW, c.Done),
				f(stats.Of(c.BWs).CI95, c.Done && len(c.BWs) > 1), strconv.Itoa(len(c.BWs)), f(c.SeeksS, c.Done),
				f(c.SeekPct, c.Done), f(c.AvgRqKiB, c.Done), s.Plan.Kernel, s.Plan.Device, strconv.FormatFloat(s.Plan.RuntimeS, 'f', -1, 64), state(c)})
		}
		w.Flush()
		return File{name + ".csv", "text/csv", b.String()}, w.Error()
	case "json":
		type cell struct {
			FS       string    `json:"fs"`
			ThreshMB int64     `json:"thresh_MB"`
			DD       int       `json:"dd"`
			WriteBW  *float64  `json:"write_bw_MBps"`
			CI95     *float64  `json:"write_bw_ci95,omitempty"`
			BWs      []float64 `json:"write_bw_by_seed,omitempty"`
			SeeksS   *float64  `json:"seeks_s"`
			SeekPct  *float64  `json:"seek_pct"`
			AvgRqKiB *float64  `json:"avgrq_KiB"`
			Error    string    `json:"error,omitempty"`
		}
		out := struct {
			Kernel       string   `json:"kernel"`
			Device       string   `json:"device"`
			RuntimeS     float64  `json:"runtime_s"`
			Seeds        int      `json:"seeds"`
			Filesystems  []string `json:"filesystems"`
			ThresholdsMB []int64  `json:"thresholds_MB"`
			Writers      []int    `json:"writers"`
			Cells        []cell   `json:"cells"`
		}{s.Plan.Kernel, s.Plan.Device, s.Plan.RuntimeS, max(s.Plan.Seeds, 1), s.Plan.Filesystems, s.Plan.ThresholdsMB, s.Plan.Writers, nil}
		for _, c := range s.Cells {
			x := cell{FS: c.FS, ThreshMB: c.ThreshMB, DD: c.DD, Error: state(c)}
			if c.Done {
				x.WriteBW, x.SeeksS, x.SeekPct, x.AvgRqKiB = ptr(c.WriteBW), ptr(c.SeeksS), ptr(c.SeekPct), ptr(c.AvgRqKiB)
				if len(c.BWs) > 1 {
					x.CI95, x.BWs = ptr(stats.Of(c.BWs).CI95), c.BWs
				}
			}
			out.Cells = append(out.Cells, x)
		}
		e := json.NewEncoder(&b)
		e.SetIndent("", " ")
		err := e.Encode(out)
		return File{name + ".json", "application/json", b.String()}, err
	}
	return File{}, fmt.Errorf("the sweep exports csv or json, not %q", kind)
}
