package devices

import (
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/sim"
)

// Tracer receives the queue's trace events: event is the tracepoint name, payload its
// text after "event: ", task the current task when the event happens in a task's
// context (a submission, a plug flush) or nil in interrupt/timer context (completions,
// wbt's timer). The trace package adds the "comm-pid [cpu] time:" prefix.
//
// Events and payloads:
//
//	block_rq_issue:    "8,0 W 0 () 123456 + 1024 [flush-8:0]"   (v3.2 block.h: dev, rwbs, bytes, cmd, sector + nr_sector, comm)
//	block_rq_complete: "8,0 W () 123456 + 1024 [0]"              (dev, rwbs, cmd, sector + nr_sector, errors)
//	block_sleeprq:     "8,0 W 123456 + 8 [flush-8:0]"            (legacy pool only: get_request_wait found no free request; dev, rwbs, bio sector + sectors, comm)
//	wbt_stat, wbt_lat, wbt_step, wbt_timer: the v6.x wbt.h formats (kernel-notes §3.7)
//
// rwbs is 'R' or 'W' followed by 'F' (FUA), 'A' (readahead), 'S' (sync), 'M' (meta)
// as blk_fill_rwbs; bytes is 0 as for filesystem requests; the issue comm is the
// task that allocated the request (the submitter: "flush-8:0", "dd", "jbd2/sda1-8").
// Strings are formatted only when a tracer is set.
type Tracer func(task *sim.Task, event, payload string)

// SetTracer installs (or, with nil, removes) the queue's tracer.
func (q *Queue) SetTracer(t Tracer) { q.tracer = t }

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
	payload := q.devNum + " " + rwbs(&r) + " " + strconv.FormatInt(b.Sector, 10) + " + " +
		strconv.FormatInt(b.Pages*PageSectors, 10) + " [" + task.Comm + "]"
	q.tracer(task, "block_sleeprq", payload)
}

func (q *Queue) traceRq(event string, r *Request) {
	var b strings.Builder
	b.WriteString(q.devNum)
	b.WriteByte(' ')
	b.WriteString(rwbs(r))
	if event == "block_rq_issue" {
		b.WriteString(" 0 () ")
	} else {
		b.WriteString(" () ")
	}
	b.WriteString(strconv.FormatInt(r.Sector, 10))
	b.WriteString(" + ")
	b.WriteString(strconv.FormatInt(r.Sectors(), 10))
	if event == "block_rq_issue" {
		comm := "kblockd"
		if r.comm != nil {
			comm = r.comm.Comm
		}
		b.WriteString(" [" + comm + "]")
	} else {
		b.WriteString(" [0]")
	}
	q.tracer(q.cur, event, b.String())
}
