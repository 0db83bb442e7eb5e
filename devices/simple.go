package devices

import "github.com/wblab/wblab/engine/sim"

// simpleDevice serves issued requests one at a time in issue order: a fixed cost per
// request plus size / bandwidth. Queue depth only bounds how many it holds.
type simpleDevice struct {
	w     *sim.World
	spec  Spec
	q     *Queue
	fifo  []*Request
	timer sim.Timer
}

func (d *simpleDevice) QueueDepth() int { return d.spec.QueueDepth }

func (d *simpleDevice) Issue(r *Request) {
	d.fifo = append(d.fifo, r)
	if len(d.fifo) == 1 {
		d.start()
	}
}

func (d *simpleDevice) serviceTime(r *Request) sim.Time {
	return sim.Time(d.spec.RequestNs) + sim.Time(r.Bytes()*int64(sim.Second)/d.spec.BandwidthBps)
}

func (d *simpleDevice) start() { d.w.After(&d.timer, d.serviceTime(d.fifo[0])) }

func (d *simpleDevice) done() {
	r := d.fifo[0]
	copy(d.fifo, d.fifo[1:])
	d.fifo[len(d.fifo)-1] = nil
	d.fifo = d.fifo[:len(d.fifo)-1]
	if len(d.fifo) > 0 {
		d.start()
	}
	d.q.Complete(r)
}
