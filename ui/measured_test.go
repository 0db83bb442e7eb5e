package ui

import (
	"context"
	"math"
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
			cfg, ferr := st.Form.Config()
			require.Nil(t, ferr)
			got, ok := MeasuredFor(cfg)
			require.True(t, ok, "the page's config from the link finds the reference")
			assert.Equal(t, m.Name, got.Name)
			cfg.Seed = 7
			_, ok = MeasuredFor(cfg)
			assert.True(t, ok, "any seed")
			cfg.Workload.DD++
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

func TestMeasuredRunOnModelGrid(t *testing.T) {
	m := MeasuredCases()[0]
	cfg := m.Cfg
	res, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	r := MeasuredRun(m, res)
	assert.Equal(t, MeasuredLabel, r.Label)
	mt, _ := res.Series.Column("time_s")
	rt, _ := r.Result.Series.Column("time_s")
	assert.Equal(t, mt, rt, "on the model's time grid")
	assert.True(t, r.Absent["setpoint_MB"], "the harness does not measure the setpoint")
	assert.False(t, r.Absent["dirty_MB"])
	// each value is the last measured sample at or before the model time
	ms := m.Log.Series()
	st, _ := ms.Column("time_s")
	sd, _ := ms.Column("dirty_MB")
	rd, _ := r.Result.Series.Column("dirty_MB")
	for i, x := range rt {
		j := -1
		for j+1 < len(st) && st[j+1] <= x+1e-9 {
			j++
		}
		if j < 0 {
			assert.True(t, math.IsNaN(rd[i]))
			continue
		}
		assert.Equal(t, sd[j], rd[i], "t=%v", x)
	}
	// the charts draw it (dashed, second run) next to the model
	opts, _, ok := ChartJSON(Charts[0], []Run{{Result: res}, r})
	assert.True(t, ok)
	assert.Contains(t, opts, MeasuredLabel+": dirty")
	cards := MeasuredCards([]Card{{ID: "write_bw"}, {ID: "cpu"}}, m)
	assert.Contains(t, cards[0].M, "window")
	assert.Empty(t, cards[1].M)
	assert.Contains(t, MeasuredNote(m), "validate/README.md")
}
