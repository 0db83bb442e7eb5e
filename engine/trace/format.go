package trace

import (
	"strconv"

	"github.com/wblab/wblab/engine/tracepoint"
)

// Formatter renders tracepoint payloads (the text after "<event>: ") exactly as the
// kernel's TP_printk does. It reuses one internal buffer, so each call allocates only
// the returned string. The zero value prints the v3.2 wording.
type Formatter struct {
	// Format selects the kernel wording.
	Format Format
	// CgroupIno is the "cgroup_ino=%lu" that V66 appends to bdi/wb events. Zero
	// prints 1, the root cgroup, which is what a kernel without cgroup writeback
	// prints.
	CgroupIno uint64

	buf []byte
}

// NewFormatter returns a Formatter for the given wording.
func NewFormatter(f Format) *Formatter { return &Formatter{Format: f} }

func (f *Formatter) start() []byte { return f.buf[:0] }

func (f *Formatter) done(b []byte) string {
	f.buf = b
	return string(b)
}

func (f *Formatter) cgroup(b []byte) []byte {
	if f.Format != V66 {
		return b
	}
	ino := f.CgroupIno
	if ino == 0 {
		ino = 1
	}
	b = append(b, " cgroup_ino="...)
	return strconv.AppendUint(b, ino, 10)
}

func appendBdi(b []byte, bdi string) []byte {
	b = append(b, "bdi "...)
	b = append(b, bdi...)
	return append(b, ": "...)
}

func appendU(b []byte, key string, v uint64) []byte {
	b = append(b, key...)
	return strconv.AppendUint(b, v, 10)
}

func appendI(b []byte, key string, v int64) []byte {
	b = append(b, key...)
	return strconv.AppendInt(b, v, 10)
}

func appendBool(b []byte, key string, v bool) []byte {
	b = append(b, key...)
	if v {
		return append(b, '1')
	}
	return append(b, '0')
}

// appendUL appends a field the kernel prints with %lu from a value the model holds
// signed. The V32 wording prints it signed, as wblab's v3.2 traces always have (the
// harness reads "older=-24788" early in a run as a negative column); V66 prints it
// as %lu does.
func (f *Formatter) appendUL(b []byte, key string, v int64) []byte {
	if f.Format != V66 {
		return appendI(b, key, v)
	}
	return appendU(b, key, uint64(v))
}

// appendULClamp is appendUL for the rate and balance_dirty_pages fields, which V66
// clamps at 0 instead of wrapping.
func (f *Formatter) appendULClamp(b []byte, key string, v int64) []byte {
	if f.Format != V66 {
		return appendI(b, key, v)
	}
	return appendU(b, key, uint64(max(v, 0)))
}

// appendU32 is appendUL for a %u (unsigned int) field.
func (f *Formatter) appendU32(b []byte, key string, v int64) []byte {
	if f.Format != V66 {
		return appendI(b, key, v)
	}
	return appendU(b, key, uint64(uint32(v)))
}

// Payload renders ev's payload in f's wording. ok is false for an event the
// wording's kernel does not have (v6.6: writeback_wake_thread,
// writeback_single_inode_requeue; v3.2: writeback_single_inode_start,
// writeback_write_inode[_start]) or an event type Payload does not know.
func (f *Formatter) Payload(ev tracepoint.Event) (payload string, ok bool) {
	v66 := f.Format == V66
	switch e := ev.(type) {
	case tracepoint.Work:
		return f.Work(e), true
	case tracepoint.PagesWritten:
		return f.PagesWritten(e.Pages), true
	case tracepoint.Bdi:
		if e.TP == tracepoint.WritebackWakeThread && v66 {
			return "", false // the v6.6 delayed work has no wake-up event
		}
		return f.Bdi(e.Bdi), true
	case tracepoint.QueueIO:
		return f.QueueIO(e), true
	case tracepoint.GlobalDirty:
		return f.GlobalDirtyState(e), true
	case tracepoint.Ratelimit:
		return f.BdiDirtyRatelimit(e), true
	case tracepoint.Balance:
		return f.BalanceDirtyPages(e), true
	case tracepoint.SingleInode:
		if e.TP == tracepoint.WritebackSingleInodeRequeue && v66 || e.TP == tracepoint.WritebackSingleInodeStart && !v66 {
			return "", false
		}
		return f.SingleInode(e), true
	case tracepoint.SbInodesRequeue:
		return f.SbInodesRequeue(e), true
	case tracepoint.WriteInode:
		if !v66 {
			return "", false
		}
		return f.WriteInode(e), true
	case tracepoint.Writepage:
		return f.WBC(e), true
	case tracepoint.BlockRq:
		return f.BlockRq(e), true
	case tracepoint.Sleeprq:
		return f.Sleeprq(e), true
	case tracepoint.WbtStats:
		return f.WbtStat(e), true
	case tracepoint.WbtLatency:
		return f.WbtLat(e), true
	case tracepoint.WbtScaleStep:
		return f.WbtStep(e), true
	case tracepoint.WbtTimerTick:
		return f.WbtTimer(e), true
	}
	return "", false
}

