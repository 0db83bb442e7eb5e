package repro

import (
	"context"
	"testing"
	"time"

	"github.com/wblab/wblab/engine/sim"
)

// BenchmarkAxboeRandom is the Axboe 2009 random-writer case (16 random writers on an
// X25-E, ext4, per-bdi flushers) for 120 simulated seconds, as the axboe-2009
// experiment runs it.
//
//	go test -run '^$' -bench AxboeRandom -benchtime 3x ./repro
func BenchmarkAxboeRandom(b *testing.B) {
	b.ReportAllocs()
	const runtime = 120 * sim.Second
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if _, err := axboeRandom(context.Background(), "2.6.30-rc6+per-bdi", 1, runtime); err != nil {
			b.Fatal(err)
		}
	}
	wall := time.Since(start).Seconds() / float64(b.N)
	b.ReportMetric(runtime.Seconds()/wall, "sim-s/s")
}
