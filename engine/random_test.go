package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
)

// randomConfig draws a valid config from r: every device preset, random queue
// depth, thresholds, memory, CPUs, dd count, kernel switches, short runs.
func randomConfig(r *rand.Rand) Config {
	c := DefaultConfig()
	c.Seed = r.Uint64()
	c.CPUs = 1 + r.IntN(16)
	c.MemoryMB = int64(256 << r.IntN(7)) // 256M .. 16G
	c.Workload.DD = 1 + r.IntN(40)
	c.Workload.BS = []int64{512, 1024, 4096, 65536, 1 << 20}[r.IntN(5)]
	if r.IntN(4) == 0 {
		c.Workload.Count = int64(1 + r.IntN(20000))
		c.Workload.Fsync = r.IntN(2) == 0
	}
	if r.IntN(3) == 0 {
		c.DirtyBytes, c.DirtyRatio = 0, 1+r.IntN(60)
	} else {
		c.DirtyBytes = int64(1+r.IntN(int(c.MemoryMB/4))) << 20
	}
	if r.IntN(3) == 0 {
		c.DirtyBackgroundBytes, c.DirtyBackgroundRatio = int64(1+r.IntN(int(c.MemoryMB/8)))<<20, 0
	} else {
		c.DirtyBackgroundRatio = 1 + r.IntN(50)
	}
	if r.IntN(3) == 0 {
		c.Workload.Readers = 1 + r.IntN(4)
		c.Workload.ReadRandom = r.IntN(2) == 0
		c.Workload.ReadBS = int64(4096 << r.IntN(6))
	}
	c.DirtyExpireCs = 100 + r.IntN(3000)
	c.DirtyWritebackCs = r.IntN(600)
	c.HZ = []int{100, 250, 300, 1000}[r.IntN(4)]
	presets := devices.Presets()
	c.Device = presets[r.IntN(len(presets))]
	if r.IntN(2) == 0 {
		_ = c.Device.Set("qd", strconv.Itoa(1+r.IntN(64)))
	}
	c.Variants = kernel.Overrides{}
	for _, name := range kernel.VariantNames() {
		if r.IntN(3) == 0 {
			c.Variants[name] = r.IntN(2) == 0
		}
	}
	c.Runtime = Duration(time.Duration(2+r.IntN(15)) * time.Second)
	c.CheckInvariants = true
	return c
}

// TestRandomConfigsKeepInvariants runs random valid configs with every invariant
// checked after every event. A failure prints the config to replay.
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
		c := randomConfig(r)
		if err := c.Validate(); err != nil {
			continue // a draw the limits refuse (e.g. device override) is fine
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			res, err := Run(context.Background(), c)
			require.NoError(t, err, "config %d", i)
			require.GreaterOrEqual(t, res.DirtiedMB, res.WrittenMB)
		})
	}
}