// Work is the payload of the writeback_work_class events (writeback_queue, _exec,
// _start, _written, _wait, _busyloop):
//
//	"bdi %s: sb_dev %d:%d nr_pages=%ld sync_mode=%d kupdate=%d range_cyclic=%d background=%d reason=%s"
//
// plus " cgroup_ino=%lu" in V66.
func (f *Formatter) Work(w tracepoint.Work) string {
	b := appendBdi(f.start(), w.Bdi)
	b = append(b, "sb_dev "...)
	b = strconv.AppendInt(b, int64(w.SbMajor), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(w.SbMinor), 10)
	b = appendI(b, " nr_pages=", w.NrPages)
	b = appendI(b, " sync_mode=", int64(w.SyncMode))
	b = appendBool(b, " kupdate=", w.Kupdate)
	b = appendBool(b, " range_cyclic=", w.RangeCyclic)
	b = appendBool(b, " background=", w.Background)
	b = append(b, " reason="...)
	b = append(b, Reason(w.Reason).Text(f.Format)...)
	return f.done(f.cgroup(b))
}

// PagesWritten is the payload of writeback_pages_written: "%ld".
func (f *Formatter) PagesWritten(pages int64) string {
	return f.done(strconv.AppendInt(f.start(), pages, 10))
}

// Bdi is the payload of the writeback_class events (writeback_nowork,
// wake_background, wake_thread, wake_forker_thread, bdi_unregister, thread_start,
// thread_stop): "bdi %s", or "bdi %s: cgroup_ino=%lu" in V66 (where only
// writeback_wake_background is left of them).
func (f *Formatter) Bdi(bdi string) string {
	b := append(f.start(), "bdi "...)
	b = append(b, bdi...)
	if f.Format == V66 {
		b = append(b, ':')
		b = f.cgroup(b)
	}
	return f.done(b)
}

// BdiRegister is the payload of writeback_bdi_register: "bdi %s" in both wordings.
func (f *Formatter) BdiRegister(bdi string) string {
	b := append(f.start(), "bdi "...)
	return f.done(append(b, bdi...))
}

// WBC is the payload of wbc_writepage:
//
//	"bdi %s: towrt=%ld skip=%ld mode=%d kupd=%d bgrd=%d reclm=%d cyclic=%d start=0x%lx end=0x%lx"
//
// plus " cgroup_ino=%lu" in V66. (v2.6.36 also printed "more=%d older=0x%lx" before
// start=; v3.2 has dropped them.)
func (f *Formatter) WBC(w tracepoint.Writepage) string {
	b := appendBdi(f.start(), w.Bdi)
	b = appendI(b, "towrt=", w.NrToWrite)
	b = appendI(b, " skip=", w.PagesSkipped)
	b = appendI(b, " mode=", int64(w.SyncMode))
	b = appendBool(b, " kupd=", w.Kupdate)
	b = appendBool(b, " bgrd=", w.Background)
	b = appendBool(b, " reclm=", w.Reclaim)
	b = appendBool(b, " cyclic=", w.RangeCyclic)
	b = append(b, " start=0x"...)
	b = strconv.AppendUint(b, uint64(w.RangeStart), 16)
	b = append(b, " end=0x"...)
	b = strconv.AppendUint(b, uint64(w.RangeEnd), 16)
	return f.done(f.cgroup(b))
}

