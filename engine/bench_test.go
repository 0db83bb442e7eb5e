package engine_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

// benchRun runs cfg b.N times and reports sim-s/s, events/run, Mevents/s and the
// peak live heap of the last run (sampled at every time-series row, outside the
// timed part's allocation counts but inside its wall time: a few µs per sample).
func benchRun(b *testing.B, cfg engine.Config) {
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
		opt := engine.RunOptions{}
		if i == b.N-1 {
			b.StopTimer()
			runtime.GC()
			metrics.Read(s)
			base = s[0].Value.Uint64()
			peak = base
			b.StartTimer()
			opt.Progress = func(done, total engine.Time) {
				metrics.Read(s)
				peak = max(peak, s[0].Value.Uint64())
			}
		}
		r, err := engine.RunWith(context.Background(), cfg, opt)
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

// BenchmarkCase runs the representative cases (harness.BenchCases, the same list
// as "wblab bench"):
//
//	go test -run '^$' -bench 'Case' -benchtime 3x ./engine
//	GOOS=js GOARCH=wasm go test -exec="$(go env GOROOT)/lib/wasm/go_js_wasm_exec" -run '^$' -bench Case -benchtime 3x ./engine
func BenchmarkCase(b *testing.B) { benchCases(b, harness.BenchCases(false)) }

// BenchmarkScaleDD: cost against dd count (1 → 10 → 100 → 1000) at thresh=1G.
func BenchmarkScaleDD(b *testing.B) { benchCases(b, harness.BenchCasesWithPrefix("scale-dd/")) }

// BenchmarkScaleTime: cost against simulated time (xfs, 100 dd, thresh=1G).
func BenchmarkScaleTime(b *testing.B) { benchCases(b, harness.BenchCasesWithPrefix("scale-time/")) }

// BenchmarkScaleThresh: cost against the dirty threshold (ext4, 10 dd, 8 GB).
func BenchmarkScaleThresh(b *testing.B) { benchCases(b, harness.BenchCasesWithPrefix("scale-thresh/")) }

func benchCases(b *testing.B, cs []harness.BenchCase) {
	for _, c := range cs {
		b.Run(c.Name, func(b *testing.B) {
			cfg, err := c.Config()
			if err != nil {
				b.Fatal(err)
			}
			benchRun(b, cfg)
		})
	}
}
