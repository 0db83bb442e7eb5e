package harness

import _ "embed" // the thread tables

// wu2011TablesCSV is the one copy of ../shared/reference/wu-2011-tables.csv: the
// comparison tables T1-T6 of Wu's result mail in the Wu 2011 thread (the thresh=8M
// rows and TOTAL rows are omitted from the thread's copy). Columns: table,
// base_kernel, test_kernel, case, base_write_bw_MBps, delta_pct, test_write_bw_MBps.
// The matrices (compare.go) parse it once; the page reads them from there.
//
//go:embed wu-2011-tables.csv
var wu2011TablesCSV string
