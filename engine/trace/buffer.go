// Package trace prints the simulator's events as Linux ftrace text, so the trace
// scripts of Wu Fengguang's writeback harness read a wblab trace unchanged
// (kernel-notes §5.3, §5.4, §6).
//
// The model (engine/kernel, engine/fs, devices) emits typed events
// (engine/tracepoint) to one tracepoint.Tracer and knows no wording. A Printer is
// that tracer: its Formatter renders each event's payload exactly as the kernel's
// TP_printk does, in the v3.2 or the v6.6 wording, and it hands the line to a Sink,
// normally a *Buffer, a bounded ring of trace_pipe lines. A nil *Buffer is a valid,
// disabled one (every method a no-op); an untraced run sets no tracer at all, so
// each tracepoint costs one nil check. Tab reads a line back the way the harness's
// trace_tab does, for tests.
//
// The package has no goroutines, no wall clock and no package-level mutable state;
// neither Buffer, Formatter nor Printer is safe for concurrent use.
package trace

import (
	"io"
	"strconv"

	"github.com/wblab/wblab/engine/sim"
)

// taskCommLen is the kernel's TASK_COMM_LEN: a comm holds at most 15 bytes.
const taskCommLen = 16

// Buffer is a bounded ring buffer of trace lines (without their newlines). When it is
// full, Emit drops the oldest line and counts it in Dropped. A nil *Buffer means
// tracing is off; all methods are safe on it.
type Buffer struct {
	lines   []string // ring; grows to capacity, then wraps
	capa    int
	head    int // index of the oldest line once the ring is full
	dropped int
	scratch []byte

	// sampled mode (SetSampled): keep one line of every `every`, halving the kept
	// lines and doubling every when full, so the lines span the whole run.
	sampled bool
	every   int
	seen    int
	// window (SetWindow): only lines with from <= time < until are kept.
	from, until sim.Time
}

// SetSampled makes the buffer keep the whole run at a sampled rate instead of the
// newest lines: every line until it is full, then every second line of the run so
// far and of what follows, then every fourth ... (Dropped counts the lines left out).
func (b *Buffer) SetSampled() {
	if b != nil {
		b.sampled, b.every = true, 1
	}
}

// SetWindow keeps only lines at simulated times in [from, until) (until 0: no end).
func (b *Buffer) SetWindow(from, until sim.Time) {
	if b != nil {
		b.from, b.until = from, until
	}
}

// New returns a buffer that keeps the newest capacity lines. A capacity of zero or
// less means tracing is off: New then returns nil, which is a valid, disabled Buffer.
func New(capacity int) *Buffer {
	if capacity <= 0 {
		return nil
	}
	return &Buffer{capa: capacity}
}

// Enabled reports whether tracing is on (b != nil).
func (b *Buffer) Enabled() bool { return b != nil }

// Cap reports the capacity in lines (0 for a nil buffer).
func (b *Buffer) Cap() int {
	if b == nil {
		return 0
	}
	return b.capa
}

// Len reports the number of lines held.
func (b *Buffer) Len() int {
	if b == nil {
		return 0
	}
	return len(b.lines)
}

// Dropped reports how many lines were discarded because the buffer was full.
func (b *Buffer) Dropped() int {
	if b == nil {
		return 0
	}
	return b.dropped
}

// Reset empties the buffer and zeroes the dropped counter, keeping the capacity.
func (b *Buffer) Reset() {
	if b == nil {
		return
	}
	clear(b.lines)
	b.lines = b.lines[:0]
	b.head = 0
	b.dropped = 0
}

// Emit appends one line as ftrace's trace_pipe prints it:
//
//	"%16s-%-5d [%03d] %5lu.%06lu: <event>: <payload>"
//
// comm is cut to 15 bytes like the kernel's task comm; now is rounded to the nearest
// microsecond like ftrace's ns2usecs. Emit on a nil buffer does nothing.
func (b *Buffer) Emit(now sim.Time, comm string, pid, cpu int, event, payload string) {
	if b == nil {
		return
	}
	if now < b.from || (b.until > 0 && now >= b.until) {
		return
	}
	if b.sampled {
		b.seen++
		if (b.seen-1)%b.every != 0 {
			b.dropped++
			return
		}
	}
	buf := AppendPrefix(b.scratch[:0], now, comm, pid, cpu)
	buf = append(buf, event...)
	buf = append(buf, ": "...)
	buf = append(buf, payload...)
	b.scratch = buf
	b.push(string(buf))
}

