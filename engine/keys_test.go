package engine

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeyErrorsAll: every bad setting of the key table is reported at once, each
// naming its JSON name and range, and Validate returns them all.
func TestKeyErrorsAll(t *testing.T) {
	c := DefaultConfig()
	c.CPUs, c.DirtyRatio, c.DirtyExpireCs = 0, 101, 0
	errs := c.KeyErrors()
	require.Len(t, errs, 3)
	assert.EqualError(t, errs[0], "dirty_ratio: 101 % is out of range 0-100 %")
	assert.EqualError(t, errs[1], "dirty_expire_centisecs: 0 centisecs is out of range 1-360000 centisecs")
	assert.EqualError(t, errs[2], "cpus: 0 is out of range 1-256")
	err := c.Validate()
	for _, e := range errs {
		assert.ErrorContains(t, err, e.Error())
	}
}

// TestConfigKeysRoundTrip: each key's text parses back to its value, and its
// names are unique.
func TestConfigKeysRoundTrip(t *testing.T) {
	seen := map[string]bool{}
	c := DefaultConfig()
	c.DirtyBackgroundBytes = 50 << 20
	c.Reclaim = &ReclaimConfig{AnonMB: 3500, Swap: true}
	c.Variants = Overrides{"wbt": false, "bdi_knobs_v62": true}
	c.Disks[0].Device.QueueDepth = 7
	c.Disks[0].Block = BlockOverrides{"wbt": "off"}
	for _, k := range ConfigKeys {
		for _, name := range []string{"json:" + k.JSON, "form:" + k.Form, "flag:" + k.Flag} {
			assert.False(t, seen[name] && name != "flag:" && name != "form:", "%s twice", name)
			seen[name] = true
		}
		var back Config
		require.NoError(t, k.Parse(&back, k.Text(&c)), k.JSON)
		if k.JSON == "reclaim.swap" {
			continue // read after anon_MB
		}
		assert.Equal(t, k.Value(&c), k.Value(&back), k.JSON)
		assert.Equal(t, k.Text(&c), k.Text(&back), k.JSON)
		if lo, hi := k.Bounds(&c); k.Ranged() {
			assert.Less(t, lo, hi, k.JSON)
		}
	}
	assert.ErrorContains(t, ConfigKeys[1].Parse(&c, "x"), "not a whole number")
	c = DefaultConfig()
	c.MemoryMB, c.DirtyBytes, c.DirtyRatio = 32, 0, 20
	assert.EqualError(t, c.Validate(), "memory_MB: 32 MiB is out of range 64 MiB-256 GiB", "human units")
}

// TestSwitchAlias: a switch's former name (bdi_knobs_v63, renamed bdi_knobs_v62)
// is still read from a config's JSON, renamed on the way in, and applies.
func TestSwitchAlias(t *testing.T) {
	var c Config
	require.NoError(t, json.Unmarshal([]byte(`{"kernel":"6.1","variants":{"bdi_knobs_v63":true}}`), &c))
	assert.Equal(t, Overrides{"bdi_knobs_v62": true}, c.Variants)
	assert.Equal(t, "bdi_knobs_v62", SwitchName("bdi_knobs_v63"))
	assert.Equal(t, "nosuch", SwitchName("nosuch"))
	v, err := Overrides{"bdi_knobs_v63": true}.Apply(Variants{})
	require.NoError(t, err)
	on, ok := v.Get("bdi_knobs_v62")
	assert.True(t, ok && on)
}
