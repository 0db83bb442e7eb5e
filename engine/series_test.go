package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestColumnsTable: every time-series column has a unique name, a unit, a meaning
// and a sampler; names carry their unit as suffix where the unit has one.
func TestColumnsTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Columns {
		assert.False(t, seen[c.Name], "duplicate column %s", c.Name)
		seen[c.Name] = true
		assert.NotEmpty(t, c.Unit, c.Name)
		assert.NotEmpty(t, c.Doc, c.Name)
		assert.NotNil(t, c.sample, c.Name)
	}
	assert.Equal(t, "time_s", Columns[0].Name, "the CSV's first column")
}