// QueueIO is the payload of writeback_queue_io:
//
//	"bdi %s: older=%lu age=%ld enqueue=%d reason=%s"
//
// plus " cgroup_ino=%lu" in V66. older is older_than_this in jiffies (0 if none), age
// is (jiffies - older) in ms (-1 if none), enqueue is the number of inodes moved.
func (f *Formatter) QueueIO(q tracepoint.QueueIO) string {
	b := appendBdi(f.start(), q.Bdi)
	b = f.appendUL(b, "older=", q.Older)
	b = appendI(b, " age=", q.Age)
	b = appendI(b, " enqueue=", int64(q.Moved))
	b = append(b, " reason="...)
	b = append(b, Reason(q.Reason).Text(f.Format)...)
	return f.done(f.cgroup(b))
}

// GlobalDirtyState is the payload of global_dirty_state:
//
//	"dirty=%lu writeback=%lu unstable=%lu bg_thresh=%lu thresh=%lu limit=%lu dirtied=%lu written=%lu"
//
// V66 drops "unstable=%lu" (which shifts the harness's columns; see §6.3).
func (f *Formatter) GlobalDirtyState(g tracepoint.GlobalDirty) string {
	b := f.appendUL(f.start(), "dirty=", g.Dirty)
	b = f.appendUL(b, " writeback=", g.Writeback)
	if f.Format != V66 {
		b = f.appendUL(b, " unstable=", g.Unstable)
	}
	b = f.appendUL(b, " bg_thresh=", g.BgThresh)
	b = f.appendUL(b, " thresh=", g.Thresh)
	b = f.appendUL(b, " limit=", g.Limit)
	b = f.appendUL(b, " dirtied=", g.Dirtied)
	b = f.appendUL(b, " written=", g.Written)
	return f.done(b)
}

// BdiDirtyRatelimit is the payload of bdi_dirty_ratelimit:
//
//	"bdi %s: write_bw=%lu awrite_bw=%lu dirty_rate=%lu dirty_ratelimit=%lu task_ratelimit=%lu balanced_dirty_ratelimit=%lu"
//
// plus " cgroup_ino=%lu" in V66.
func (f *Formatter) BdiDirtyRatelimit(r tracepoint.Ratelimit) string {
	b := appendBdi(f.start(), r.Bdi)
	b = f.appendULClamp(b, "write_bw=", r.WriteBW)
	b = f.appendULClamp(b, " awrite_bw=", r.AvgWriteBW)
	b = f.appendULClamp(b, " dirty_rate=", r.DirtyRate)
	b = f.appendULClamp(b, " dirty_ratelimit=", r.DirtyRatelimit)
	b = f.appendULClamp(b, " task_ratelimit=", r.TaskRatelimit)
	b = f.appendULClamp(b, " balanced_dirty_ratelimit=", r.BalancedDirtyRatelimit)
	return f.done(f.cgroup(b))
}

