package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDiskColumn(t *testing.T) {
	for _, tc := range []struct {
		in     string
		disk   int
		metric string
		ok     bool
	}{
		{"disk2_dirty_MB", 2, "dirty_MB", true},
		{"disk12_avgqu_sz", 12, "avgqu_sz", true},
		{"dirty_MB", 0, "", false},
		{"disk_x", 0, "", false},
		{"disk0_dirty_MB", 0, "", false},
		{"disk01_dirty_MB", 0, "", false}, // DiskColumnName never writes it
		{"diskX_dirty_MB", 0, "", false},
		{"diskN_dirty_MB", 0, "", false}, // the template key, not a column
	} {
		d, m, ok := DiskColumn(tc.in)
		assert.Equal(t, tc.ok, ok, tc.in)
		assert.Equal(t, tc.disk, d, tc.in)
		assert.Equal(t, tc.metric, m, tc.in)
		if ok {
			assert.Equal(t, tc.in, DiskColumnName(d, m), "round trip")
		}
	}
}

func TestDocForDisk(t *testing.T) {
	d := Doc{Name: DiskColumnTemplate("dirty_MB"), Meaning: "The disk's dirty pages.", Kernel: "BDI_RECLAIMABLE"}
	got := d.ForDisk(3, "disk3_dirty_MB")
	assert.Equal(t, "disk3_dirty_MB", got.Name)
	assert.Equal(t, "Disk 3: The disk's dirty pages.", got.Meaning)
	assert.Equal(t, "BDI_RECLAIMABLE", got.Kernel)
}
