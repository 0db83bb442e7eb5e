package fs

import (
	"testing"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// BenchmarkFS is the run cost per filesystem: 10 dd for 60 simulated seconds on
// wu2011-hdd at dirty_bytes=100M. Compare each with generic (≤ 2× is the bar).
func BenchmarkFS(b *testing.B) {
	for _, tc := range []struct {
		name string
		mk   func() kernel.Filesystem
	}{
		{"generic", func() kernel.Filesystem { return NewGeneric() }},
		{"ext3", func() kernel.Filesystem { return NewExt3() }},
		{"ext4", func() kernel.Filesystem { return NewExt4() }},
		{"xfs", func() kernel.Filesystem { return NewXfs() }},
		{"btrfs", func() kernel.Filesystem { return NewBtrfs() }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				w, k := testKernel(b, "wu2011-hdd", tc.mk(), 100<<20, nil)
				runDD(b, w, k, 10, 60*sim.Second, false)
			}
		})
	}
}
