package fs

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// journal is a jbd/jbd2 journal in the model: a kernel thread (kjournald,
// jbd2/sda-8) that commits the running transaction every CommitInterval or when
// asked (fsync), writing the journalled metadata blocks and then the commit block
// into a circular log region with sync, meta writes (WRITE_SYNC: not throttled as
// background writeback). Before the metadata, a data=ordered filesystem may write
// the transaction's data (the beforeCommit hook; ext3).
type journal struct {
	k *kernel.Kernel
	q *devices.Queue // the disk the filesystem is on
	commitThread

	interval   sim.Time
	start, len int64 // journal region: first sector, length in pages
	cursor     int64 // next log page (relative)
	commitFUA  bool
	reqIdle    bool // the log writes carry REQ_IDLE (jbd2 of 6.1: not wbt-throttled)

	pendingMeta int64 // metadata blocks logged in the running transaction
	state       int
	timer       sim.Timer
	// beforeCommit runs at the start of a commit (ordered data writeout); it
	// reports true when the thread blocked (called again on resume).
	beforeCommit func() bool
	// afterCommit runs when the commit block is on disk.
	afterCommit func()
	// checkpoint runs after the commit: writing journalled metadata to its home
	// location; it reports true when the thread blocked (called again on resume).
	checkpoint func() bool
	// locked is true between the start of the commit and the end of its metadata
	// writes (T_LOCKED: new handles wait).
	locked  bool
	waiters sim.WaitQueue // tasks waiting for the commit (fsync) or for T_LOCKED to end
	// handlesOpen, when set, makes the lock window jbd's T_LOCKED: it ends at the
	// start of the commit as soon as no handle is open (handlesOpen false; kjournald
	// re-checks every millisecond) instead of after the metadata writes.
	handlesOpen func() bool

	Commits     int64
	MetaPages   int64
	CommitStart sim.Time

	fsyncs map[*kernel.Thread]int64 // fsync callers: the commit count they wait for
	// commitRequest is j_commit_request: kjournald keeps committing until Commits
	// reaches it (log_start_commit asks for a transaction, not just a wake-up).
	commitRequest int64
}

// fsyncWait is the commit wait of ext3/ext4 ->fsync (ext3_sync_file →
// log_start_commit + log_wait_commit): th waits until a commit that started after
// its call is on disk. A commit already in progress may not hold th's last
// changes, so th then waits for the one after it. It reports true when th blocked.
func (j *journal) fsyncWait(th *kernel.Thread) bool {
	if j.fsyncs == nil {
		j.fsyncs = map[*kernel.Thread]int64{}
	}
	target, ok := j.fsyncs[th]
	if !ok {
		target = j.Commits + 1
		if j.state != jIdle && j.state != jCheckpoint {
			// a commit is under way (its commit block not yet on disk, so not yet
			// counted) and may not hold th's last changes: wait for the next one
			target++
		}
		j.fsyncs[th] = target
		j.commitRequest = max(j.commitRequest, target)
		j.kick()
	}
	if j.Commits >= target {
		delete(j.fsyncs, th)
		return false
	}
	if j.state == jIdle || j.state == jCheckpoint {
		j.kick() // the commit in progress ended; ours has not started yet
	}
	th.SleepFor(kernel.WaitJournal) // jbd2_log_wait_commit / log_wait_commit
	th.Task.Wait(&j.waiters)
	return true
}

// runningTid is the transaction new handles join: the one after the commit in
// progress (T_LOCKED handles wait for the switch and join the next), else the
// one after the last committed.
func (j *journal) runningTid() int64 {
	if j.state != jIdle && j.state != jCheckpoint {
		return j.Commits + 2
	}
	return j.Commits + 1
}

// completeTransaction is jbd2_complete_transaction (fs/jbd2/journal.c, v6.1) for
// transaction tid: done if it has committed; if it is committing, wait for it;
// if it is running, ask for its commit (jbd2_log_start_commit) and wait
// (jbd2_log_wait_commit). It reports true when th blocked.
func (j *journal) completeTransaction(th *kernel.Thread, tid int64) bool {
	if j.fsyncs == nil {
		j.fsyncs = map[*kernel.Thread]int64{}
	}
	if _, ok := j.fsyncs[th]; !ok {
		switch {
		case j.Commits >= tid:
			j.k.Fired(pathJbd2AlreadyCommitted)
			return false
		case tid == j.runningTid():
			j.commitRequest = max(j.commitRequest, tid)
			j.kick()
		default:
			j.k.Fired(pathJbd2JoinCommitting)
		}
		j.fsyncs[th] = tid
	}
	if j.Commits >= tid {
		delete(j.fsyncs, th)
		return false
	}
	if j.state == jIdle || j.state == jCheckpoint {
		j.kick()
	}
	th.SleepFor(kernel.WaitJournal) // jbd2_log_wait_commit
	th.Task.Wait(&j.waiters)
	return true
}

