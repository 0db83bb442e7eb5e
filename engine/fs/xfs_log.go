package fs

import (
	"maps"
	"slices"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Sizes of what a dd workload logs (v3.1 delayed logging formats the items of a
// checkpoint into the iclogs). Estimates from the on-disk formats: an inode item is
// its xfs_inode_log_format, the inode core (xfs_icdinode) and the in-inode extent
// list with their op headers; a buffer item is its xfs_buf_log_format and the
// dirty 128-byte chunks of the buffer (XFS_BLF_CHUNK): an AGF or a free-space
// btree leaf dirties one or two.
const (
	xfsLogInodeBytes  = 256
	xfsLogBufBytes    = 320
	xfsLogRecordBytes = 512       // iclog header (xlog_rec_header) per iclog
	xfsIclogBytes     = 32 << 10  // logbsize default: 32 KiB iclogs
	xfsLogMinBytes    = 512 << 12 // mkfs: at least 512 blocks of log
	xfsLogMaxBytes    = 2 << 30   // XFS_MAX_LOG_BYTES
)

// xfsMeta is XFS's metadata IO on the disk (v3.1 with delaylog, the 3.1 default):
//   - the log: mkfs.xfs (xfsprogs 3.1) puts the internal log at the start of AG
//     agcount/2 and sizes it 1/2048 of the filesystem for filesystems of 16 GB and
//     more; a single disk between 128 MB and 4 TB gets 4 AGs
//     (calc_default_ag_geometry);
//   - transactions (the delalloc conversion's allocation, xfs_log_inode from
//     WB_SYNC_ALL's ->write_inode) put their items in the CIL;
//   - xfs_sync_worker (xfssyncd, every xfs_syncd_centisecs) forces the log: the
//     CIL checkpoint is written to the log as WRITE_SYNC iclog writes
//     (_xfs_buf_ioapply, XBF_LOG_BUFFER); then xfs_ail_push_all has xfsaild write
//     every logged item home: an inode by xfs_iflush into its cluster buffer, an
//     AGF or btree block as its buffer. Items logged in the checkpoint just
//     forced are pinned until its write completes, so xfsaild forces the log and
//     writes them once it has: the model writes them home after the checkpoint
//     write. xfsaild's xfs_flush_buftarg writes every delayed-write buffer of the
//     disk, sorted by block (xfs_buf_cmp), as plain WRITEs;
//   - xfsbufd writes the delayed-write buffers xfs_iflush queued (WB_SYNC_NONE
//     ->write_inode) once they are BufAge old, at its BufTimer wake-ups; a
//     cluster buffer's completion releases its inodes' flush locks
//     (xfs_iflush_done).
//
// With nobarrier (the harness's mount) no write carries a flush or FUA.
type xfsMeta struct {
	x  *Xfs
	q  *devices.Queue
	sy *kernel.Thread // xfssyncd
	bd *kernel.Thread // xfsbufd

	agSectors  int64
	logStart   int64 // first sector of the log
	logPages   int64
	logCursor  int64
	firstIno   uint64             // the first inode number of the disk (inode clusters are numbered from it)
	cilInodes  map[uint64]int64   // inodes logged in the CIL: their cluster buffer's home sector
	cilBufs    map[int64]bool     // home sectors of the buffers logged in the CIL
	ail        map[int64]int64    // home sector → pages of the items checkpointed, not yet written
	delwri     map[int64]sim.Time // delayed-write cluster buffers (xfs_iflush) → when xfsbufd writes them
	syTodo     []devices.Bio
	bdTodo     []devices.Bio
	logPending int64 // checkpoint pages in flight
	syState    int
	syWQ       sim.WaitQueue

	// fsync log forces (xfs_fsync.go): the forcing tasks, the last checkpoint
	// sequence an fsync pushed, and the pages still in flight per sequence
	forces    map[*kernel.Thread]*xfsForce
	forceSeq  int64
	forceLeft map[int64]int64
	forceWQ   sim.WaitQueue

	Checkpoints int64 // CIL checkpoints written to the log
	LogPages    int64 // pages written to the log
	HomePages   int64 // metadata pages written home (xfsaild and xfsbufd)
}

func newXfsMeta(x *Xfs, k *kernel.Kernel, b *kernel.BDI) *xfsMeta {
	m := &xfsMeta{x: x, q: b.Q, cilInodes: map[uint64]int64{}, cilBufs: map[int64]bool{},
		ail: map[int64]int64{}, delwri: map[int64]sim.Time{}}
	c := b.Q.Spec().CapacityBytes
	if c <= 0 {
		c = 500_000_000_000 // as journalSector: a device that reports no capacity
	}
	ags := max(x.P.AGCount, 1)
	m.agSectors = c / devices.SectorSize / ags &^ 7
	m.logStart = m.agSectors*(ags/2) + 8*xfsPreallocBlocks
	m.logPages = min(max(c/2048, xfsLogMinBytes), xfsLogMaxBytes) / devices.PageSize
	m.sy = k.NewThreadOn(b, "xfssyncd")
	m.sy.Task.Resume = m.syncd
	m.sy.Task.SleepInterruptible(x.P.SyncdInterval)
	m.bd = k.NewThreadOn(b, "xfsbufd")
	m.bd.Task.Resume = m.bufd
	m.bd.Task.SleepInterruptible(-1)
	return m
}

// xfsPreallocBlocks is about XFS_PREALLOC_BLOCKS: the AG's header block, the free
// space and inode btree roots and the initial free list come first in every AG.
const xfsPreallocBlocks = 8

// agOf is the AG of partition sector s.
func (m *xfsMeta) agOf(s int64) int64 {
	return min(s/m.agSectors, max(m.x.P.AGCount, 1)-1)
}

// clusterHome is the sector of in's inode cluster buffer: the files' inodes are
// allocated in AG 0's first inode chunks, right after its preallocated blocks.
func (m *xfsMeta) clusterHome(in *kernel.Inode) int64 {
	if m.firstIno == 0 {
		m.firstIno = m.x.k.Inodes()[0].Ino
	}
	c := int64(in.Ino/m.x.P.InodesPerCluster - m.firstIno/m.x.P.InodesPerCluster)
	return 8*xfsPreallocBlocks + c*xfsClusterPages*devices.PageSectors
}

// xfsClusterPages is XFS_INODE_CLUSTER_SIZE (8 KiB) in pages.
const xfsClusterPages = 2

// logInode is a transaction logging in's inode core (xfs_trans_log_inode).
func (m *xfsMeta) logInode(in *kernel.Inode) { m.cilInodes[in.Ino] = m.clusterHome(in) }

// logAlloc is xfs_iomap_write_allocate's transaction for an extent at sector s:
// the inode (its extent list), the AGF and the two free-space btree leaves of the
// extent's AG (xfs_alloc_ag_vextent updates both the by-block and by-size btrees).
func (m *xfsMeta) logAlloc(in *kernel.Inode, s int64) {
	m.logInode(in)
	ag := m.agOf(s) * m.agSectors
	for _, blk := range []int64{0, 1, 2} { // AGF (block 0), bnobt root, cntbt root
		m.cilBufs[ag+blk*devices.PageSectors] = true
	}
}

// delwriQueue is xfs_buf_delwri_queue of in's cluster buffer (xfs_iflush), due
// for xfsbufd at due.
func (m *xfsMeta) delwriQueue(in *kernel.Inode, due sim.Time) {
	h := m.clusterHome(in)
	if _, ok := m.delwri[h]; !ok {
		m.delwri[h] = due
	}
	m.bd.Task.Wake()
}

// EndIO is the completion of a log or metadata write.
func (m *xfsMeta) EndIO(cookie uint64, index, pages int64, op devices.Op) {
	switch cookie {
	case 0:
		m.logPending -= pages
		if m.logPending <= 0 {
			m.syWQ.WakeAll()
		}
	case 2:
		m.iflushDone(index)
	case 3:
		m.forceEndIO(index, pages)
	}
}

// iflushDone is xfs_iflush_done for the inodes of cluster c: the buffer is on
// disk, so the flush locks of the inodes flushed into it are released (an early
// write by xfsaild's xfs_flush_buftarg releases them before xfsbufd's due time).
func (m *xfsMeta) iflushDone(c int64) {
	all := m.x.k.Inodes()
	ipc := m.x.P.InodesPerCluster
	first := (m.firstIno/ipc + uint64(c)) * ipc
	lo := max(first, all[0].Ino) - all[0].Ino
	hi := min(first+ipc-all[0].Ino, uint64(len(all)))
	now := m.x.k.W.Now()
	for _, o := range all[min(lo, hi):hi] {
		if oi, ok := o.FS.(*xfsInode); ok && o.BDI() == m.x.bdi && oi.flushTill > now {
			oi.flushTill = now
		}
	}
}

// checkpoint is the CIL push of xfssyncd's log force: its iclog writes go to
// xfssyncd's queue (syTodo).
func (m *xfsMeta) checkpoint() {
	m.syTodo, _ = m.cilPush(m.syTodo, 0, 0)
}

// cilPush is xlog_cil_push_work: the checkpoint's pages at the log's head
// (wrapping), as one write per iclog (xlog_write_iclog), appended to todo with
// cookie and index, and the CIL's items moved to the AIL. It returns the pages.
// The iclog writes are WRITE_SYNC (v3.1 _xfs_buf_ioapply, XBF_LOG_BUFFER), or
// with the switch xfs_fsync_log_force REQ_SYNC|REQ_IDLE|REQ_META|REQ_FUA (6.1:
// the block layer's wbt leaves them alone; the first also REQ_PREFLUSH, which
// the device model has no flag for).
func (m *xfsMeta) cilPush(todo []devices.Bio, cookie uint64, index int64) ([]devices.Bio, int64) {
	bytes := int64(len(m.cilInodes))*xfsLogInodeBytes + int64(len(m.cilBufs))*xfsLogBufBytes
	bytes += (bytes/xfsIclogBytes + 1) * xfsLogRecordBytes
	pages := (bytes + devices.PageSize - 1) / devices.PageSize
	flags := devices.FlagSync | devices.FlagMeta
	if m.x.k.P.Variants.On(swXFSFsyncLogForce) {
		flags |= devices.FlagIdle | devices.FlagFUA
	}
	total := pages
	for pages > 0 {
		if m.logCursor >= m.logPages {
			m.logCursor = 0
		}
		n := min(pages, xfsIclogBytes/devices.PageSize, m.logPages-m.logCursor)
		todo = append(todo, devices.Bio{Sector: m.logStart + m.logCursor*devices.PageSectors, Pages: n,
			Op: devices.Write, Flags: flags, Owner: m, Cookie: cookie, Index: index})
		m.logCursor += n
		if cookie == 0 {
			m.logPending += n
		}
		m.LogPages += n
		pages -= n
	}
	for _, h := range m.cilInodes {
		m.ail[h] = xfsClusterPages
	}
	for h := range m.cilBufs {
		m.ail[h] = 1
	}
	clear(m.cilInodes)
	clear(m.cilBufs)
	m.Checkpoints++
	return todo, total
}

// homeWrites appends a plain WRITE of each home buffer (sector → pages), sorted
// by block, to todo.
func (m *xfsMeta) homeWrites(todo []devices.Bio, homes map[int64]int64) []devices.Bio {
	for _, h := range slices.Sorted(maps.Keys(homes)) {
		n := homes[h]
		b := devices.Bio{Sector: h, Pages: n, Op: devices.Write, Flags: devices.FlagMeta, Owner: m, Cookie: 1}
		if n == xfsClusterPages {
			// an inode cluster buffer: its completion releases the flush locks
			b.Cookie, b.Index = 2, (h-8*xfsPreallocBlocks)/(xfsClusterPages*devices.PageSectors)
		}
		todo = append(todo, b)
		m.HomePages += n
	}
	return todo
}

// submit submits todo's bios for th in order, plugged; it returns the bios left
// when th blocked for a request (resubmitted on resume).
func (m *xfsMeta) submit(th *kernel.Thread, todo []devices.Bio) ([]devices.Bio, bool) {
	if !th.Sub.Plugged() {
		th.Sub.StartPlug()
	}
	for len(todo) > 0 {
		b := todo[0]
		todo = todo[1:]
		if m.q.Submit(th.Sub, b) {
			return todo, true
		}
	}
	th.Sub.FinishPlug()
	return todo[:0], false
}

// xfssyncd's states: asleep until the next tick, waiting for the checkpoint's
// write, submitting the home writes.
const (
	xsIdle = iota
	xsLogWait
	xsPush
)

// syncd is xfs_sync_worker: every SyncdInterval, a log force (the CIL checkpoint)
// and, once it is written, xfs_ail_push_all and xfs_flush_buftarg.
func (m *xfsMeta) syncd() {
	var blocked bool
	if len(m.syTodo) > 0 {
		if m.syTodo, blocked = m.submit(m.sy, m.syTodo); blocked {
			return
		}
	}
	switch m.syState {
	case xsIdle:
		if len(m.cilInodes)+len(m.cilBufs) == 0 {
			m.sy.Task.SleepInterruptible(m.nextTick())
			return
		}
		m.checkpoint()
		m.syState = xsLogWait
		if m.syTodo, blocked = m.submit(m.sy, m.syTodo); blocked {
			return
		}
		fallthrough
	case xsLogWait:
		if m.logPending > 0 {
			m.sy.Task.Wait(&m.syWQ)
			return
		}
		// xfsaild: every item of the AIL home, with every delayed-write buffer
		for h := range m.delwri {
			if _, ok := m.ail[h]; !ok {
				m.ail[h] = xfsClusterPages
			}
		}
		clear(m.delwri)
		m.syTodo = m.homeWrites(m.syTodo, m.ail)
		clear(m.ail)
		m.syState = xsPush
		if m.syTodo, blocked = m.submit(m.sy, m.syTodo); blocked {
			return
		}
		fallthrough
	case xsPush:
		m.syState = xsIdle
		m.sy.Task.SleepInterruptible(m.nextTick())
	}
}

// nextTick is the time to the next xfs_sync_worker run (every SyncdInterval from
// mount, as Xfs.logForceAfter).
func (m *xfsMeta) nextTick() sim.Time {
	now := m.x.k.W.Now()
	return m.x.logForceAfter(now) - now
}

// bufd is xfsbufd: at each BufTimer wake-up, the delayed-write buffers that are
// due, sorted by block; asleep while none is queued.
func (m *xfsMeta) bufd() {
	var blocked bool
	if len(m.bdTodo) > 0 {
		if m.bdTodo, blocked = m.submit(m.bd, m.bdTodo); blocked {
			return
		}
	}
	if len(m.delwri) == 0 {
		m.bd.Task.SleepInterruptible(-1)
		return
	}
	now := m.x.k.W.Now()
	next := sim.Time(-1)
	due := map[int64]int64{}
	for h, t := range m.delwri {
		if t <= now {
			due[h] = xfsClusterPages
		} else if next < 0 || t < next {
			next = t
		}
	}
	for h := range due {
		delete(m.delwri, h)
	}
	if len(due) > 0 {
		if m.bdTodo, blocked = m.submit(m.bd, m.homeWrites(m.bdTodo, due)); blocked {
			return
		}
	}
	if next < 0 {
		m.bd.Task.SleepInterruptible(-1)
		return
	}
	m.bd.Task.SleepInterruptible(next - now)
}
