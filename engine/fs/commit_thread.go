package fs

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// commitThread is what a filesystem's periodic commit thread shares (jbd's
// kjournald, fs/jbd/journal.c; btrfs's transaction kthread, fs/btrfs/disk-io.c
// transaction_kthread; v3.1): the thread, its writes in flight and the wait for
// them, and a commit asked for before the interval ends.
type commitThread struct {
	th          *kernel.Thread
	outstanding int64 // pages in flight
	wq          sim.WaitQueue
	kicked      bool
}

// startThread creates the thread on the bdi and puts it to sleep for one interval.
func (c *commitThread) startThread(k *kernel.Kernel, b *kernel.BDI, comm string, resume func(), interval sim.Time) {
	c.th = k.NewThreadOn(b, comm)
	c.th.Task.Resume = resume
	c.th.Task.SleepInterruptible(interval)
}

// EndIO is the completion of one of the thread's writes (jbd's
// journal_end_buffer_io_sync, btrfs's btree and superblock end_io): the last one
// wakes the thread.
func (c *commitThread) EndIO(cookie uint64, index, pages int64, op devices.Op) {
	c.outstanding -= pages
	if c.outstanding <= 0 {
		c.wq.WakeAll()
	}
}

// kick asks for a commit now (jbd's log_start_commit: fsync, journal space;
// btrfs_sync_fs).
func (c *commitThread) kick() {
	c.kicked = true
	c.th.Task.Wake()
}
