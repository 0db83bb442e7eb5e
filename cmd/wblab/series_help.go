package main

import (
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine"
)

// seriesHelp is "wblab help series": every --series column with its unit and the
// explanation the page shows for it (engine/explain.go), then the summary figures.
func seriesHelp() string {
	var b strings.Builder
	b.WriteString("The --series CSV columns (MB = MiB = 2^20 bytes), as the page explains them:\n\n")
	for _, c := range engine.Columns {
		d, ok := engine.SeriesDoc(c.Name)
		if !ok { // time_s
			fmt.Fprintf(&b, "%s [%s]\n  %s\n\n", c.Name, c.Unit, c.Doc)
			continue
		}
		fmt.Fprintf(&b, "%s [%s]\n  %s\n\n", c.Name, c.Unit, wrap(d.Text(), 2, 88))
	}
	b.WriteString("Per-disk columns (a machine with several disks has each once per disk, diskN_NAME,\n" +
		"N = 1 for the first disk in mount order; the page's \"Per disk\" chart):\n\n")
	for _, c := range engine.DiskSeries {
		if d, ok := engine.DiskSeriesDoc(c.Name); ok {
			fmt.Fprintf(&b, "%s [%s]\n  %s\n\n", d.Name, c.Unit, wrap(d.Text(), 2, 88))
		}
	}
	b.WriteString("Where an editor's saves spent their time (the Result's editors[].time_in, the\n" +
		"summary's \"time in:\"; the model's wait points label each sleep with its cause):\n\n")
	for _, d := range engine.WaitDocs() {
		fmt.Fprintf(&b, "%s\n  %s\n\n", d.Name, wrap(d.Text(), 2, 88))
	}
	b.WriteString("Summary figures (the page's cards):\n\n")
	for _, id := range []string{"write_bw", "written", "cpu", "data_age", "age", "busy", "dd_time", "read_p99", "fs-"} {
		label := id
		if id == "fs-" {
			label = "fs-NAME"
		}
		if d, ok := engine.CardDoc(id); ok {
			fmt.Fprintf(&b, "%s\n  %s\n\n", label, wrap(d.Text(), 2, 88))
		}
	}
	return b.String()
}
