package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Every series column has an explanation naming its kernel variable or function.
func TestEveryColumnExplained(t *testing.T) {
	for _, c := range Columns[1:] { // time_s is the time axis
		d, ok := SeriesDoc(c.Name)
		if assert.True(t, ok, "series %s has no explanation", c.Name) {
			assert.NotEmpty(t, d.Meaning, c.Name)
			assert.NotEmpty(t, d.Kernel+d.Function, "%s: no kernel variable or function", c.Name)
		}
	}
	for _, c := range DiskSeries { // per-disk columns: explained for any disk
		col := "disk2_" + c.Name
		d, ok := SeriesDoc(col)
		if assert.True(t, ok, "per-disk series %s has no explanation", col) {
			assert.Equal(t, col, d.Name)
			assert.Contains(t, d.Meaning, "Disk 2: ", col)
			assert.NotEmpty(t, d.Kernel, col)
		}
	}
	_, ok := CardDoc("fs-journal_commits")
	assert.True(t, ok, "filesystem counters share one explanation")
	_, ok = SeriesDoc("no_such_column")
	assert.False(t, ok)
}
