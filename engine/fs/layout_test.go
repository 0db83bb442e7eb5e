package fs

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

func TestLayoutWindows(t *testing.T) {
	for _, tc := range []struct {
		name    string
		l       Layout
		allocs  [][2]int64 // file, pages (in order)
		extents []int      // extents per file after
	}{
		{"one file stays contiguous across windows", Layout{MinWindowPages: 8, MaxWindowPages: 1027},
			[][2]int64{{0, 5000}}, []int{1}},
		{"two files interleave at window size", Layout{MinWindowPages: 2048, MaxWindowPages: 2048},
			[][2]int64{{0, 1000}, {1, 1000}, {0, 2000}, {1, 2000}}, []int{2, 2}},
		{"growing windows: fewer extents as the file streams", Layout{MinWindowPages: 8, MaxWindowPages: 1027},
			[][2]int64{{0, 8}, {1, 8}, {0, 24}, {1, 24}, {0, 56}, {1, 56}}, []int{3, 3}},
		{"exact (COW): each allocation at the frontier", Layout{},
			[][2]int64{{0, 100}, {1, 100}, {0, 100}}, []int{2, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := tc.l
			files := make([]fileMap, len(tc.extents))
			for _, a := range tc.allocs {
				f := &files[a[0]]
				l.alloc(f, f.allocEnd+a[1])
			}
			for i := range files {
				assert.Equal(t, tc.extents[i], files[i].Extents(), "file %d: %+v", i, files[i].ext)
				// the map is consistent: sectors strictly increase within an extent and
				// no two files share a sector
				for _, e := range files[i].ext {
					for j := range files {
						if j == i {
							continue
						}
						for _, o := range files[j].ext {
							assert.False(t, e.disk < o.disk+o.n*devices.PageSectors && o.disk < e.disk+e.n*devices.PageSectors,
								"files %d and %d overlap", i, j)
						}
					}
				}
			}
		})
	}
}

// TestLayoutPerFilesystem: where 10 concurrent dd files end up. ext3 allocates at
// write() in ≤ 4 MB reservation windows split by inline indirect blocks (many
// extents), ext4 in 8 MB mballoc windows at writeback, XFS in 1 GB allocsize
// windows (one or two extents per file), btrfs at the COW frontier.
func TestLayoutPerFilesystem(t *testing.T) {
	for _, tc := range []struct {
		name         string
		fs           kernel.Filesystem
		minExtentMB  float64
		maxExtentMB  float64
		minExtentMB1 float64 // a lone dd file: contiguous but for inline metadata
	}{
		{"ext3", NewExt3(), 1, 4.1, 3.99}, // an indirect block before every 4 MB
		{"ext4", NewExt4(), 4, 64, 1000},
		{"xfs", NewXfs(), 50, 1024, 1000},
		{"btrfs", NewBtrfs(), 0.1, 128, 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, k := testKernel(t, "simple", tc.fs, 100<<20, nil)
			runDD(t, w, k, 10, 20*sim.Second, false)
			epf, mean := LayoutStats(k)
			t.Logf("%s 10dd: %.0f extents per file, %.1f MB per extent", tc.name, epf, mean)
			assert.GreaterOrEqual(t, mean, tc.minExtentMB)
			assert.LessOrEqual(t, mean, tc.maxExtentMB)
			w1, k1 := testKernel(t, "simple", map[string]func() kernel.Filesystem{
				"ext3": func() kernel.Filesystem { return NewExt3() }, "ext4": func() kernel.Filesystem { return NewExt4() },
				"xfs": func() kernel.Filesystem { return NewXfs() }, "btrfs": func() kernel.Filesystem { return NewBtrfs() },
			}[tc.name](), 100<<20, nil)
			runDD(t, w1, k1, 1, 20*sim.Second, false)
			_, mean1 := LayoutStats(k1)
			assert.GreaterOrEqual(t, mean1, tc.minExtentMB1, "a lone dd file is contiguous")
		})
	}
}

// TestDeterministic: the same seed gives the same run on every filesystem.
func TestDeterministic(t *testing.T) {
	for _, mk := range []func() kernel.Filesystem{
		func() kernel.Filesystem { return NewExt3() }, func() kernel.Filesystem { return NewExt4() },
		func() kernel.Filesystem { return NewXfs() }, func() kernel.Filesystem { return NewBtrfs() },
	} {
		run := func() [3]int64 {
			w, k := testKernel(t, "wu2011-hdd", mk(), 100<<20, nil)
			runDD(t, w, k, 10, 20*sim.Second, false)
			return [3]int64{k.G.NrWritten, int64(w.Events()), int64(k.Flusher().Thread().Task.CPUTime())}
		}
		a, b := run(), run()
		require.Equal(t, a, b, mk().Name())
	}
}
