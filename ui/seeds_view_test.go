package ui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

func TestMatrixSeedsPairedDelta(t *testing.T) {
	var base, test Cell
	for i, v := range []float64{50, 51, 49} {
		base.set(i, 3, v)
	}
	assert.True(t, base.Done)
	assert.InDelta(t, 50, base.BW, 1e-9)
	test.set(0, 3, 50.2)
	assert.False(t, test.Done)
	test.set(1, 3, 50.6)
	test.set(2, 3, 49.5)
	m := &Matrix{Base: "a", Test: "b", Cases: []string{"c"}, Cells: [][2]Cell{{base, test}}}
	rows := MatrixRows(m, "")
	// per-seed deltas +0.4, -0.8, +1.0: inside the noise
	assert.Equal(t, "~+0.2%", rows[0][1])
	assert.Equal(t, "~+0.2%", rows[1][1], "TOTAL paired by seed")
	assert.Contains(t, m.Text(), "~+0.2%")
	assert.Equal(t, 6, m.runsDone(3))
}

// TestSwitchRowsAndNeverRan runs an A/B pair whose kernels differ in switches that
// never run on ext4 1dd.
func TestSwitchRowsAndNeverRan(t *testing.T) {
	cfg, err := harness.ConfigForCase("thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X")
	require.NoError(t, err)
	cfg.Runtime = engine.Duration(10e9)
	bcfg := cfg
	bcfg.Kernel = "3.1.0-rc9-ioless-full-more_io_wait-5"
	a, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	b, err := engine.Run(context.Background(), bcfg)
	require.NoError(t, err)
	rows := SwitchRows(a, b)
	require.NotEmpty(t, rows)
	names := []string{}
	for _, r := range rows {
		names = append(names, r.Name)
		assert.NotEmpty(t, r.Doc)
		assert.NotEmpty(t, r.B)
	}
	assert.Contains(t, names, "balance_dirty_pages.io_less")
	var txt wire.NeverRanText
	require.NoError(t, Ask("neverran", wire.NeverRan{A: cfgJSON(cfg), B: cfgJSON(bcfg), ActA: a.SwitchActivity, ActB: b.SwitchActivity}, &txt))
	assert.True(t, strings.HasSuffix(txt.Text, ": this change never ran in this case"), txt.Text)
	assert.Contains(t, txt.Text, "more_io_wait")
	require.NoError(t, Ask("neverran", wire.NeverRan{A: cfgJSON(cfg), B: cfgJSON(cfg), ActA: a.SwitchActivity, ActB: a.SwitchActivity}, &txt))
	assert.Empty(t, txt.Text, "same kernel: nothing differs")
	assert.Len(t, SwitchRows(a, nil)[0].B, 0)
}

func cfgJSON(c engine.Config) string {
	b, _ := json.Marshal(c)
	return string(b)
}
