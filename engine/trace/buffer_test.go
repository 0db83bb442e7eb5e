package trace

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

func TestRingKeepsNewest(t *testing.T) {
	tests := []struct {
		name        string
		capacity    int
		emits       int
		wantFirst   int // payload number of the oldest line kept
		wantLen     int
		wantDropped int
	}{
		{"empty", 3, 0, 0, 0, 0},
		{"under capacity", 3, 2, 0, 2, 0},
		{"exactly full", 3, 3, 0, 3, 0},
		{"one over", 3, 4, 1, 3, 1},
		{"wrapped twice", 3, 8, 5, 3, 5},
		{"capacity one", 1, 5, 4, 1, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := New(tt.capacity)
			require.True(t, b.Enabled())
			for i := range tt.emits {
				b.Emit(sim.Time(i)*sim.Millisecond, "dd", 100, 1, "ev", strconv.Itoa(i))
			}
			assert.Equal(t, tt.wantLen, b.Len())
			assert.Equal(t, tt.wantDropped, b.Dropped())
			assert.Equal(t, tt.capacity, b.Cap())
			lines := b.Lines()
			require.Len(t, lines, tt.wantLen)
			var want bytes.Buffer
			for k, line := range lines {
				n := tt.wantFirst + k
				exp := string(AppendPrefix(nil, sim.Time(n)*sim.Millisecond, "dd", 100, 1)) + "ev: " + strconv.Itoa(n)
				assert.Equal(t, exp, line)
				want.WriteString(exp + "\n")
			}
			var out bytes.Buffer
			n, err := b.WriteTo(&out)
			require.NoError(t, err)
			assert.Equal(t, int64(want.Len()), n)
			assert.Equal(t, want.String(), out.String())
		})
	}
}

func TestLinesIsACopy(t *testing.T) {
	b := New(2)
	b.Emit(0, "dd", 1, 0, "ev", "a")
	l := b.Lines()
	l[0] = "changed"
	assert.Equal(t, "              dd-1     [000]     0.000000: ev: a", b.Lines()[0])
}

func TestReset(t *testing.T) {
	b := New(2)
	for range 5 {
		b.Emit(0, "dd", 1, 0, "ev", "x")
	}
	b.Reset()
	assert.Equal(t, 0, b.Len())
	assert.Equal(t, 0, b.Dropped())
	assert.Nil(t, b.Lines())
	b.Emit(0, "dd", 1, 0, "ev", "y")
	assert.Equal(t, []string{"              dd-1     [000]     0.000000: ev: y"}, b.Lines())
}

