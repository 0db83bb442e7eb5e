package validate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wblab/wblab/engine/kernel"
)

func TestPresetFor(t *testing.T) {
	for _, tc := range []struct{ uname, want string }{
		{"6.1.0-57-amd64", "6.1"},
		{"6.12.118+deb12-amd64", "6.12"},
		{"6.12", "6.12"},
		{"6.120.1", "6.1"}, // not a 6.12
		{"", "6.1"},
	} {
		assert.Equal(t, tc.want, presetFor(tc.uname), tc.uname)
		_, err := kernel.LookupPreset(presetFor(tc.uname))
		assert.NoError(t, err, "a preset")
	}
}
