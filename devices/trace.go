package devices

import (
	"strings"

	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// SetTracer installs (or, with nil, removes) the queue's tracer. The queue emits
// (tracepoint package) block_rq_issue and block_rq_complete, block_sleeprq (legacy
// pool only: get_request_wait found no free request) and wbt's wbt_stat, wbt_lat,
// wbt_step and wbt_timer; events are built only when a tracer is set. An event
// happens in the context of the task it names (a submission, a plug flush) or, with
// a nil task, in interrupt or timer context (completions, wbt's timer).
//
// rwbs is 'R' or 'W' followed by 'F' (FUA), 'A' (readahead), 'S' (sync), 'M' (meta)
// as blk_fill_rwbs; the issue comm is the task that allocated the request (the
// submitter: "flush-8:0", "dd", "jbd2/sda1-8").
func (q *Queue) SetTracer(t tracepoint.Tracer) { q.tracer = t }

// SetDevName sets the device's MAJ:MIN name used in trace payloads (default "8:0").
func (q *Queue) SetDevName(majMin string) {
	q.devName = majMin
	q.devNum = strings.Replace(majMin, ":", ",", 1)
}

// DevName is the device's MAJ:MIN name.
func (q *Queue) DevName() string { return q.devName }

func rwbs(r *Request) string {
	var b [6]byte
	n := 0
	if r.Op == Write {
		b[n] = 'W'
	} else {
		b[n] = 'R'
	}
	n++
	for _, f := range []struct {
		flag Flags
		c    byte
	}{{FlagFUA, 'F'}, {FlagReadahead, 'A'}, {FlagSync, 'S'}, {FlagMeta, 'M'}} {
		if r.Flags&f.flag != 0 {
			b[n] = f.c
			n++
		}
	}
	return string(b[:n])
}

// traceSleeprq is block_sleeprq (v2.6.36-v4.x get_request_wait, the block_get_rq
// class): task sleeps for a request for the bio b. b's sectors are those of the
// run still to admit, the bios it stands for.
func (q *Queue) traceSleeprq(task *sim.Task, b *Bio) {
	r := Request{Op: b.Op, Flags: b.Flags}
	q.tracer.Emit(q.w.Now(), task, tracepoint.Sleeprq{Dev: q.devNum, RWBS: rwbs(&r), Sector: b.Sector,
		NrSector: b.Pages * PageSectors, Comm: task.Comm})
}

// traceRq is block_rq_issue or block_rq_complete (v3.2 block_rq class) for r.
func (q *Queue) traceRq(tp tracepoint.Point, r *Request) {
	comm := ""
	if tp == tracepoint.BlockRqIssue {
		comm = "kblockd"
		if r.comm != nil {
			comm = r.comm.Comm
		}
	}
	q.tracer.Emit(q.w.Now(), q.cur, tracepoint.BlockRq{TP: tp, Dev: q.devNum, RWBS: rwbs(r), Sector: r.Sector,
		NrSector: r.Sectors(), Comm: comm})
}
