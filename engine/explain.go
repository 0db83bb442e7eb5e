package engine

import "github.com/wblab/wblab/engine/report"

// The explanations of the series and summary figures are one table in
// engine/report (explain.go); a column without an entry there is explained by its
// row in Columns.

// SeriesDoc explains a series column or a chart's derived series. A column
// without an entry in report's table is explained by its own row in Columns (its
// one-line doc and kernel counterpart), so adding a column is one row there;
// the table adds the function, healthy and pathological text.
func SeriesDoc(col string) (Doc, bool) {
	if d, ok := report.LookupSeriesDoc(col); ok {
		return d, true
	}
	for _, c := range Columns {
		if c.Name == col {
			return Doc{Name: c.Name, Meaning: c.Doc, Kernel: c.Kernel}, true
		}
	}
	if n, m, ok := report.DiskColumn(col); ok {
		if d, ok := DiskSeriesDoc(m); ok {
			return d.ForDisk(n, col), true
		}
	}
	return Doc{}, false
}

// DiskSeriesDoc explains a per-disk metric (a row of DiskSeries), filed under
// report.DiskColumnTemplate(metric): what the page's catalog carries once for
// every disk.
func DiskSeriesDoc(metric string) (Doc, bool) {
	for _, c := range DiskSeries {
		if c.Name == metric {
			return Doc{Name: report.DiskColumnTemplate(c.Name), Meaning: upperFirst(c.Doc) + ".", Kernel: c.Kernel}, true
		}
	}
	return Doc{}, false
}

// upperFirst capitalises a one-line doc's first letter for a sentence.
func upperFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// CardDoc explains a summary figure ("fs-NAME" for a filesystem counter).
func CardDoc(id string) (Doc, bool) { return report.CardDoc(id) }

// WaitDocs explains where an editor's save spent its time (LatencyResult.TimeIn):
// one Doc per kernel wait cause, by its key, naming the kernel function(s) the
// task slept in.
func WaitDocs() []Doc { return report.WaitDocs() }