// BalanceDirtyPages is the payload of balance_dirty_pages:
//
//	"bdi %s: limit=%lu setpoint=%lu dirty=%lu bdi_setpoint=%lu bdi_dirty=%lu dirty_ratelimit=%lu task_ratelimit=%lu dirtied=%u dirtied_pause=%u paused=%lu pause=%ld"
//
// plus " period=%lu think=%ld" when the event has them (v3.3+; the harness's column
// map expects them as columns 13-14) and always in V66, and
// " cgroup_ino=%lu" in V66. (v6.6 still says bdi_setpoint/bdi_dirty; a later patch
// renames them wb_setpoint/wb_dirty, which V66 does not follow.)
func (f *Formatter) BalanceDirtyPages(p tracepoint.Balance) string {
	b := appendBdi(f.start(), p.Bdi)
	b = f.appendULClamp(b, "limit=", p.Limit)
	b = f.appendULClamp(b, " setpoint=", p.Setpoint)
	b = f.appendULClamp(b, " dirty=", p.Dirty)
	b = f.appendULClamp(b, " bdi_setpoint=", p.BdiSetpoint)
	b = f.appendULClamp(b, " bdi_dirty=", p.BdiDirty)
	b = f.appendULClamp(b, " dirty_ratelimit=", p.DirtyRatelimit)
	b = f.appendULClamp(b, " task_ratelimit=", p.TaskRatelimit)
	b = f.appendU32(b, " dirtied=", p.Dirtied)
	b = f.appendU32(b, " dirtied_pause=", p.DirtiedPause)
	b = f.appendULClamp(b, " paused=", p.Paused)
	b = appendI(b, " pause=", p.Pause)
	if p.PeriodThink || f.Format == V66 {
		b = f.appendULClamp(b, " period=", p.Period)
		b = appendI(b, " think=", p.Think)
	}
	return f.done(f.cgroup(b))
}

// SingleInode is the payload of writeback_single_inode and (v3.2)
// writeback_single_inode_requeue, or (v6.6) writeback_single_inode_start:
//
//	"bdi %s: ino=%lu state=%s dirtied_when=%lu age=%lu index=%lu to_write=%ld wrote=%lu"
//
// plus " cgroup_ino=%lu" in V66. state is InodeState.Text (empty when no bit is set).
func (f *Formatter) SingleInode(p tracepoint.SingleInode) string {
	b := f.appendInodeHead(f.start(), p.Bdi, p.Ino, p.State, p.DirtiedWhen, p.Age)
	b = f.appendUL(b, " index=", p.Index)
	b = appendI(b, " to_write=", p.ToWrite)
	b = f.appendUL(b, " wrote=", p.Wrote)
	return f.done(f.cgroup(b))
}

// SbInodesRequeue is the payload of v6.6's writeback_sb_inodes_requeue (which
// replaces writeback_single_inode_requeue):
//
//	"bdi %s: ino=%lu state=%s dirtied_when=%lu age=%lu cgroup_ino=%lu"
//
// The cgroup suffix is printed only in V66.
func (f *Formatter) SbInodesRequeue(p tracepoint.SbInodesRequeue) string {
	b := f.appendInodeHead(f.start(), p.Bdi, p.Ino, p.State, p.DirtiedWhen, p.Age)
	return f.done(f.cgroup(b))
}

func (f *Formatter) appendInodeHead(b []byte, bdi string, ino, state uint64, dirtiedWhen, age int64) []byte {
	b = appendBdi(b, bdi)
	b = appendU(b, "ino=", ino)
	b = append(b, " state="...)
	b = appendState(b, InodeState(state), f.Format)
	b = f.appendUL(b, " dirtied_when=", dirtiedWhen)
	return f.appendUL(b, " age=", age)
}

// WriteInode is the payload of v6.6's writeback_write_inode[_start]:
//
//	"bdi %s: ino=%lu sync_mode=%d cgroup_ino=%lu"
//
// The cgroup suffix is printed only in V66.
func (f *Formatter) WriteInode(p tracepoint.WriteInode) string {
	b := appendBdi(f.start(), p.Bdi)
	b = appendU(b, "ino=", p.Ino)
	b = appendI(b, " sync_mode=", int64(p.SyncMode))
	return f.done(f.cgroup(b))
}

// CongestionWait is the payload of writeback_congestion_wait and
// writeback_wait_iff_congested: "usec_timeout=%u usec_delayed=%u". (v6.6 no longer
// has these events; the text is the same in both wordings.)
func (f *Formatter) CongestionWait(usecTimeout, usecDelayed uint32) string {
	b := appendU(f.start(), "usec_timeout=", uint64(usecTimeout))
	b = appendU(b, " usec_delayed=", uint64(usecDelayed))
	return f.done(b)
}

