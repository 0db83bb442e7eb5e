package trace

import "strconv"

// Event names, as the kernel prints them after the line prefix.
const (
	EvWritebackNothread         = "writeback_nothread"
	EvWritebackQueue            = "writeback_queue"
	EvWritebackExec             = "writeback_exec"
	EvWritebackStart            = "writeback_start"
	EvWritebackWritten          = "writeback_written"
	EvWritebackWait             = "writeback_wait"
	EvWritebackPagesWritten     = "writeback_pages_written"
	EvWritebackNowork           = "writeback_nowork"
	EvWritebackWakeBackground   = "writeback_wake_background"
	EvWritebackWakeThread       = "writeback_wake_thread"
	EvWritebackWakeForkerThread = "writeback_wake_forker_thread"
	EvWritebackBdiRegister      = "writeback_bdi_register"
	EvWritebackBdiUnregister    = "writeback_bdi_unregister"
	EvWritebackThreadStart      = "writeback_thread_start"
	EvWritebackThreadStop       = "writeback_thread_stop"
	EvWbcWritepage              = "wbc_writepage"
	EvWritebackQueueIO          = "writeback_queue_io"
	EvGlobalDirtyState          = "global_dirty_state"
	EvBdiDirtyRatelimit         = "bdi_dirty_ratelimit"
	EvBalanceDirtyPages         = "balance_dirty_pages"
	EvWritebackSingleInode      = "writeback_single_inode"
	EvWritebackSingleInodeReq   = "writeback_single_inode_requeue" // v3.2 only
	EvWritebackSingleInodeStart = "writeback_single_inode_start"   // v6.6 only
	EvWritebackSbInodesRequeue  = "writeback_sb_inodes_requeue"    // v6.6 only
	EvWritebackWriteInode       = "writeback_write_inode"          // v6.6 only
	EvWritebackWriteInodeStart  = "writeback_write_inode_start"    // v6.6 only
	EvWritebackCongestionWait   = "writeback_congestion_wait"
	EvWritebackWaitIffCongested = "writeback_wait_iff_congested"
)