func (b *Buffer) push(line string) {
	if len(b.lines) < b.capa {
		b.lines = append(b.lines, line)
		return
	}
	if b.sampled { // full: keep every other line, sample half as often from now on
		kept := b.lines[:0]
		for i := 0; i < len(b.lines); i += 2 {
			kept = append(kept, b.lines[i])
		}
		b.dropped += len(b.lines) - len(kept)
		clear(b.lines[len(kept):])
		b.lines = append(kept, line)
		b.every *= 2
		b.seen = 1
		return
	}
	b.lines[b.head] = line
	b.head++
	if b.head == b.capa {
		b.head = 0
	}
	b.dropped++
}

// Lines returns a copy of the held lines, oldest first (nil for a nil or empty buffer).
func (b *Buffer) Lines() []string {
	if b == nil || len(b.lines) == 0 {
		return nil
	}
	out := make([]string, 0, len(b.lines))
	out = append(out, b.lines[b.head:]...)
	return append(out, b.lines[:b.head]...)
}

// WriteTo writes the held lines oldest first, each followed by '\n', as trace_pipe
// would. It implements io.WriterTo; a nil buffer writes nothing.
func (b *Buffer) WriteTo(w io.Writer) (int64, error) {
	if b == nil || len(b.lines) == 0 {
		return 0, nil
	}
	const chunk = 32 << 10
	var total int64
	buf := make([]byte, 0, chunk+256)
	flush := func() error {
		n, err := w.Write(buf)
		total += int64(n)
		buf = buf[:0]
		return err
	}
	for i := range b.lines {
		line := b.lines[(b.head+i)%len(b.lines)]
		buf = append(buf, line...)
		buf = append(buf, '\n')
		if len(buf) >= chunk {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	if len(buf) > 0 {
		if err := flush(); err != nil {
			return total, err
		}
	}
	return total, nil
}

// AppendPrefix appends the trace_pipe line prefix "<comm>-<pid> [<cpu>] <secs>.<usecs>: "
// in the v3.2 layout "%16s-%-5d [%03d] %5lu.%06lu: " (no irq-flags column). A negative
// time is printed as 0; a negative cpu prints as printf's %03d would ("-01").
func AppendPrefix(dst []byte, now sim.Time, comm string, pid, cpu int) []byte {
	if len(comm) > taskCommLen-1 {
		comm = comm[:taskCommLen-1]
	}
	dst = appendSpaces(dst, 16-len(comm))
	dst = append(dst, comm...)
	dst = append(dst, '-')
	n := len(dst)
	dst = strconv.AppendInt(dst, int64(pid), 10)
	dst = appendSpaces(dst, 5-(len(dst)-n))
	dst = append(dst, " ["...)
	dst = appendZeroPadInt(dst, int64(cpu), 3)
	dst = append(dst, "] "...)

	// ns2usecs(): (ns + 500) / 1000, then seconds and the microsecond remainder.
	var us uint64
	if now > 0 {
		us = (uint64(now) + 500) / 1000
	}
	secs, usec := us/1000000, us%1000000
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], secs, 10)
	dst = appendSpaces(dst, 5-len(d))
	dst = append(dst, d...)
	dst = append(dst, '.')
	dst = appendZeroPadUint(dst, usec, 6)
	return append(dst, ": "...)
}

func appendSpaces(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// appendZeroPadUint appends v in decimal, zero-padded to width digits.
func appendZeroPadUint(dst []byte, v uint64, width int) []byte {
	var tmp [20]byte
	d := strconv.AppendUint(tmp[:0], v, 10)
	for i := len(d); i < width; i++ {
		dst = append(dst, '0')
	}
	return append(dst, d...)
}

// appendZeroPadInt is printf's "%0<width>d": the sign counts towards the width.
func appendZeroPadInt(dst []byte, v int64, width int) []byte {
	if v >= 0 {
		return appendZeroPadUint(dst, uint64(v), width)
	}
	dst = append(dst, '-')
	return appendZeroPadUint(dst, uint64(-v), width-1)
}
