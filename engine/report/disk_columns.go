package report

import (
	"strconv"
	"strings"
)

// Per-disk series: a machine with several disks has each per-disk column once per
// disk, named "diskN_" + metric (N = 1 for the first disk, in mount order).

// DiskColumnName is disk n's column of metric ("disk2_dirty_MB").
func DiskColumnName(n int, metric string) string { return "disk" + strconv.Itoa(n) + "_" + metric }

// DiskColumnTemplate is the key the explanation of a per-disk metric is filed
// under, whatever the disk ("diskN_dirty_MB").
func DiskColumnTemplate(metric string) string { return "diskN_" + metric }

// DiskColumn splits a per-disk column name ("disk2_dirty_MB" → 2, "dirty_MB").
func DiskColumn(name string) (disk int, metric string, ok bool) {
	rest, found := strings.CutPrefix(name, "disk")
	if !found {
		return 0, "", false
	}
	num, metric, found := strings.Cut(rest, "_")
	if !found || metric == "" {
		return 0, "", false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 || strconv.Itoa(n) != num {
		return 0, "", false
	}
	return n, metric, true
}

// ForDisk is a per-disk metric's explanation (filed under DiskColumnTemplate)
// made that of disk n's column.
func (d Doc) ForDisk(n int, col string) Doc {
	d.Name = col
	d.Meaning = "Disk " + strconv.Itoa(n) + ": " + d.Meaning
	return d
}