// journalSector is the journal's first sector: at, or when at is 0 where mke2fs
// puts it, the middle of the filesystem (half the device's capacity; 250 GB into
// the device when it reports no capacity).
func journalSector(b *kernel.BDI, at int64) int64 {
	if at > 0 {
		return at
	}
	c := b.Q.Spec().CapacityBytes
	if c <= 0 {
		c = 500_000_000_000
	}
	return c / devices.SectorSize / 2 &^ 7
}

const (
	jIdle = iota
	jData
	jMeta
	jMetaWait
	jCommitBlock
	jCommitWait
	jCheckpoint
)

func newJournal(k *kernel.Kernel, b *kernel.BDI, comm string, interval sim.Time, start, lenPages int64, fua bool) *journal {
	j := &journal{k: k, q: b.Q, interval: interval, start: start, len: lenPages, commitFUA: fua}
	j.startThread(k, b, comm, j.resume, interval)
	return j
}

func (j *journal) submit(pages int64, flags devices.Flags) bool {
	if j.cursor+pages > j.len {
		j.cursor = 0
	}
	b := devices.Bio{Sector: j.start + j.cursor*devices.PageSectors, Pages: pages, Op: devices.Write,
		Flags: flags, Owner: j, Index: j.cursor}
	if j.reqIdle {
		b.Flags |= devices.FlagIdle
		j.k.Fired(pathJbd2ReqIdle)
	}
	j.cursor += pages
	j.outstanding += pages
	j.MetaPages += pages
	return j.q.Submit(j.th.Sub, b)
}

// unlock ends T_LOCKED: the handles waiting in start_this_handle may start.
func (j *journal) unlock() {
	j.locked = false
	j.waiters.WakeAll()
}

func (j *journal) resume() {
	for {
		switch j.state {
		case jIdle:
			if j.pendingMeta == 0 && !j.kicked && j.Commits >= j.commitRequest {
				j.th.Task.SleepInterruptible(j.interval)
				return
			}
			j.kicked = false
			j.locked = true
			j.CommitStart = j.k.W.Now()
			j.state = jData
		case jData:
			if j.handlesOpen != nil && j.locked {
				if j.handlesOpen() {
					j.th.Task.Sleep(sim.Millisecond) // t_updates > 0: wait for the handles
					return
				}
				// T_FLUSH: the running transaction is switched; handles may start
				j.unlock()
			}
			if j.beforeCommit != nil && j.beforeCommit() {
				return
			}
			j.state = jMeta
		case jMeta:
			n := max(j.pendingMeta, 1)
			j.pendingMeta = 0
			j.state = jMetaWait
			if j.submit(n, devices.FlagSync|devices.FlagMeta) {
				return
			}
		case jMetaWait:
			if j.outstanding > 0 {
				j.th.Task.Wait(&j.wq)
				return
			}
			// metadata is in the log: new handles may start (T_FLUSH)
			j.unlock()
			j.state = jCommitBlock
		case jCommitBlock:
			f := devices.FlagSync | devices.FlagMeta
			if j.commitFUA {
				f |= devices.FlagFUA
			}
			j.state = jCommitWait
			if j.submit(1, f) {
				return
			}
		case jCommitWait:
			if j.outstanding > 0 {
				j.th.Task.Wait(&j.wq)
				return
			}
			j.Commits++
			if j.afterCommit != nil {
				j.afterCommit()
			}
			j.waiters.WakeAll()
			j.state = jCheckpoint
		case jCheckpoint:
			if j.checkpoint != nil && j.checkpoint() {
				return
			}
			j.state = jIdle
			if j.Commits < j.commitRequest {
				continue // a requested commit (fsync) is still due
			}
			// the next transaction started with this commit and expires
			// interval after that (t_expires)
			j.th.Task.SleepInterruptible(max(j.CommitStart+j.interval-j.k.W.Now(), 0))
			return
		}
	}
}
