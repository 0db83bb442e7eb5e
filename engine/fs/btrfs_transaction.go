package fs

import (
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// btrfsSuperOffsets are btrfs_sb_offset(0..2): the primary superblock at 64 KiB and
// its mirrors at 64 MiB and 256 GiB (v3.1 fs/btrfs/disk-io.h). write_dev_supers
// writes those that lie inside the device.
var btrfsSuperOffsets = [...]int64{64 << 10, 64 << 20, 256 << 30}

// btrfsTrans is the btrfs-transaction kthread and the IO of a commit (v3.1):
// transaction_kthread wakes every CommitInterval (or when asked: btrfs_sync_fs)
// and runs btrfs_commit_transaction, which
//   - writes every btree block COW'd in the transaction and waits for them
//     (btrfs_write_and_wait_transaction). The blocks come from the metadata
//     chunk's free space in allocation order (a cursor through the chunk); with
//     the DUP profile mkfs.btrfs gives metadata on a single rotating disk,
//     btrfs_map_bio sends each block to both stripes of the chunk, two device
//     extents at different places of the disk;
//   - then write_ctree_super → write_all_supers → write_dev_supers: every
//     superblock copy inside the device, WRITE_SYNC, except the last one, which
//     carries the barrier (WRITE_FLUSH_FUA, do_barriers: btrfs mounts with
//     barriers by default), and waits for them. The model's disk has no cache
//     flush command: the barrier is the copy's FUA (written through the cache).
type btrfsTrans struct {
	k *kernel.Kernel
	q *devices.Queue
	commitThread

	interval sim.Time
	stripes  [2]int64 // first sector of each DUP stripe of the metadata chunk
	lenPages int64    // stripe length
	cursor   int64    // next btree block of the chunk (pages)
	supers   []int64  // sectors of the superblock copies inside the device

	pendingMeta int64 // btree pages COW'd in the running transaction
	state       int
	todo        []devices.Bio // bios of the current step not yet submitted

	Commits     int64
	MetaPages   int64 // btree pages written (both copies) and superblock pages
	CommitStart sim.Time
}

const (
	btIdle = iota
	btTreeWait
	btSuperWait
)

func newBtrfsTrans(k *kernel.Kernel, b *kernel.BDI, p *BtrfsParams) *btrfsTrans {
	t := &btrfsTrans{k: k, q: b.Q, interval: p.CommitInterval, lenPages: p.MetaMB << 8}
	t.stripes[0] = p.MetaSector
	t.stripes[1] = p.MetaSector + p.MetaMB<<11
	capacity := b.Q.Spec().CapacityBytes
	for _, off := range btrfsSuperOffsets {
		// write_dev_supers: bytenr + BTRFS_SUPER_INFO_SIZE >= total_bytes ⇒ stop
		if capacity > 0 && off+devices.PageSize >= capacity {
			break
		}
		t.supers = append(t.supers, off/devices.SectorSize)
	}
	t.startThread(k, b, "btrfs-transacti", t.resume, t.interval)
	return t
}

// queue adds a write of pages at sector to the current step.
func (t *btrfsTrans) queue(sector, pages int64, flags devices.Flags) {
	t.todo = append(t.todo, devices.Bio{Sector: sector, Pages: pages, Op: devices.Write, Flags: flags, Owner: t})
	t.outstanding += pages
	t.MetaPages += pages
}

// submit submits the step's bios in order; it reports true when the thread
// blocked for a request (resume calls it again for the rest).
func (t *btrfsTrans) submit() bool {
	for len(t.todo) > 0 {
		b := t.todo[0]
		t.todo = t.todo[1:]
		if t.q.Submit(t.th.Sub, b) {
			return true
		}
	}
	return false
}

// treeBlocks queues the transaction's btree blocks: the next n pages of the
// metadata chunk (wrapping to its start: blocks freed by earlier transactions),
// each run to both DUP stripes.
func (t *btrfsTrans) treeBlocks(n int64) {
	for n > 0 {
		if t.cursor >= t.lenPages {
			t.cursor = 0
		}
		c := min(n, t.lenPages-t.cursor)
		for _, s := range t.stripes {
			t.queue(s+t.cursor*devices.PageSectors, c, devices.FlagSync|devices.FlagMeta)
		}
		t.cursor += c
		n -= c
	}
}

func (t *btrfsTrans) resume() {
	for {
		if len(t.todo) > 0 && t.submit() {
			return
		}
		switch t.state {
		case btIdle:
			if t.pendingMeta == 0 && !t.kicked {
				t.th.Task.SleepInterruptible(t.interval)
				return
			}
			t.kicked = false
			t.CommitStart = t.k.W.Now()
			// btrfs_write_and_wait_transaction: WB_SYNC_ALL writeback of the
			// btree inode (WRITE_SYNC)
			t.treeBlocks(max(t.pendingMeta, 1))
			t.pendingMeta = 0
			t.state = btTreeWait
		case btTreeWait:
			if t.outstanding > 0 {
				t.th.Task.Wait(&t.wq)
				return
			}
			for i, s := range t.supers {
				f := devices.FlagSync | devices.FlagMeta
				if i == len(t.supers)-1 {
					f |= devices.FlagFUA // WRITE_FLUSH_FUA on the last copy
				}
				t.queue(s, 1, f)
			}
			t.state = btSuperWait
		case btSuperWait:
			if t.outstanding > 0 {
				t.th.Task.Wait(&t.wq)
				return
			}
			t.Commits++
			t.state = btIdle
			// the next transaction started with this commit
			t.th.Task.SleepInterruptible(max(t.CommitStart+t.interval-t.k.W.Now(), 0))
			return
		}
	}
}
