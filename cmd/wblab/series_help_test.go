package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// wblab help series explains every wait cause of an editor's saves with the
// kernel function it sleeps in.
func TestHelpSeriesExplainsWaits(t *testing.T) {
	code, out, _ := runArgs(t, "help", "series")
	require.Equal(t, 0, code)
	flat := strings.Join(strings.Fields(out), " ")
	for _, d := range engine.WaitDocs() {
		assert.Contains(t, out, "\n"+d.Name+"\n", d.Name)
		assert.Contains(t, flat, strings.Join(strings.Fields(d.Text()), " "), d.Name)
	}
}