// BlockRq is the payload of block_rq_issue and block_rq_complete (v3.2 block.h,
// in both wordings):
//
//	issue:    "%d,%d %s %u (%s) %llu + %u [%s]"   dev, rwbs, bytes (0), cmd (empty), sector, nr_sector, comm
//	complete: "%d,%d %s (%s) %llu + %u [%d]"      dev, rwbs, cmd, sector, nr_sector, errors (0)
func (f *Formatter) BlockRq(r tracepoint.BlockRq) string {
	b := append(f.start(), r.Dev...)
	b = append(b, ' ')
	b = append(b, r.RWBS...)
	if r.TP == tracepoint.BlockRqIssue {
		b = append(b, " 0 () "...)
	} else {
		b = append(b, " () "...)
	}
	b = strconv.AppendInt(b, r.Sector, 10)
	b = appendI(b, " + ", r.NrSector)
	if r.TP == tracepoint.BlockRqIssue {
		b = append(b, " ["...)
		b = append(b, r.Comm...)
		b = append(b, ']')
	} else {
		b = append(b, " [0]"...)
	}
	return f.done(b)
}

// Sleeprq is the payload of block_sleeprq (the block_get_rq class):
//
//	"%d,%d %s %llu + %u [%s]"   dev, rwbs, sector, nr_sector, comm
func (f *Formatter) Sleeprq(r tracepoint.Sleeprq) string {
	b := append(f.start(), r.Dev...)
	b = append(b, ' ')
	b = append(b, r.RWBS...)
	b = appendI(b, " ", r.Sector)
	b = appendI(b, " + ", r.NrSector)
	b = append(b, " ["...)
	b = append(b, r.Comm...)
	return f.done(append(b, ']'))
}

// WbtStat is the payload of wbt_stat (v6.x wbt.h, kernel-notes §3.7):
//
//	"%s: rmean=%llu, rmin=%llu, rmax=%llu, rsamples=%llu, wmean=%llu, wmin=%llu, wmax=%llu, wsamples=%llu"
func (f *Formatter) WbtStat(s tracepoint.WbtStats) string {
	b := append(f.start(), s.Dev...)
	b = appendI(b, ": rmean=", s.RMean)
	b = appendI(b, ", rmin=", s.RMin)
	b = appendI(b, ", rmax=", s.RMax)
	b = appendI(b, ", rsamples=", s.RSamples)
	b = appendI(b, ", wmean=", s.WMean)
	b = appendI(b, ", wmin=", s.WMin)
	b = appendI(b, ", wmax=", s.WMax)
	b = appendI(b, ", wsamples=", s.WSamples)
	return f.done(b)
}

// WbtLat is the payload of wbt_lat: "%s: latency %lluus".
func (f *Formatter) WbtLat(l tracepoint.WbtLatency) string {
	b := append(f.start(), l.Dev...)
	b = appendI(b, ": latency ", l.Lat)
	return f.done(append(b, "us"...))
}

// WbtStep is the payload of wbt_step:
//
//	"%s: %s: step=%d, window=%luus, background=%u, normal=%u, max=%u"
func (f *Formatter) WbtStep(s tracepoint.WbtScaleStep) string {
	b := append(f.start(), s.Dev...)
	b = append(b, ": "...)
	b = append(b, s.Msg...)
	b = appendI(b, ": step=", int64(s.Step))
	b = appendI(b, ", window=", s.Window)
	b = appendI(b, "us, background=", int64(s.Bg))
	b = appendI(b, ", normal=", int64(s.Normal))
	b = appendI(b, ", max=", int64(s.Max))
	return f.done(b)
}

// WbtTimer is the payload of wbt_timer: "%s: status=%u, step=%d, inflight=%u".
func (f *Formatter) WbtTimer(t tracepoint.WbtTimerTick) string {
	b := append(f.start(), t.Dev...)
	b = appendI(b, ": status=", int64(t.Status))
	b = appendI(b, ", step=", int64(t.Step))
	b = appendI(b, ", inflight=", int64(t.Inflight))
	return f.done(b)
}
