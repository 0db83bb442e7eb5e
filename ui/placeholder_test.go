package ui

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBlockPlaceholders: an empty block-layer field shows what the chosen
// kernel sets for the chosen device, not a device constant.
func TestBlockPlaceholders(t *testing.T) {
	tests := []struct {
		kernel, device, key, want string
	}{
		{"3.1.0-rc9-ioless-full", "wu2011-hdd", "dev.wbt", "off"},
		{"6.1", "wu2011-hdd", "dev.wbt", "on"},
		{"6.1", "wu2011-hdd", "dev.nr_requests", "62"},
		{"3.1.0-rc9-ioless-full", "wu2011-hdd", "dev.max_sectors_kb", "512"},
		{"6.1", "usb2-stick", "dev.max_sectors_kb", "120"},
		{"6.1", "wu2011-hdd", "dev.rpm", "7200"},
	}
	for _, tc := range tests {
		c := &FormPanel{Form: Form{"kernel": tc.kernel, "device": tc.device}}
		assert.Equal(t, tc.want, c.Placeholder(tc.key), "%s on %s: %s", tc.kernel, tc.device, tc.key)
	}
}
