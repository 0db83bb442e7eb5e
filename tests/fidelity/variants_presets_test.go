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
	on := func(v kernel.Variants, name string) bool {
		b, ok := v.Get(name)
		require.True(t, ok, name)
		return b
	}
	v := p5.Variants
	assert.True(t, on(v, "more_io_wait") && on(v, "write_inode_requeue_wait") && on(v, "last_active_progress") && on(v, "kupdate_retry_early"), "patches 1-4")
	p7, _ := kernel.LookupPreset("more_io_wait-7")
	assert.True(t, on(p7.Variants, "blocked_requeue_wait") && on(p7.Variants, "grab_super_requeue_wait") && on(p7.Variants, "no_redirty_on_pages_skipped"))
	assert.False(t, on(p7.Variants, "pages_skipped_requeue_wait"), "-7 replaces patch 5 by removing redirty_tail on pages_skipped")
}
