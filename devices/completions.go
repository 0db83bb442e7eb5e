package devices

import "github.com/wblab/wblab/engine/sim"

// completions delivers request completions whose times were fixed at issue. Those
// that arrive in time order share one timer through a FIFO (a serial stage, or
// equal-sized requests on parallel servers: the common case), so the event heap
// holds one entry for them instead of one per request; a completion earlier than
// the FIFO's tail uses the request's own timer.
type completions struct {
	w     *sim.World
	fire  func(r *Request)
	fifo  []*Request
	head  int
	timer sim.Timer
}

func (c *completions) init(w *sim.World, fire func(r *Request)) {
	c.w, c.fire = w, fire
	c.timer.Fn = c.pop
}

// at schedules r's completion at t.
func (c *completions) at(r *Request, t sim.Time) {
	r.done = t
	n := len(c.fifo) - c.head
	if n > 0 && t < c.fifo[len(c.fifo)-1].done {
		c.w.At(&r.timer, t)
		return
	}
	if c.head > 0 && c.head*2 >= len(c.fifo) {
		// slide the live part down so the slice stops growing
		m := copy(c.fifo, c.fifo[c.head:])
		clear(c.fifo[m:])
		c.fifo, c.head = c.fifo[:m], 0
	}
	c.fifo = append(c.fifo, r)
	if n == 0 {
		c.w.At(&c.timer, t)
	}
}

func (c *completions) pop() {
	r := c.fifo[c.head]
	c.fifo[c.head] = nil
	c.head++
	if c.head < len(c.fifo) {
		c.w.At(&c.timer, c.fifo[c.head].done)
	} else {
		c.fifo, c.head = c.fifo[:0], 0
	}
	c.fire(r)
}
