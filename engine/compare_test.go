package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
)

func TestMatricesFromTheThread(t *testing.T) {
	want := map[string]struct {
		base, test string
		rows       int
	}{
		"wu-2011-T1": {"3.1.0-rc9-ioless-full", "3.1.0-rc9-ioless-full-more_io_wait-5", 24},
		"wu-2011-T2": {"3.1.0-rc9-ioless-full-more_io_wait", "3.1.0-rc9-ioless-full-more_io_wait-7", 20},
		"wu-2011-T3": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-9", 24},
		"wu-2011-T4": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-8", 24},
		"wu-2011-T5": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-6", 14},
		"wu-2011-T6": {"3.1.0-rc9-ioless-full-more_io_wait-5", "3.1.0-rc9-ioless-full-more_io_wait-7", 20},
	}
	require.Len(t, Matrices(), len(want))
	for name, w := range want {
		m, err := LookupMatrix(name)
		require.NoError(t, err)
		assert.Equal(t, w.base, m.Base, name)
		assert.Equal(t, w.test, m.Test, name)
		assert.Len(t, m.Rows, w.rows, name)
		for _, c := range m.Cases() {
			_, err := compareConfig(c, m.Base, CompareOptions{})
			require.NoError(t, err, c)
		}
	}
	m, _ := LookupMatrix("wu-2011-T1")
	// +1.2% in the mail includes the thresh=8M rows the copy omits
	assert.InDelta(t, 1.0, m.ThreadTotalDeltaPct(), 0.05, "the thread's delta over the listed cases")
}

func TestCompareText(t *testing.T) {
	c := &Comparison{Base: "3.1.0-rc9-ioless-full", Test: "3.1.0-rc9-ioless-full-more_io_wait-5",
		Rows:          []CompareRow{{Case: "thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X", BaseMBps: 56.47, TestMBps: 58.22, DeltaPct: 3.1}},
		TotalBaseMBps: 56.47, TotalTestMBps: 58.22, TotalDeltaPct: 3.1}
	lines := strings.Split(c.Text(), "\n")
	assert.Equal(t, "3.1.0-rc9-ioless-full-next-20111014+  3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+  ", lines[0])
	assert.Equal(t, "                   56.47        +3.1%        58.22  thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X", lines[2])
	assert.True(t, strings.HasSuffix(lines[3], "  TOTAL write_bw"))
}

func TestCompareRuns(t *testing.T) {
	cmp, err := Compare(context.Background(), "ioless-full", "more_io_wait-5",
		[]string{"thresh=100M/xfs-2dd-4k-8p-4096M-100M:10-X", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X"},
		CompareOptions{Runtime: Duration(20e9)})
	require.NoError(t, err)
	require.Len(t, cmp.Rows, 2)
	for _, r := range cmp.Rows {
		assert.Positive(t, r.BaseMBps)
		assert.Positive(t, r.TestMBps)
	}
	assert.InDelta(t, cmp.Rows[0].BaseMBps+cmp.Rows[1].BaseMBps, cmp.TotalBaseMBps, 1e-9)
	_, err = Compare(context.Background(), "nope", "4.6", []string{"x"}, CompareOptions{})
	require.ErrorContains(t, err, "--base")
	_, err = kernel.LookupPreset("more_io_wait-x2")
	require.NoError(t, err)
}
