package validate

import (
	"compress/gzip"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/sim"
)

// freerunPages is how many pages the model's lone dd of reference log name
// dirties in its first second (no writeback yet: the dd is CPU-bound).
func freerunPages(t *testing.T, name string) int64 {
	f, err := os.Open("references/" + name + ".log.gz")
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	l, err := ReadLog(name, zr)
	require.NoError(t, err)
	m, err := MixOf(l)
	require.NoError(t, err)
	cfg, _, err := MixConfig(l, &m)
	require.NoError(t, err)
	mc, err := engine.Build(cfg, engine.BuildOptions{})
	require.NoError(t, err)
	require.NoError(t, mc.RunUntil(context.Background(), sim.Second))
	return mc.Kernel().G.NrDirtied
}

// TestCalibrationXfsIomapFolioCost is a calibration test: XfsParams.IomapFolioCost
// was derived from the held 6.1 references' freerun dirtying rates, xfs
// 24-35 k pages/s against ext4's 15-29 k (about 1.2x). The model's lone 6.1 xfs
// dd, at the guest's CPU speed, dirties 1.1-1.35x what its ext4 dd does.
func TestCalibrationXfsIomapFolioCost(t *testing.T) {
	ext4 := freerunPages(t, "s1-ext4.r4")
	xfs := freerunPages(t, "s1-xfs.r2")
	ratio := float64(xfs) / float64(ext4)
	require.InDelta(t, 1.22, ratio, 0.12, "xfs %d vs ext4 %d pages in the first second", xfs, ext4)
}