func TestNilBufferIsSafe(t *testing.T) {
	for _, capacity := range []int{0, -1} {
		assert.Nil(t, New(capacity), "capacity %d means tracing off", capacity)
	}
	var b *Buffer
	assert.False(t, b.Enabled())
	assert.NotPanics(t, func() {
		b.Emit(sim.Second, "dd", 1, 0, tracepoint.GlobalDirtyState.String(), "x")
		b.Reset()
	})
	assert.Equal(t, 0, b.Len())
	assert.Equal(t, 0, b.Cap())
	assert.Equal(t, 0, b.Dropped())
	assert.Nil(t, b.Lines())
	var out bytes.Buffer
	n, err := b.WriteTo(&out)
	assert.NoError(t, err)
	assert.Zero(t, n)
	assert.Zero(t, out.Len())
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n <= 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

func TestWriteToLargeAndError(t *testing.T) {
	b := New(5000)
	for i := range 6000 {
		b.Emit(sim.Time(i)*sim.Microsecond, "flush-8:0", 42, 3, tracepoint.WritebackPagesWritten.String(), strconv.Itoa(i))
	}
	var out bytes.Buffer
	n, err := b.WriteTo(&out)
	require.NoError(t, err)
	assert.Equal(t, int64(out.Len()), n)
	assert.Equal(t, 5000, bytes.Count(out.Bytes(), []byte("\n")))
	assert.True(t, bytes.HasSuffix(out.Bytes(), []byte("writeback_pages_written: 5999\n")))

	_, err = b.WriteTo(&failWriter{n: 1})
	assert.EqualError(t, err, "disk full")
}

// sprintfPrefix is the ftrace prefix written with fmt, the reference for AppendPrefix.
func sprintfPrefix(comm string, pid, cpu int, secs, usecs int64) string {
	return fmt.Sprintf("%16s-%-5d [%03d] %5d.%06d: ", comm, pid, cpu, secs, usecs)
}

// sprintfGlobalDirtyState is the v3.2 TP_printk written with fmt.
func sprintfGlobalDirtyState(g tracepoint.GlobalDirty) string {
	return fmt.Sprintf("dirty=%d writeback=%d unstable=%d bg_thresh=%d thresh=%d limit=%d dirtied=%d written=%d",
		g.Dirty, g.Writeback, g.Unstable, g.BgThresh, g.Thresh, g.Limit, g.Dirtied, g.Written)
}

// emitSprintf is Emit + global_dirty_state done the fmt.Sprintf way.
func emitSprintf(lines []string, i int, now sim.Time, comm string, pid, cpu int, g tracepoint.GlobalDirty) {
	us := (int64(now) + 500) / 1000
	lines[i%len(lines)] = sprintfPrefix(comm, pid, cpu, us/1e6, us%1e6) + tracepoint.GlobalDirtyState.String() + ": " + sprintfGlobalDirtyState(g)
}

func TestAppendMatchesSprintf(t *testing.T) {
	b := New(1)
	f := NewFormatter(V32)
	ref := make([]string, 1)
	for i := range 2000 {
		// Deterministic spread of magnitudes, including 0 and 64-bit extremes.
		u := uint64(i) * 0x9e3779b97f4a7c15 >> (i % 64)
		v := int64(u) // negative from 2^63 on: V32 prints the model's signed values
		g := tracepoint.GlobalDirty{Dirty: v, Writeback: v / 3, Unstable: int64(i), BgThresh: v >> 7,
			Thresh: v >> 5, Limit: v >> 4, Dirtied: v * 7, Written: ^v}
		now := sim.Time(u >> 1)
		b.Emit(now, "flush-8:0", i, i%64, tracepoint.GlobalDirtyState.String(), f.GlobalDirtyState(g))
		emitSprintf(ref, 0, now, "flush-8:0", i, i%64, g)
		require.Equal(t, ref[0], b.Lines()[0])
	}
}

var benchState = tracepoint.GlobalDirty{Dirty: 19553, Writeback: 4480, Unstable: 0, BgThresh: 12800,
	Thresh: 25600, Limit: 25897, Dirtied: 1058745, Written: 1034712}

// BenchmarkEmitGlobalDirtyState is the path the kernel uses: strconv.Append into the
// Formatter's and the Buffer's reused byte slices.
func BenchmarkEmitGlobalDirtyState(b *testing.B) {
	buf := New(4096)
	f := NewFormatter(V32)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g := benchState
		g.Dirtied += int64(i)
		if buf.Enabled() {
			buf.Emit(sim.Time(i)*sim.Millisecond, "flush-8:0", 1234, 3, tracepoint.GlobalDirtyState.String(), f.GlobalDirtyState(g))
		}
	}
}

// BenchmarkEmitGlobalDirtyStateSprintf is the same line built with fmt.Sprintf, kept to
// justify the append version.
func BenchmarkEmitGlobalDirtyStateSprintf(b *testing.B) {
	lines := make([]string, 4096)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		g := benchState
		g.Dirtied += int64(i)
		emitSprintf(lines, i, sim.Time(i)*sim.Millisecond, "flush-8:0", 1234, 3, g)
	}
}

// BenchmarkEmitDisabled is the cost of a tracepoint when tracing is off.
func BenchmarkEmitDisabled(b *testing.B) {
	var buf *Buffer
	f := NewFormatter(V32)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if buf.Enabled() {
			buf.Emit(sim.Time(i), "flush-8:0", 1234, 3, tracepoint.GlobalDirtyState.String(), f.GlobalDirtyState(benchState))
		}
	}
}

func TestBufferSampledAndWindow(t *testing.T) {
	for _, tc := range []struct {
		name        string
		setup       func(*Buffer)
		n           int
		first, last string
		maxLen      int
	}{
		{"newest", func(*Buffer) {}, 1000, "e900", "e999", 100},
		{"sampled spans the run", (*Buffer).SetSampled, 1000, "e0", "e", 100},
		{"window", func(b *Buffer) { b.SetWindow(sim.Time(100), sim.Time(150)) }, 1000, "e100", "e149", 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(100)
			tc.setup(b)
			for i := 0; i < tc.n; i++ {
				b.Emit(sim.Time(i), "dd", 1, 0, "e"+strconv.Itoa(i), "")
			}
			ls := b.Lines()
			if len(ls) == 0 || len(ls) > tc.maxLen {
				t.Fatalf("%d lines", len(ls))
			}
			if !strings.Contains(ls[0], ": "+tc.first+": ") || !strings.Contains(ls[len(ls)-1], ": "+tc.last) {
				t.Errorf("first %q last %q", ls[0], ls[len(ls)-1])
			}
			if tc.name == "sampled spans the run" {
				// the kept lines reach past 90% of the run
				last := ls[len(ls)-1]
				i := strings.LastIndex(last, ": e")
				n, _ := strconv.Atoi(strings.TrimSuffix(last[i+3:], ": "))
				if n < 900 {
					t.Errorf("sampled trace ends at e%d of 1000", n)
				}
			}
		})
	}
}
