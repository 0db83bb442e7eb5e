package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPreset612 checks that 6.12 is 6.1 plus its own switches: every 6.1 switch
// on, and exactly the 6.12 ones added.
func TestPreset612(t *testing.T) {
	v61p, err := LookupPreset("6.1")
	require.NoError(t, err)
	v612p, err := LookupPreset("6.12")
	require.NoError(t, err)
	var added []string
	for _, n := range VariantNames() {
		a, _ := v61p.Variants.Get(n)
		b, _ := v612p.Variants.Get(n)
		if a {
			assert.True(t, b, "6.12 keeps %s", n)
		}
		if b && !a {
			added = append(added, n)
		}
	}
	assert.Equal(t, []string{"bdi_knobs_v62", "requeue_inode_dirtied_before", "wb_writeback_queued",
		"xfs_ioend_one_bio", "xfs_large_folios"}, added)
	assert.Equal(t, v61p.Variants.WBTDepth, v612p.Variants.WBTDepth)
	assert.Equal(t, v61p.Variants.MaxSectorsKB, v612p.Variants.MaxSectorsKB)
}
