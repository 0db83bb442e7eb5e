package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/tests/determinism"
)

// TestRandomConfigsKeepInvariants runs random valid configs (every filesystem,
// device preset, kernel switch; the generator the determinism tests share) with
// every invariant checked after every event. A failure names the config to replay.
func TestRandomConfigsKeepInvariants(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 15
	}
	if v, err := strconv.Atoi(os.Getenv("WBLAB_RANDOM_CONFIGS")); err == nil && v > 0 {
		n = v // longer local sweeps
	}
	r := rand.New(rand.NewPCG(2026, 12))
	for i := 0; i < n; i++ {
		c := determinism.RandomConfig(r)
		c.CheckInvariants = true
		if err := c.Validate(); err != nil {
			continue // a draw the limits refuse (e.g. device override) is fine
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			res, err := engine.Run(context.Background(), c)
			require.NoError(t, err, "config %d", i)
			require.GreaterOrEqual(t, res.DirtiedMB, res.WrittenMB)
		})
	}
}
