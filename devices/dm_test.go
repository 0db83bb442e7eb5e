package devices

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDMKey: dm is a device key in every model's --device text and in the device
// table the CLI, page and docs read; it round-trips through String and JSON, and a
// spec without it prints and marshals as before (no "dm" key).
func TestDMKey(t *testing.T) {
	for _, name := range []string{"chinner2010-vm", "wu2011-hdd", "nvme", "usb2-stick"} {
		t.Run(name, func(t *testing.T) {
			s, blk, err := ParseSpec(name + ",dm=on")
			require.NoError(t, err)
			assert.Nil(t, blk, "dm is hardware-side, not a block-layer key")
			assert.True(t, s.DM)
			assert.Equal(t, name+",dm=on", s.String())
			b, err := json.Marshal(s)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"dm":true`)
			off, _, err := ParseSpec(name + ",dm=off")
			require.NoError(t, err)
			assert.False(t, off.DM)
			assert.Equal(t, name, off.String())
			b, err = json.Marshal(off)
			require.NoError(t, err)
			assert.NotContains(t, string(b), `"dm"`)
			assert.Contains(t, KeysFor(s.Model), "dm")
		})
	}
	_, _, err := ParseSpec("nvme,dm=maybe")
	assert.ErrorContains(t, err, "want on or off")
	var doc string
	for _, p := range Params("") {
		if p.Key == "dm" {
			doc = p.Doc
		}
	}
	assert.Contains(t, doc, "device-mapper")
}

// TestDMName: dm's minors count from 0 under its major.
func TestDMName(t *testing.T) {
	for minor, want := range map[int]string{0: "253:0", 16: "253:16"} {
		assert.Equal(t, want, DMName(minor))
	}
}
