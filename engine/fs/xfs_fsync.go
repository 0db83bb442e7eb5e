package fs

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
)

// swXFSFsyncLogForce is 6.1's xfs_file_fsync log force: after the data,
// xfs_fsync_flush_log forces the log up to the inode's last commit sequence
// (xfs_log_force_seq), which pushes the CIL (every transaction committed so far,
// the bulk writer's extent allocations and size updates too) into iclogs and
// waits for their writes; the iclog writes carry REQ_SYNC|REQ_IDLE|REQ_FUA.
// Off: the v3.1 model, whose fsync only waits for the data.
var swXFSFsyncLogForce = kernel.DeclareSwitch(kernel.Switch{Name: "xfs_fsync_log_force", Order: 201,
	Doc:    "xfs_file_fsync forces the log to the inode's commit sequence (CIL push, FUA iclog writes, not wbt-throttled); the write()'s timestamp update logs the inode (off: fsync waits for the data only)",
	Models: "xfs_file_fsync, xfs_fsync_flush_log, xfs_log_force_seq, xlog_cil_push_work, xlog_write_iclog, fs/xfs v6.1",
	Source: "Linux 6.1.192 fs/xfs/xfs_file.c, xfs_log.c, xfs_log_cil.c; docs/linux-6.12-notes.md"})

var (
	pathXFSFsyncPush = swXFSFsyncLogForce.DeclarePath("xfs_fsync.cil_push",
		"fsyncs whose inode was in the CIL: the log force pushed it and waited for the iclog writes")
	pathXFSFsyncJoin = swXFSFsyncLogForce.DeclarePath("xfs_fsync.pushed_already",
		"fsyncs whose inode's checkpoint was already being written: they waited for it without a push")
)

// xfsForce is one fsync's log force in progress.
type xfsForce struct {
	seq  int64         // the checkpoint it waits for (0: none)
	todo []devices.Bio // iclog writes not yet submitted (the submission blocked)
}

// logTimestamp is xfs_vn_update_time's transaction: a write() that changes the
// file's timestamps (file_update_time from xfs_file_write_checks) logs the
// inode core in the CIL.
func (m *xfsMeta) logTimestamp(in *kernel.Inode) {
	if m.x.k.P.Variants.On(swXFSFsyncLogForce) {
		m.logInode(in)
	}
}

// forceEndIO is an fsync checkpoint's iclog write completing
// (xlog_state_do_callback): when the last of checkpoint seq is on disk, its
// waiters are woken (xlog_wait_on_iclog).
func (m *xfsMeta) forceEndIO(seq, pages int64) {
	m.forceLeft[seq] -= pages
	if m.forceLeft[seq] <= 0 {
		delete(m.forceLeft, seq)
		m.forceWQ.WakeAll()
	}
}

// FsyncCommit is kernel.FsyncCommitter: xfs_file_fsync's xfs_fsync_flush_log
// (6.1). An inode logged in the CIL is pushed now by the fsync's task (the CIL
// worker's xlog_cil_push_work, which the forcing task waits for); one whose
// checkpoint is in flight (xfssyncd's, or another fsync's) waits for it.
func (x *Xfs) FsyncCommit(th *kernel.Thread, in *kernel.Inode) bool {
	if !x.k.P.Variants.On(swXFSFsyncLogForce) {
		return false
	}
	m := x.log
	if m.forces == nil {
		m.forces = map[*kernel.Thread]*xfsForce{}
		m.forceLeft = map[int64]int64{}
	}
	f, ok := m.forces[th]
	if !ok {
		f = &xfsForce{}
		m.forces[th] = f
		if _, logged := m.cilInodes[in.Ino]; logged {
			x.k.Fired(pathXFSFsyncPush)
			m.forceSeq++
			f.seq = m.forceSeq
			var pages int64
			f.todo, pages = m.cilPush(nil, 3, f.seq)
			m.forceLeft[f.seq] = pages
		} else if len(m.forceLeft) > 0 || m.logPending > 0 {
			x.k.Fired(pathXFSFsyncJoin)
			f.seq = m.forceSeq
		}
	}
	if len(f.todo) > 0 {
		var blocked bool
		if f.todo, blocked = m.submit(th, f.todo); blocked {
			th.SleepFor(kernel.WaitLogForce)
			return true
		}
	}
	_, inflight := m.forceLeft[f.seq]
	if inflight || (f.seq > 0 && m.logPending > 0) {
		th.SleepFor(kernel.WaitLogForce)
		if inflight {
			th.Task.Wait(&m.forceWQ)
		} else {
			th.Task.Wait(&m.syWQ)
		}
		return true
	}
	delete(m.forces, th)
	return false
}
