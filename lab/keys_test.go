package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHashOldSwitchName: a link written when bdi_knobs_v62 was bdi_knobs_v63
// loads the switch under its new name, in A and in B.
func TestHashOldSwitchName(t *testing.T) {
	s, ferr := DecodeHash("#v=1&kernel=6.1&v.bdi_knobs_v63=on&mode=ab&b.kernel=6.1&b.v.bdi_knobs_v63=off")
	require.Nil(t, ferr)
	assert.Equal(t, "on", s.Form["v.bdi_knobs_v62"])
	assert.NotContains(t, s.Form, "v.bdi_knobs_v63")
	assert.Equal(t, "off", s.B["v.bdi_knobs_v62"])
	cfg, ferr := FormConfig(s.Form)
	require.Nil(t, ferr)
	assert.Equal(t, map[string]bool{"bdi_knobs_v62": true}, map[string]bool(cfg.Variants))
	assert.Contains(t, EncodeHash(s), "v.bdi_knobs_v62=on")
}
