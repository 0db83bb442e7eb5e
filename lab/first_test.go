package lab

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
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
	require.NotNil(t, res.Series)
	assert.Equal(t, engine.FirstPageConfig().Case, res.Case)
	assert.Equal(t, res.Series.Names, f.Names)
	assert.Equal(t, res.RuntimeS, f.Done)
	b, err := base64.StdEncoding.DecodeString(f.Data)
	require.NoError(t, err)
	require.Equal(t, 8*f.Rows*f.Cols, len(b))
	require.Equal(t, len(res.Series.Data[0]), f.Rows)
	for i := 0; i < f.Rows; i++ {
		for j := 0; j < f.Cols; j++ {
			v := math.Float64frombits(binary.LittleEndian.Uint64(b[8*(i*f.Cols+j):]))
			want := res.Series.Data[j][i]
			if v != want && !(math.IsNaN(v) && math.IsNaN(want)) {
				t.Fatalf("row %d %s: %v, the result's series %v", i, f.Names[j], v, want)
			}
		}
	}
	again, err := RunFirstPage(context.Background())
	require.NoError(t, err)
	assert.Equal(t, f, again, "deterministic")
}
