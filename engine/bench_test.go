package engine

import (
	"context"
	"testing"
	"time"
)

// BenchmarkCase runs the threads' cases for a full 600 s and reports simulated
// seconds per wall second and events per run.
func BenchmarkCase(b *testing.B) {
	cases := []string{
		"thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X",
		"thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X",
		"thresh=1G/generic-100dd-4k-8p-4096M-1024M:10-X",
		"thresh=8M/generic-10dd-4k-8p-4096M-8M:10-X",
	}
	for _, name := range cases {
		b.Run(name, func(b *testing.B) {
			cfg, err := ConfigForCase(name)
			if err != nil {
				b.Fatal(err)
			}
			cfg.Runtime = Duration(600 * time.Second)
			b.ReportAllocs()
			var events uint64
			start := time.Now()
			for i := 0; i < b.N; i++ {
				r, err := Run(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				events = r.Events
			}
			wall := time.Since(start).Seconds() / float64(b.N)
			b.ReportMetric(600/wall, "sim-s/s")
			b.ReportMetric(float64(events), "events/run")
		})
	}
}
