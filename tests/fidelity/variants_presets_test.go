package fidelity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
)

// The thread kernels' presets exist under their names and name their switches.
func TestVariantsThreadPresets(t *testing.T) {
	for _, name := range []string{
		"3.1.0-rc9-ioless-full", "3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait",
		"3.1.0-rc9-ioless-full-more_io_wait-6", "3.1.0-rc9-ioless-full-more_io_wait-7",
		"3.1.0-rc9-ioless-full-more_io_wait-8", "3.1.0-rc9-ioless-full-more_io_wait-9",
		"3.1.0-rc9-ioless-full-more_io_wait-x", "3.1.0-rc9-ioless-full-more_io_wait-x2",
		"2.6.36-rc1", "2.6.36-rc1+fix", "4.6", "4.6+wbt", "4.6+wbt+qd1",
	} {
		p, err := kernel.LookupPreset(name)
		require.NoError(t, err, name)
		got, ok := kernel.PresetFor(p.Variants)
		assert.True(t, ok)
		assert.Equal(t, name, got)
	}
	p5, _ := kernel.LookupPreset("more_io_wait-5")
	v := p5.Variants
	assert.True(t, v.MoreIOWait && v.WriteInodeRequeueWait && v.LastActiveProgress && v.KupdateRetryEarly, "patches 1-4")
	p7, _ := kernel.LookupPreset("more_io_wait-7")
	assert.True(t, p7.Variants.BlockedRequeueWait && p7.Variants.GrabSuperRequeueWait && p7.Variants.NoRedirtyOnPagesSkipped)
	assert.False(t, p7.Variants.PagesSkippedRequeueWait, "-7 replaces patch 5 by removing redirty_tail on pages_skipped")
}
