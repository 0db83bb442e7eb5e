package repro

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExperimentsRegistered(t *testing.T) {
	for _, e := range Experiments() {
		require.NotEmpty(t, e.Doc, e.Name)
		got, err := LookupExperiment(e.Name)
		require.NoError(t, err)
		require.Equal(t, e, got)
	}
	_, err := LookupExperiment("nope")
	require.ErrorContains(t, err, "chinner-2010")
}

func TestTowrtSequence(t *testing.T) {
	tr := []string{
		"flush-8:0-1 [000] 1.0: wbc_writepage: bdi 8:0: towrt=3 skip=0",
		"flush-8:0-1 [000] 1.0: wbc_writepage: bdi 8:0: towrt=1 skip=0",
		"flush-8:0-1 [000] 1.0: global_dirty_state: dirty=1",
		"flush-8:0-1 [000] 1.0: wbc_writepage: bdi 8:0: towrt=0 skip=0",
		"flush-8:0-1 [000] 1.0: wbc_writepage: bdi 8:0: towrt=-1 skip=0",
	}
	require.Equal(t, []string{"1", "0", "-1"}, towrtSequence(tr, 5))
}

func TestChinner2010Quick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 4 simulations")
	}
	e, err := LookupExperiment("chinner-2010")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	t.Log(r.Text)
}

func TestKara2016Quick(t *testing.T) {
	e, err := LookupExperiment("kara-2016")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	for _, k := range []string{"ext3_s", "ext3_wbt_s", "ext3_wbt_qd1_s", "ext4_s", "ext4_wbt_s", "ext4_wbt_qd1_s",
		"ext3_journal_share", "ext3_wbt_journal_share"} {
		require.Contains(t, r.Figures, k)
	}
	require.Positive(t, r.Figures["ext3_s"], "dd finished")
	require.Positive(t, r.Figures["ext3_journal_share"], "kjournald writes ordered data")
	require.Zero(t, r.Figures["ext4_journal_share"], "delalloc: no ordered data in the journal")
	t.Log(r.Text)
}

func TestAxboe2009Quick(t *testing.T) {
	if testing.Short() {
		t.Skip("4 runs of 30 s")
	}
	e, err := LookupExperiment("axboe-2009")
	require.NoError(t, err)
	r, err := e.Run(context.Background(), true)
	require.NoError(t, err)
	for _, k := range []string{"seq_tps", "seq_cpu", "rand_tps", "rand_cpu"} {
		require.Positive(t, r.Figures[k], k)
	}
	t.Log(r.Text)
}
