package repro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAxboeDisksScale: with one dd per X25-E, both the shared pdflush pool and the
// per-bdi flushers keep every disk busy: aggregate throughput grows with the disks
// and each disk gets its share.
func TestAxboeDisksScale(t *testing.T) {
	e, err := LookupExperiment("axboe-2009-disks")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	t.Log("\n" + r.Text)
	for _, k := range axboeKernels {
		one, four := r.Figures[k+".1_disks.write_MBps"], r.Figures[k+".4_disks.write_MBps"]
		assert.Greater(t, four, 3.5*one, k)
		assert.Greater(t, r.Figures[k+".4_disks.min_over_max"], 0.9, k)
	}
}
