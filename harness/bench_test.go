package harness

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBenchCasesValid: every bench case (scaling series included) is a valid config.
func TestBenchCasesValid(t *testing.T) {
	names := map[string]bool{}
	for _, c := range BenchCases(true) {
		cfg, err := c.Config()
		require.NoError(t, err, c.Name)
		require.NoError(t, cfg.Validate(), c.Name)
		require.False(t, names[c.Name], "duplicate %s", c.Name)
		names[c.Name] = true
	}
	require.Len(t, BenchCases(false), 6)
}
