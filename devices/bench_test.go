package devices

import (
	"testing"

	"github.com/wblab/wblab/engine/sim"
)

// benchDevice runs a mixed workload (a plugged sequential background writer, a
// random 4 KiB writer and a random reader) for b.N simulated seconds and reports
// ns and allocations per request.
func benchDevice(b *testing.B, spec string) {
	w := sim.NewWorld(1000, 1)
	q := mustQueue(b, w, spec)
	seq := newJob(q, w, 1, Write, 32, 64, false, 0, 1<<30)
	seq.plug, seq.flags = true, FlagBackground
	rnd := newJob(q, w, 2, Write, 1, 8, true, 1<<30, 1<<30)
	rd := newJob(q, w, 3, Read, 4, 2, true, 1<<31, 1<<30)
	for _, j := range []*fioJob{seq, rnd, rd} {
		j.task.Start()
	}
	if err := w.Run(sim.Second); err != nil {
		b.Fatal(err)
	}
	st0 := q.Stats()
	ev0 := w.Events()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.Run(w.Now() + sim.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	st := q.Stats()
	reqs := float64(st.IOs[Read] + st.IOs[Write] - st0.IOs[Read] - st0.IOs[Write])
	if reqs > 0 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/reqs, "ns/req")
		b.ReportMetric(reqs/float64(b.N), "req/simsec")
		b.ReportMetric(float64(w.Events()-ev0)/reqs, "events/req")
	}
}

func BenchmarkQueueSimple(b *testing.B)   { benchDevice(b, "simple") }
func BenchmarkHDD(b *testing.B)           { benchDevice(b, "wu2011-hdd") }
func BenchmarkHDDQD1WBT(b *testing.B)     { benchDevice(b, "kara2016-qd1,wbt_qd1=on") }
func BenchmarkSSD(b *testing.B)           { benchDevice(b, "x25e,wbt=on") }
func BenchmarkNVMe(b *testing.B)          { benchDevice(b, "nvme") }
func BenchmarkCapped(b *testing.B)        { benchDevice(b, "capped") }
func BenchmarkChinnerVM(b *testing.B)     { benchDevice(b, "chinner2010-vm") }
func BenchmarkQueueDeadline(b *testing.B) { benchDevice(b, "simple,elevator=deadline,wbt=on") }
func BenchmarkQueueCFQ(b *testing.B)      { benchDevice(b, "simple,elevator=cfq") }
func BenchmarkHDDDeadline(b *testing.B)   { benchDevice(b, "wu2011-hdd,elevator=deadline") }
