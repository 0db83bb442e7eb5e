package kernel

import (
	"fmt"

	"github.com/wblab/wblab/engine/sim"
)

// CheckInvariants verifies the model's consistency: page conservation per inode and
// globally, counters never negative, list membership and ordering, task states.
// It returns an error naming the broken invariant.
func (k *Kernel) CheckInvariants() error {
	g, b := &k.G, &k.BDI.Stats
	for name, v := range map[string]int64{
		"NR_FILE_DIRTY": g.NrFileDirty, "NR_WRITEBACK": g.NrWriteback, "NR_DIRTIED": g.NrDirtied,
		"NR_WRITTEN": g.NrWritten, "BDI_RECLAIMABLE": b.Reclaimable, "BDI_WRITEBACK": b.Writeback,
	} {
		if v < 0 {
			return fmt.Errorf("invariant counters-nonnegative: %s = %d", name, v)
		}
	}
	var dirty, wb, dirtied, written int64
	for _, in := range k.inodes {
		if !in.Dirty.check() || !in.Writeback.check() {
			return fmt.Errorf("invariant page-sets: inode %d page sets malformed", in.Ino)
		}
		if in.dirtied != in.written+in.Dirty.Count()+in.Writeback.Count() {
			return fmt.Errorf("invariant page-conservation: inode %d dirtied %d != written %d + dirty %d + writeback %d",
				in.Ino, in.dirtied, in.written, in.Dirty.Count(), in.Writeback.Count())
		}
		dirty += in.Dirty.Count()
		wb += in.Writeback.Count()
		dirtied += in.dirtied
		written += in.written
		isDirty := in.State&IDirty != 0
		switch {
		case in.State&ISync == 0 && isDirty && in.list == nil:
			return fmt.Errorf("invariant dirty-inode-listed: inode %d state %s on no list", in.Ino, StateString(in.State))
		case in.State&ISync == 0 && !isDirty && in.list != nil:
			return fmt.Errorf("invariant clean-inode-unlisted: inode %d clean but on %s", in.Ino, in.list.name)
		case in.State&ISync == 0 && !in.Dirty.Empty() && in.State&IDirtyPages == 0:
			return fmt.Errorf("invariant dirty-pages-flag: inode %d has %d dirty pages without I_DIRTY_PAGES", in.Ino, in.Dirty.Count())
		}
	}
	if dirty != g.NrFileDirty || wb != g.NrWriteback || dirtied != g.NrDirtied || written != g.NrWritten {
		return fmt.Errorf("invariant global-conservation: inodes dirty/wb/dirtied/written %d/%d/%d/%d != counters %d/%d/%d/%d",
			dirty, wb, dirtied, written, g.NrFileDirty, g.NrWriteback, g.NrDirtied, g.NrWritten)
	}
	if b.Reclaimable != g.NrFileDirty || b.Writeback != g.NrWriteback {
		return fmt.Errorf("invariant bdi-counters: BDI_RECLAIMABLE %d / BDI_WRITEBACK %d != global %d / %d",
			b.Reclaimable, b.Writeback, g.NrFileDirty, g.NrWriteback)
	}
	if v := &k.P.Variants; (!v.MoreIOWait || v.RemoveMoreIOWait) && k.BDI.bMoreIOWait.n > 0 {
		return fmt.Errorf("invariant more-io-wait-unused: b_more_io_wait holds %d inodes without the list", k.BDI.bMoreIOWait.n)
	}
	seen := 0
	for _, l := range []*inodeList{&k.BDI.bDirty, &k.BDI.bIO, &k.BDI.bMoreIO, &k.BDI.bMoreIOWait} {
		n := 0
		var prev *Inode
		for in := l.head; in != nil; in = in.next {
			if in.list != l || in.prev != prev {
				return fmt.Errorf("invariant list-links: inode %d on %s has bad links", in.Ino, l.name)
			}
			if l == &k.BDI.bDirty && prev != nil && in.DirtiedWhen > prev.DirtiedWhen {
				return fmt.Errorf("invariant b_dirty-order: inode %d dirtied_when %d after newer inode %d (%d)",
					in.Ino, in.DirtiedWhen, prev.Ino, prev.DirtiedWhen)
			}
			prev = in
			n++
		}
		if n != l.n || prev != l.tail {
			return fmt.Errorf("invariant list-length: %s counts %d, walked %d", l.name, l.n, n)
		}
		seen += n
	}
	for _, th := range k.threads {
		if st := th.Task.State(); st == sim.TaskOnCPU && th.Task.CPU < 0 {
			return fmt.Errorf("invariant task-state: %s on CPU without a CPU", th.Task.Comm)
		}
	}
	_ = seen
	if c, ok := k.FS.(InvariantChecker); ok {
		return c.CheckInvariants()
	}
	return nil
}

// InvariantChecker is implemented by filesystems with state of their own to check
// after every event (CheckInvariants).
type InvariantChecker interface {
	CheckInvariants() error
}