// Formatter renders tracepoint payloads (the text after "<event>: ") exactly as the
// kernel's TP_printk does. It reuses one internal buffer, so each call allocates only
// the returned string. The zero value prints the v3.2 wording.
type Formatter struct {
	// Format selects the kernel wording.
	Format Format
	// PeriodThink appends v3.3+'s " period=%lu think=%ld" to balance_dirty_pages in
	// the V32 wording (the harness's column map expects them as columns 13-14). V66
	// always prints them.
	PeriodThink bool
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

// WorkPayload is a struct wb_writeback_work as the writeback_work_class events see it.
type WorkPayload struct {
	Bdi              string // bdi name, e.g. "8:0"
	SbMajor, SbMinor int    // sb_dev; 0:0 when the work has no superblock
	NrPages          int64
	SyncMode         int // WB_SYNC_NONE 0, WB_SYNC_ALL 1
	Kupdate          bool
	RangeCyclic      bool
	Background       bool
	Reason           Reason
}

// Work is the payload of writeback_{nothread,queue,exec,start,written,wait}:
//
//	"bdi %s: sb_dev %d:%d nr_pages=%ld sync_mode=%d kupdate=%d range_cyclic=%d background=%d reason=%s"
//
// plus " cgroup_ino=%lu" in V66.
func (f *Formatter) Work(w WorkPayload) string {
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
	b = append(b, w.Reason.Text(f.Format)...)
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

// WBCPayload is a struct writeback_control as wbc_writepage sees it.
type WBCPayload struct {
	Bdi          string
	NrToWrite    int64 // towrt
	PagesSkipped int64 // skip
	SyncMode     int   // mode
	Kupdate      bool  // kupd
	Background   bool  // bgrd
	Reclaim      bool  // reclm
	RangeCyclic  bool  // cyclic
	RangeStart   int64 // start, loff_t printed as 0x%lx
	RangeEnd     int64 // end, e.g. LLONG_MAX = 0x7fffffffffffffff
}

// WBC is the payload of wbc_writepage:
//
//	"bdi %s: towrt=%ld skip=%ld mode=%d kupd=%d bgrd=%d reclm=%d cyclic=%d start=0x%lx end=0x%lx"
//
// plus " cgroup_ino=%lu" in V66. (v2.6.36 also printed "more=%d older=0x%lx" before
// start=; v3.2 has dropped them.)
func (f *Formatter) WBC(w WBCPayload) string {
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
func (f *Formatter) QueueIO(bdi string, older uint64, age int64, enqueue int, reason Reason) string {
	b := appendBdi(f.start(), bdi)
	b = appendU(b, "older=", older)
	b = appendI(b, " age=", age)
	b = appendI(b, " enqueue=", int64(enqueue))
	b = append(b, " reason="...)
	b = append(b, reason.Text(f.Format)...)
	return f.done(f.cgroup(b))
}

// GlobalDirtyPayload is the global dirty state, in pages.
type GlobalDirtyPayload struct {
	Dirty     uint64 // NR_FILE_DIRTY
	Writeback uint64 // NR_WRITEBACK
	Unstable  uint64 // NR_UNSTABLE_NFS (not printed by V66)
	BgThresh  uint64
	Thresh    uint64
	Limit     uint64 // global_dirty_limit
	Dirtied   uint64 // NR_DIRTIED, cumulative
	Written   uint64 // NR_WRITTEN, cumulative
}

// GlobalDirtyState is the payload of global_dirty_state:
//
//	"dirty=%lu writeback=%lu unstable=%lu bg_thresh=%lu thresh=%lu limit=%lu dirtied=%lu written=%lu"
//
// V66 drops "unstable=%lu" (which shifts the harness's columns; see §6.3).
func (f *Formatter) GlobalDirtyState(g GlobalDirtyPayload) string {
	b := appendU(f.start(), "dirty=", g.Dirty)
	b = appendU(b, " writeback=", g.Writeback)
	if f.Format != V66 {
		b = appendU(b, " unstable=", g.Unstable)
	}
	b = appendU(b, " bg_thresh=", g.BgThresh)
	b = appendU(b, " thresh=", g.Thresh)
	b = appendU(b, " limit=", g.Limit)
	b = appendU(b, " dirtied=", g.Dirtied)
	b = appendU(b, " written=", g.Written)
	return f.done(b)
}

// RatelimitPayload is the per-bdi bandwidth and rate state, all in KB/s.
type RatelimitPayload struct {
	Bdi                    string
	WriteBW                uint64 // write_bw
	AvgWriteBW             uint64 // awrite_bw
	DirtyRate              uint64
	DirtyRatelimit         uint64
	TaskRatelimit          uint64
	BalancedDirtyRatelimit uint64
}

// BdiDirtyRatelimit is the payload of bdi_dirty_ratelimit:
//
//	"bdi %s: write_bw=%lu awrite_bw=%lu dirty_rate=%lu dirty_ratelimit=%lu task_ratelimit=%lu balanced_dirty_ratelimit=%lu"
//
// plus " cgroup_ino=%lu" in V66.
func (f *Formatter) BdiDirtyRatelimit(r RatelimitPayload) string {
	b := appendBdi(f.start(), r.Bdi)
	b = appendU(b, "write_bw=", r.WriteBW)
	b = appendU(b, " awrite_bw=", r.AvgWriteBW)
	b = appendU(b, " dirty_rate=", r.DirtyRate)
	b = appendU(b, " dirty_ratelimit=", r.DirtyRatelimit)
	b = appendU(b, " task_ratelimit=", r.TaskRatelimit)
	b = appendU(b, " balanced_dirty_ratelimit=", r.BalancedDirtyRatelimit)
	return f.done(f.cgroup(b))
}

// BalancePayload is one balance_dirty_pages() round of a task.
type BalancePayload struct {
	Bdi            string
	Limit          uint64 // global_dirty_limit, pages
	Setpoint       uint64 // (limit + freerun) / 2, pages
	Dirty          uint64 // pages
	BdiSetpoint    uint64 // setpoint * bdi_thresh / (thresh + 1), pages
	BdiDirty       uint64 // pages
	DirtyRatelimit uint64 // KB/s
	TaskRatelimit  uint64 // KB/s
	Dirtied        uint32 // pages dirtied since the last pause
	DirtiedPause   uint32 // current->nr_dirtied_pause
	Paused         uint64 // ms already paused in this call
	Pause          int64  // ms
	Period         uint64 // ms (v3.3+)
	Think          int64  // ms (v3.3+), 0 if dirty_paused_when is unset
}

// BalanceDirtyPages is the payload of balance_dirty_pages:
//
//	"bdi %s: limit=%lu setpoint=%lu dirty=%lu bdi_setpoint=%lu bdi_dirty=%lu dirty_ratelimit=%lu task_ratelimit=%lu dirtied=%u dirtied_pause=%u paused=%lu pause=%ld"
//
// plus " period=%lu think=%ld" in V32 with PeriodThink (v3.3+) and in V66, and
// " cgroup_ino=%lu" in V66. (v6.6 still says bdi_setpoint/bdi_dirty; a later patch
// renames them wb_setpoint/wb_dirty, which V66 does not follow.)
func (f *Formatter) BalanceDirtyPages(p BalancePayload) string {
	b := appendBdi(f.start(), p.Bdi)
	b = appendU(b, "limit=", p.Limit)
	b = appendU(b, " setpoint=", p.Setpoint)
	b = appendU(b, " dirty=", p.Dirty)
	b = appendU(b, " bdi_setpoint=", p.BdiSetpoint)
	b = appendU(b, " bdi_dirty=", p.BdiDirty)
	b = appendU(b, " dirty_ratelimit=", p.DirtyRatelimit)
	b = appendU(b, " task_ratelimit=", p.TaskRatelimit)
	b = appendU(b, " dirtied=", uint64(p.Dirtied))
	b = appendU(b, " dirtied_pause=", uint64(p.DirtiedPause))
	b = appendU(b, " paused=", p.Paused)
	b = appendI(b, " pause=", p.Pause)
	if f.PeriodThink || f.Format == V66 {
		b = appendU(b, " period=", p.Period)
		b = appendI(b, " think=", p.Think)
	}
	return f.done(f.cgroup(b))
}

// InodePayload is one writeback_single_inode() call.
type InodePayload struct {
	Bdi         string
	Ino         uint64
	State       InodeState // i_state after the call
	DirtiedWhen uint64     // jiffies
	Age         uint64     // (jiffies - dirtied_when) / HZ, seconds
	Index       uint64     // mapping->writeback_index after writepages
	ToWrite     int64      // nr_to_write at entry
	Wrote       uint64     // to_write - wbc->nr_to_write
}

// SingleInode is the payload of writeback_single_inode and (v3.2)
// writeback_single_inode_requeue, or (v6.6) writeback_single_inode_start:
//
//	"bdi %s: ino=%lu state=%s dirtied_when=%lu age=%lu index=%lu to_write=%ld wrote=%lu"
//
// plus " cgroup_ino=%lu" in V66. state is InodeState.Text (empty when no bit is set).
func (f *Formatter) SingleInode(p InodePayload) string {
	b := appendInodeHead(f.start(), p.Bdi, p.Ino, p.State, p.DirtiedWhen, p.Age, f.Format)
	b = appendU(b, " index=", p.Index)
	b = appendI(b, " to_write=", p.ToWrite)
	b = appendU(b, " wrote=", p.Wrote)
	return f.done(f.cgroup(b))
}

// SbInodesRequeue is the payload of v6.6's writeback_sb_inodes_requeue (which
// replaces writeback_single_inode_requeue):
//
//	"bdi %s: ino=%lu state=%s dirtied_when=%lu age=%lu cgroup_ino=%lu"
//
// The cgroup suffix is printed only in V66.
func (f *Formatter) SbInodesRequeue(bdi string, ino uint64, state InodeState, dirtiedWhen, age uint64) string {
	b := appendInodeHead(f.start(), bdi, ino, state, dirtiedWhen, age, f.Format)
	return f.done(f.cgroup(b))
}

func appendInodeHead(b []byte, bdi string, ino uint64, state InodeState, dirtiedWhen, age uint64, fm Format) []byte {
	b = appendBdi(b, bdi)
	b = appendU(b, "ino=", ino)
	b = append(b, " state="...)
	b = appendState(b, state, fm)
	b = appendU(b, " dirtied_when=", dirtiedWhen)
	return appendU(b, " age=", age)
}

// WriteInode is the payload of v6.6's writeback_write_inode[_start]:
//
//	"bdi %s: ino=%lu sync_mode=%d cgroup_ino=%lu"
//
// The cgroup suffix is printed only in V66.
func (f *Formatter) WriteInode(bdi string, ino uint64, syncMode int) string {
	b := appendBdi(f.start(), bdi)
	b = appendU(b, "ino=", ino)
	b = appendI(b, " sync_mode=", int64(syncMode))
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
