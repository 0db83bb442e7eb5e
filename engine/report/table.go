package report

import "fmt"

// TableRow is one line of the harness's comparison table: base write_bw, delta,
// test write_bw (formatted, or a placeholder such as "..." or "error") and the case
// (harness.TableRow; the page's matrix prints through it too).
func TableRow(base, delta, test, name string) string {
	return fmt.Sprintf("%24s  %11s  %11s  %s\n", base, delta, test, name)
}
