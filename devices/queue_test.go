package devices

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/sim"
)

type recorder struct {
	pages int64
	calls int
}

func (r *recorder) EndIO(cookie uint64, index, pages int64, op Op) {
	r.pages += pages
	r.calls++
}

// TestSimpleSequentialWrite submits 64 MiB as one-page bios from one task that blocks
// when the pool runs dry, and checks merging, blocking and throughput.
func TestSimpleSequentialWrite(t *testing.T) {
	w := sim.NewWorld(1000, 1)
	spec, err := ParseSpec("simple,nr_requests=16,qd=4")
	require.NoError(t, err)
	q, err := New(w, spec)
	require.NoError(t, err)
	rec := &recorder{}
	task := w.NewTask("writer", 1, nil)
	sub := q.NewSubmitter(task)
	const total = 64 << 20 / PageSize
	var next int64
	blocks := 0
	task.Resume = func() {
		for next < total {
			b := Bio{Sector: next * PageSectors, Pages: 1, Op: Write, Owner: rec, Index: next}
			next++
			if q.Submit(sub, b) {
				blocks++
				return
			}
		}
		task.Exit()
	}
	maxSeen := int64(0)
	w.AfterEvent = func() {
		for _, r := range q.queued {
			maxSeen = max(maxSeen, r.Pages)
		}
		require.LessOrEqual(t, q.inflight, spec.QueueDepth)
	}
	task.Start()
	require.NoError(t, w.Run(10*sim.Second))
	assert.Equal(t, int64(total), rec.pages)
	assert.Greater(t, blocks, 0, "the submitter blocks when the pool is empty")
	assert.LessOrEqual(t, maxSeen, q.MaxPages())
	st := q.Stats()
	// without a plug the first bios go out alone while the device has room; the rest merge
	assert.LessOrEqual(t, st.IOs[Write], int64(total/q.MaxPages())+int64(spec.QueueDepth))
	assert.GreaterOrEqual(t, st.IOs[Write], int64(total/q.MaxPages()))
	assert.Equal(t, int64(total*PageSectors), st.Sectors[Write])
	// about 128 requests x (0.2 ms + 512 KiB / 60 MiB/s)
	want := sim.Time(128) * (200*sim.Microsecond + sim.Time(int64(512<<10)*int64(sim.Second)/(60<<20)))
	assert.InEpsilon(t, float64(want), float64(st.Busy), 0.02)
}

func TestParseSpecErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"nosuch", "unknown preset"},
		{"simple,qd=0", "device.qd: 0 out of range"},
		{"simple,foo=1", "unknown key \"foo\""},
		{"simple,bw=fast", "bw=\"fast\""},
		{"simple,qd", "not key=value"},
	}
	for _, tc := range tests {
		_, err := ParseSpec(tc.in)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
	s, err := ParseSpec("simple,bw=100MiB,qd=1,req_us=50")
	require.NoError(t, err)
	assert.Equal(t, int64(100<<20), s.BandwidthBps)
	assert.Equal(t, 1, s.QueueDepth)
	assert.Equal(t, int64(50_000), s.RequestNs)
}
