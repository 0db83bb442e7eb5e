package lab

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// TestFirstRunIsTheFirstPagesRun: the prerendered first run is the catalog's first
// page config, its rows are its Result's series, and its result is that config's run.
func TestFirstRunIsTheFirstPagesRun(t *testing.T) {
	f, err := RunFirstPage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, NewCatalog().FirstPageJSON, f.Config)
	var res engine.Result
	require.NoError(t, json.Unmarshal([]byte(f.Result), &res))
	assert.Equal(t, engine.FirstPageConfig().Case, res.Case)
	require.NotNil(t, res.Series)
	assert.Nil(t, res.Series.Data, "the rows are the chunk's")
	assert.Equal(t, res.Series.Names, f.Names)
	assert.Equal(t, res.RuntimeS, f.Done)
	ran, err := engine.RunWith(context.Background(), engine.FirstPageConfig(), engine.RunOptions{})
	require.NoError(t, err)
	assert.Equal(t, ran.Series.IntervalS, res.Series.IntervalS)
	b, err := base64.StdEncoding.DecodeString(f.Data)
	require.NoError(t, err)
	require.Equal(t, 8*f.Rows*f.Cols, len(b))
	require.Equal(t, len(ran.Series.Data[0]), f.Rows)
	for i := 0; i < f.Rows; i++ {
		for j := 0; j < f.Cols; j++ {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*(i*f.Cols+j):]))
			want := ran.Series.Data[j][i]
			if v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Fatalf("row %d %s: %v, the run's series %v", i, f.Names[j], v, want)
			}
		}
	}
	again, err := RunFirstPage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, f, again, "deterministic")
}

// TestResultMessageSeries: a streamed run's result leaves the series' rows to the
// chunks only when the chunks carried every column; otherwise, and for runs that were
// not streamed, the series goes whole.
func TestResultMessageSeries(t *testing.T) {
	names := engine.SeriesNames()
	data := make([][]float64, len(names))
	for i := range data {
		data[i] = []float64{1, 2}
	}
	disk := &engine.Series{IntervalS: 1, Names: append(slices.Clone(names), "sda_dirty_MB"), Data: append(slices.Clone(data), []float64{3, 4})}
	for _, tc := range []struct {
		name     string
		series   *engine.Series
		streamed bool
		noData   bool
	}{
		{"streamed", &engine.Series{IntervalS: 1, Names: names, Data: data}, true, true},
		{"not streamed", &engine.Series{IntervalS: 1, Names: names, Data: data}, false, false},
		{"streamed with per-disk columns", disk, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &engine.Result{Case: "c", Series: tc.series}
			out, _, err := ResultMessage(res, tc.streamed)
			require.NoError(t, err)
			var got engine.Result
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			require.NotNil(t, got.Series)
			assert.Equal(t, tc.series.Names, got.Series.Names)
			assert.Equal(t, 1.0, got.Series.IntervalS)
			if tc.noData {
				assert.Nil(t, got.Series.Data)
			} else {
				assert.Equal(t, tc.series.Data, got.Series.Data)
			}
			assert.NotNil(t, res.Series.Data, "the run's own result is left whole")
		})
	}
}
