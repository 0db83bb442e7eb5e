package engine

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/wblab/wblab/devices"
)

// benchCase is a representative case of issue 7 (cmd/wblab's "wblab bench" runs the
// same set and prints a table; see PERFORMANCE.md).
type benchCase struct {
	name string
	cfg  func() Config
}

func benchCaseFor(name string, runtime time.Duration) func() Config {
	return func() Config {
		c, err := ConfigForCase(name)
		if err != nil {
			panic(err)
		}
		c.Runtime = Duration(runtime)
		return c
	}
}

var benchCases = []benchCase{
	{"generic-1dd-100M-600s", benchCaseFor("thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", 600*time.Second)},
	{"xfs-100dd-1G-600s", benchCaseFor("thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", 600*time.Second)},
	{"ext4-10dd-8M-600s", benchCaseFor("thresh=8M/ext4-10dd-4k-8p-4096M-8M:10-X", 600*time.Second)},
	{"ext3-10dd-100M-600s", benchCaseFor("thresh=100M/ext3-10dd-4k-8p-4096M-100M:10-X", 600*time.Second)},
	{"kara-qd1-ext3-10000M-fsync", func() Config {
		c := DefaultConfig()
		c.Device, _ = devices.Preset("kara2016-qd1")
		c.Kernel, c.Filesystem = "4.6+wbt", "ext3"
		c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
		c.Workload = Workload{DD: 1, BS: 1 << 20, Count: 10000, Fsync: true}
		c.Runtime = Duration(1000 * time.Second)
		return c
	}},
	{"chinner-xfs-100G", func() Config {
		c := DefaultConfig()
		c.Device, _ = devices.Preset("chinner2010-vm")
		c.Kernel, c.Filesystem = "2.6.36-rc1", "xfs"
		c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
		c.Workload = Workload{DD: 1, BS: 1 << 20, Count: 100 << 10}
		c.Runtime = Duration(1000 * time.Second)
		return c
	}},
}

// benchRun runs cfg b.N times and reports sim-s/s, events/run, Mevents/s and the
// peak live heap of the last run (sampled at every time-series row, outside the
// timed part's allocation counts but inside its wall time: a few µs per sample).
func benchRun(b *testing.B, cfg Config) {
	if err := cfg.Validate(); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var events uint64
	var peak, base uint64
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		opt := RunOptions{}
		if i == b.N-1 {
			b.StopTimer()
			runtime.GC()
			metrics.Read(s)
			base = s[0].Value.Uint64()
			peak = base
			b.StartTimer()
			opt.Progress = func(done, total Time) {
				metrics.Read(s)
				peak = max(peak, s[0].Value.Uint64())
			}
		}
		r, err := RunWith(context.Background(), cfg, opt)
		if err != nil {
			b.Fatal(err)
		}
		events = r.Events
	}
	wall := time.Since(start).Seconds() / float64(b.N)
	sim := time.Duration(cfg.Runtime).Seconds()
	b.ReportMetric(sim/wall, "sim-s/s")
	b.ReportMetric(float64(events), "events/run")
	b.ReportMetric(float64(events)/wall/1e6, "Mevents/s")
	b.ReportMetric(float64(peak-min(base, peak))/(1<<20), "peak-heap-MB")
}

// BenchmarkCase runs the representative cases:
//
//	go test -run '^$' -bench 'Case' -benchtime 3x ./engine
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench Case -benchtime 3x ./engine
func BenchmarkCase(b *testing.B) {
	for _, c := range benchCases {
		b.Run(c.name, func(b *testing.B) { benchRun(b, c.cfg()) })
	}
}

// BenchmarkScaleDD: cost against dd count (1 → 10 → 100 → 1000) at thresh=1G.
func BenchmarkScaleDD(b *testing.B) {
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("dd=%d", n), func(b *testing.B) {
			benchRun(b, benchCaseFor(fmt.Sprintf("thresh=1G/generic-%ddd-4k-8p-4096M-1024M:10-X", n), 60*time.Second)())
		})
	}
}

// BenchmarkScaleTime: cost against simulated time (xfs, 100 dd, thresh=1G).
func BenchmarkScaleTime(b *testing.B) {
	for _, s := range []int{60, 600, 3600} {
		b.Run(fmt.Sprintf("sim=%ds", s), func(b *testing.B) {
			benchRun(b, benchCaseFor("thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", time.Duration(s)*time.Second)())
		})
	}
}

// BenchmarkScaleThresh: cost against the dirty threshold (ext4, 10 dd, 8 GB).
func BenchmarkScaleThresh(b *testing.B) {
	for _, th := range []string{"1M", "8M", "100M", "1024M", "4096M"} {
		b.Run("thresh="+th, func(b *testing.B) {
			benchRun(b, benchCaseFor(fmt.Sprintf("thresh=%s/ext4-10dd-4k-8p-8192M-%s:10-X", th, th), 600*time.Second)())
		})
	}
}
