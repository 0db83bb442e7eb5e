package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/wblab/wblab/devices"
)

// Chinner 2010 (../shared/threads/chinner-2010-write_cache_pages-nr_to_write.txt):
// "This improves sustained sequential buffered write performance from around
// 250MB/s to 750MB/s for a 100GB file on an XFS filesystem on my 8p test VM."
func init() {
	registerExperiment(&Experiment{
		Name:   "chinner-2010",
		Thread: "chinner-2010-write_cache_pages-nr_to_write.txt",
		Doc: "XFS, 8 CPUs, 100 GB sequential buffered dd on chinner2010-vm: 2.6.36-rc1 vs +fix " +
			"(thread: ~250 vs ~750 MB/s), wbc_writepage towrt going 1, 0, -1, -2 before the fix, ext4 unaffected",
		run: runChinner2010,
	})
}

// chinnerConfig is the thread's machine: an 8p VM (4 GB assumed, default 2.6.36
// dirty ratios 20/10) writing one file with dd bs=1M.
func chinnerConfig(kernel, fs string, gb int64) (Config, error) {
	c := DefaultConfig()
	dev, err := devices.Preset("chinner2010-vm")
	if err != nil {
		return c, err
	}
	c.Device, c.Kernel, c.Filesystem = dev, kernel, fs
	c.CPUs, c.MemoryMB = 8, 4096
	c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
	c.Workload = Workload{DD: 1, BS: 1 << 20, Count: gb << 10}
	c.Runtime = Duration(int64(gb) * 10e9) // ≥ 100 MB/s
	c.Case = fmt.Sprintf("chinner-2010/%s-%dG", fs, gb)
	return c, nil
}

func runChinner2010(ctx context.Context, quick bool) (*ExperimentReport, error) {
	gb := int64(100)
	if quick {
		gb = 8
	}
	var cfgs []Config
	for _, fs := range []string{"xfs", "ext4"} {
		for _, k := range []string{"2.6.36-rc1", "2.6.36-rc1+fix"} {
			c, err := chinnerConfig(k, fs, gb)
			if err != nil {
				return nil, err
			}
			cfgs = append(cfgs, c)
		}
	}
	res, err := runAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	towrt, err := chinnerTowrt(ctx)
	if err != nil {
		return nil, err
	}
	buggy, fixed := ddRateMBps(res[0]), ddRateMBps(res[1])
	e4b, e4f := ddRateMBps(res[2]), ddRateMBps(res[3])
	f := map[string]float64{
		"buggy_MBps": buggy, "fixed_MBps": fixed, "ratio": fixed / buggy,
		"ext4_buggy_MBps": e4b, "ext4_fixed_MBps": e4f, "ext4_ratio": e4f / e4b,
		"file_GB": float64(gb),
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chinner-2010: %d GB sequential buffered dd, 8 CPUs, chinner2010-vm\n", gb)
	fmt.Fprintf(&b, "%-6s %14s %14s %7s   thread\n", "fs", "2.6.36-rc1", "+fix", "ratio")
	fmt.Fprintf(&b, "%-6s %9.0f MB/s %9.0f MB/s %7.2f   ~250 → ~750 MB/s (3.0)\n", "xfs", buggy, fixed, fixed/buggy)
	fmt.Fprintf(&b, "%-6s %9.0f MB/s %9.0f MB/s %7.2f   (unaffected)\n", "ext4", e4b, e4f, e4f/e4b)
	fmt.Fprintf(&b, "wbc_writepage towrt before the fix: %s\n", strings.Join(towrt, ", "))
	return &ExperimentReport{Figures: f, Text: b.String()}, nil
}

// chinnerTowrt runs the buggy kernel briefly with tracing and returns the towrt
// values of the flusher's wbc_writepage lines around the first one ≤ 1.
func chinnerTowrt(ctx context.Context) ([]string, error) {
	c, err := chinnerConfig("2.6.36-rc1", "xfs", 2)
	if err != nil {
		return nil, err
	}
	c.Runtime = Duration(1e9)
	c.TraceLines = 200_000
	r, err := Run(ctx, c)
	if err != nil {
		return nil, err
	}
	return TowrtSequence(r.Trace, 6), nil
}

// TowrtSequence extracts n consecutive towrt values of wbc_writepage lines from a
// trace, starting at the line before the first one whose towrt is ≤ 0 (the
// ->writepage call whose cluster drove nr_to_write to 0).
func TowrtSequence(trace []string, n int) []string {
	var vals []string
	for _, l := range trace {
		i := strings.Index(l, "wbc_writepage: ")
		if i < 0 {
			continue
		}
		j := strings.Index(l[i:], "towrt=")
		if j < 0 {
			continue
		}
		vals = append(vals, strings.Fields(l[i+j+len("towrt="):])[0])
	}
	for i, v := range vals {
		if v == "0" || strings.HasPrefix(v, "-") {
			start := max(i-1, 0)
			return vals[start:min(start+n, len(vals))]
		}
	}
	return nil
}
