package kernel

import (
	"fmt"

	"github.com/wblab/wblab/engine/sim"
)

// CheckInvariants verifies the model's consistency: page conservation per inode and
// globally, counters never negative, list membership and ordering, task states.
// It returns an error naming the broken invariant.
func (k *Kernel) CheckInvariants() error {
	g := &k.G
	for name, v := range map[string]int64{
		"NR_FILE_DIRTY": g.NrFileDirty, "NR_WRITEBACK": g.NrWriteback, "NR_DIRTIED": g.NrDirtied,
		"NR_WRITTEN": g.NrWritten,
	} {
		if v < 0 {
			return fmt.Errorf("invariant counters-nonnegative: %s = %d", name, v)
		}
	}
	// per bdi: what its inodes hold (bdiSum) against its counters
	if cap(k.invSums) < len(k.bdis) {
		k.invSums = make([]BdiStats, len(k.bdis))
	}
	bdiSum := k.invSums[:len(k.bdis)]
	clear(bdiSum)
	var dirty, wb, dirtied, written int64
	for _, in := range k.inodes {
		if in.bdi == nil || in.bdi.idx >= len(k.bdis) || k.bdis[in.bdi.idx] != in.bdi {
			return fmt.Errorf("invariant inode-bdi: inode %d belongs to no mounted bdi", in.Ino)
		}
		if in.list != nil && in.list.owner != in.bdi {
			return fmt.Errorf("invariant inode-one-bdi: inode %d of bdi %s on %s of bdi %s",
				in.Ino, in.bdi.Name, in.list.name, in.list.owner.Name)
		}
		bs := &bdiSum[in.bdi.idx]
		bs.Reclaimable += in.Dirty.Count()
		bs.Writeback += in.Writeback.Count()
		bs.Dirtied += in.dirtied
		bs.Written += in.written
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
	var sumRecl, sumWB int64
	for i, bd := range k.bdis {
		b, s := &bd.Stats, &bdiSum[i]
		if b.Reclaimable < 0 || b.Writeback < 0 {
			return fmt.Errorf("invariant counters-nonnegative: bdi %s BDI_RECLAIMABLE %d BDI_WRITEBACK %d", bd.Name, b.Reclaimable, b.Writeback)
		}
		if b.Reclaimable != s.Reclaimable || b.Writeback != s.Writeback {
			return fmt.Errorf("invariant bdi-conservation: bdi %s BDI_RECLAIMABLE %d / BDI_WRITEBACK %d != its inodes' %d / %d",
				bd.Name, b.Reclaimable, b.Writeback, s.Reclaimable, s.Writeback)
		}
		if s.Dirtied != s.Written+s.Reclaimable+s.Writeback {
			return fmt.Errorf("invariant bdi-page-conservation: bdi %s dirtied %d != written %d + dirty %d + writeback %d",
				bd.Name, s.Dirtied, s.Written, s.Reclaimable, s.Writeback)
		}
		sumRecl += b.Reclaimable
		sumWB += b.Writeback
	}
	if sumRecl != g.NrFileDirty || sumWB != g.NrWriteback {
		return fmt.Errorf("invariant bdi-counters: sum over bdis BDI_RECLAIMABLE %d / BDI_WRITEBACK %d != global %d / %d",
			sumRecl, sumWB, g.NrFileDirty, g.NrWriteback)
	}
	for _, bd := range k.bdis {
		if err := k.checkBdiLists(bd); err != nil {
			return err
		}
		if bd.Q != nil {
			if err := bd.Q.CapacityErr(); err != nil {
				return err
			}
		}
	}
	for _, th := range k.threads {
		if st := th.Task.State(); st == sim.TaskOnCPU && th.Task.CPU < 0 {
			return fmt.Errorf("invariant task-state: %s on CPU without a CPU", th.Task.Comm)
		}
	}
	for _, bd := range k.bdis {
		if c, ok := bd.FS.(InvariantChecker); ok {
			if err := c.CheckInvariants(); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkBdiLists checks b's writeback lists: links, lengths, b_dirty's order.
func (k *Kernel) checkBdiLists(b *BDI) error {
	if v := &k.P.Variants; (!v.On(swMoreIOWait) || v.On(swRemoveMoreIOWait)) && b.bMoreIOWait.n > 0 {
		return fmt.Errorf("invariant more-io-wait-unused: b_more_io_wait holds %d inodes without the list", b.bMoreIOWait.n)
	}
	for _, l := range []*inodeList{&b.bDirty, &b.bIO, &b.bMoreIO, &b.bMoreIOWait} {
		n := 0
		var prev *Inode
		for in := l.head; in != nil; in = in.next {
			if in.list != l || in.prev != prev {
				return fmt.Errorf("invariant list-links: inode %d on %s has bad links", in.Ino, l.name)
			}
			if l == &b.bDirty && prev != nil && in.DirtiedWhen > prev.DirtiedWhen {
				return fmt.Errorf("invariant b_dirty-order: inode %d dirtied_when %d after newer inode %d (%d)",
					in.Ino, in.DirtiedWhen, prev.Ino, prev.DirtiedWhen)
			}
			prev = in
			n++
		}
		if n != l.n || prev != l.tail {
			return fmt.Errorf("invariant list-length: %s counts %d, walked %d", l.name, l.n, n)
		}
	}
	return nil
}

// InvariantChecker is implemented by filesystems with state of their own to check
// after every event (CheckInvariants).
type InvariantChecker interface {
	CheckInvariants() error
}
