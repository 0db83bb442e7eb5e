package lab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
)

func TestMeasuredLinkFindsItsReference(t *testing.T) {
	ms := MeasuredCases()
	require.NotEmpty(t, ms)
	for _, m := range ms {
		t.Run(m.Name, func(t *testing.T) {
			st, ferr := DecodeHash(MeasuredHash(m))
			require.Nil(t, ferr)
			cfg, ferr := FormConfig(st.Form)
			require.Nil(t, ferr)
			got, ok := MeasuredFor(cfg)
			require.True(t, ok, "the page's config from the link finds the reference")
			assert.Equal(t, m.Name, got.Name)
			cfg.Seed = 7
			_, ok = MeasuredFor(cfg)
			assert.True(t, ok, "any seed")
			cfg.Disks[0].Workload.DD++
			_, ok = MeasuredFor(cfg)
			assert.False(t, ok, "another case has no reference")
		})
	}
	_, ok := MeasuredFor(engine.DefaultConfig())
	assert.False(t, ok)
	links := MeasuredLinks()
	require.Len(t, links, len(ms))
	assert.Equal(t, ms[0].Name, links[0].Name)
	assert.Equal(t, MeasuredHash(ms[0]), links[0].Href)
}
