package determinism

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// TestHashes computes the hash of every config under the running GOOS/GOARCH and,
// with $WBLAB_DETERMINISM_OUT set, writes them there as JSON for the driver.
func TestHashes(t *testing.T) {
	if testing.Short() && os.Getenv("WBLAB_DETERMINISM_OUT") == "" {
		t.Skip("short mode")
	}
	require.GreaterOrEqual(t, len(Configs()), 50)
	hashes, err := Hashes(context.Background())
	require.NoError(t, err)
	require.Len(t, hashes, len(Configs()))
	if out := os.Getenv("WBLAB_DETERMINISM_OUT"); out != "" {
		b, err := json.MarshalIndent(map[string]any{"goos": runtime.GOOS, "goarch": runtime.GOARCH, "hashes": hashes}, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(out, b, 0o644))
	}
}

// TestSameConfigSameHash runs a few configs twice in one process.
func TestSameConfigSameHash(t *testing.T) {
	cs := Configs()
	for _, i := range []int{0, 5, len(cs) - 1} {
		n := cs[i]
		t.Run(n.Name, func(t *testing.T) {
			var hs []string
			for range 2 {
				res, err := engine.Run(context.Background(), n.Config)
				require.NoError(t, err)
				h, err := Hash(res)
				require.NoError(t, err)
				hs = append(hs, h)
			}
			require.Equal(t, hs[0], hs[1])
		})
	}
}
