package trace

import (
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// Sink takes rendered trace lines: the task's comm, pid and cpu, the event name and
// its payload. *Buffer is one.
type Sink interface {
	Emit(now sim.Time, comm string, pid, cpu int, event, payload string)
}

// Printer is the model's one tracer (tracepoint.Tracer): it renders each event in
// its Formatter's wording and hands the line to a Sink. Events the wording's kernel
// lacks are dropped.
type Printer struct {
	F   Formatter
	Out Sink
}

// NewPrinter returns a Printer that renders in wording f into out.
func NewPrinter(f Format, out Sink) *Printer { return &Printer{F: Formatter{Format: f}, Out: out} }

// Emit implements tracepoint.Tracer. A nil task is interrupt or timer context,
// printed as "<idle>-0 [000]"; a task not on a CPU prints cpu 0.
func (p *Printer) Emit(now sim.Time, task *sim.Task, ev tracepoint.Event) {
	payload, ok := p.F.Payload(ev)
	if !ok {
		return
	}
	comm, pid, cpu := "<idle>", 0, 0
	if task != nil {
		comm, pid, cpu = task.Comm, task.PID, max(task.CPU, 0)
	}
	p.Out.Emit(now, comm, pid, cpu, ev.Tracepoint().String(), payload)
}

// funcTracer is Func's tracer.
type funcTracer struct {
	f  Formatter
	fn func(task *sim.Task, event, payload string)
}

func (t *funcTracer) Emit(_ sim.Time, task *sim.Task, ev tracepoint.Event) {
	if payload, ok := t.f.Payload(ev); ok {
		t.fn(task, ev.Tracepoint().String(), payload)
	}
}

// Func returns a tracer that calls fn with each event's name and payload in
// wording f (tests read the device and filesystem events so).
func Func(f Format, fn func(task *sim.Task, event, payload string)) tracepoint.Tracer {
	return &funcTracer{f: Formatter{Format: f}, fn: fn}
}
