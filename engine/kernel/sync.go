package kernel

// Fsync is the state of one fsync(2) in progress (generic_file_fsync, v3.2):
// filemap_write_and_wait_range over the whole file (WB_SYNC_ALL writepages in the
// caller's context, then filemap_fdatawait), then sync_inode_metadata →
// writeback_single_inode with WB_SYNC_ALL and nr_to_write = 0, then the
// filesystem's journal commit wait (FsyncCommitter) if it has one.
type Fsync struct {
	stage int
	wc    WritebackCtx
	wsi   singleInodeWB
}

const (
	fsyncWrite = iota
	fsyncWait
	fsyncMeta
	fsyncCommit
	fsyncDone
)

// StartFsync begins an fsync of in by th.
func (k *Kernel) StartFsync(th *Thread, in *Inode) *Fsync {
	f := &Fsync{}
	f.wc = WritebackCtx{K: k, Th: th, In: in, Wbc: WritebackControl{
		SyncMode: WBSyncAll, NrToWrite: longMax, RangeStart: 0, RangeEnd: longMax}}
	return f
}

// Run advances the fsync; it reports true when th blocked (call again on resume)
// and false when the fsync has returned.
func (k *Kernel) RunFsync(f *Fsync) bool {
	th, in := f.wc.Th, f.wc.In
	for {
		switch f.stage {
		case fsyncWrite: // __filemap_fdatawrite_range(WB_SYNC_ALL) → do_writepages
			if in.bdi.FS.Writepages(&f.wc) {
				return true
			}
			f.stage = fsyncWait
		case fsyncWait: // filemap_fdatawait_range
			if !in.Writeback.Empty() {
				th.SleepFor(WaitPageWriteback)
				th.Task.Wait(&in.wbWait)
				return true
			}
			f.stage = fsyncMeta
			f.wsi.begin(k, th, in, WritebackControl{SyncMode: WBSyncAll, NrToWrite: 0, RangeEnd: longMax}, false)
		case fsyncMeta: // sync_inode_metadata
			if k.writebackSingleInode(th, &f.wsi) {
				return true
			}
			f.stage = fsyncCommit
		case fsyncCommit: // the journal commit of ext3/ext4 ->fsync
			if c, ok := in.bdi.FS.(FsyncCommitter); ok && c.FsyncCommit(th, in) {
				return true
			}
			f.stage = fsyncDone
			if th.YieldCPU() {
				return true
			}
		case fsyncDone:
			return false
		}
	}
}

// SyncInodesSb is sync_inodes_sb (v3.2) on the first disk; see SyncInodesSbOn.
func (k *Kernel) SyncInodesSb() *WbWritebackWork { return k.SyncInodesSbOn(k.BDI) }

// SyncInodesSbOn is sync_inodes_sb (v3.2) for b's superblock: queue a WB_SYNC_ALL
// work for every inode and return it; the caller waits with work.Wait until b's
// flusher completes it. (wait_sb_inodes follows: the work's WB_SYNC_ALL
// writeback_single_inode already waits on each inode's pages.)
func (k *Kernel) SyncInodesSbOn(b *BDI) *WbWritebackWork {
	w := &WbWritebackWork{NrPages: longMax, SyncMode: WBSyncAll, Reason: ReasonSync}
	k.QueueWorkOn(b, w)
	return w
}
