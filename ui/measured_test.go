package ui

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine"
	enginelab "github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/ui/wire"
)

func TestMeasuredRunOnModelGrid(t *testing.T) {
	m := enginelab.MeasuredCases()[0]
	res, err := engine.Run(context.Background(), m.Cfg)
	require.NoError(t, err)
	var mm wire.MeasuredMatch // as the engine worker sends it
	b, err := json.Marshal(m.Cfg)
	require.NoError(t, err)
	require.NoError(t, Ask("measured", wire.MeasuredAsk{Config: string(b)}, &mm))
	require.NotNil(t, mm.Match)
	wm := *mm.Match
	r := MeasuredRun(&wm, res)
	assert.Equal(t, MeasuredLabel, r.Label)
	mt, _ := res.Series.Column("time_s")
	rt, _ := r.Result.Series.Column("time_s")
	assert.Equal(t, mt, rt, "on the model's time grid")
	assert.True(t, r.Absent["setpoint_MB"], "the harness does not measure the setpoint")
	assert.False(t, r.Absent["dirty_MB"])
	// each value is the last measured sample at or before the model time
	ms := wm.Series
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
	cards := MeasuredCards([]Card{{ID: "write_bw"}, {ID: "cpu"}}, &wm)
	assert.Contains(t, cards[0].M, "window")
	assert.Empty(t, cards[1].M)
	assert.Contains(t, wm.Note, "validate/README.md")
}
