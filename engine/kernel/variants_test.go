package kernel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPresetsAreDistinctAndFound(t *testing.T) {
	seen := map[Variants]string{}
	for _, p := range Presets() {
		first, dup := seen[p.Variants]
		if !dup {
			first = p.Name
			seen[p.Variants] = p.Name
		}
		if dup && !(first == "2.6.36-rc1" && p.Name == "2.6.30-rc6+per-bdi") {
			t.Errorf("presets %s and %s have the same switches", p.Name, first)
		}
		got, ok := PresetFor(p.Variants)
		require.True(t, ok, p.Name)
		assert.Equal(t, first, got)
		for _, sw := range Switches {
			assert.NotEmpty(t, sw.Doc, "doc for %s", sw.Name)
			assert.NotEmpty(t, sw.Models, "kernel function for %s", sw.Name)
			assert.NotEmpty(t, sw.Source, "source for %s", sw.Name)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+", "3.1.0-rc9-ioless-full-more_io_wait-5"},
		{"more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-5"},
		{"ioless-full", "3.1.0-rc9-ioless-full"},
		{"more_io_wait", "3.1.0-rc9-ioless-full-more_io_wait"},
		{"2.6.36-rc1+fix", "2.6.36-rc1+fix"},
		{"4.6+wbt+qd1", "4.6+wbt+qd1"},
	} {
		p, err := LookupPreset(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, p.Name, tc.in)
	}
	v := wu2011([]int{1, 2, 3, 4}, false, false, false)
	assert.True(t, v.On(swMoreIOWait) && v.On(swWriteInodeRequeueWait) && v.On(swLastActiveProgress) && v.On(swKupdateRetryEarly))
	assert.False(t, v.On(swPagesSkippedRequeueWait) || v.On(swBlockedRequeueWait) || v.On(swGrabSuperRequeueWait))
}
