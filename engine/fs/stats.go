package fs

// Stat is one filesystem counter of a run, for the Result and the CLI.
type Stat struct {
	Name  string `json:"name"`
	Value int64  `json:"value"`
	Doc   string `json:"doc"`
}

// StatsReporter is implemented by filesystems with counters worth reporting.
type StatsReporter interface {
	Stats() []Stat
}

// Stats reports XFS's writeback and IO-completion counters.
func (x *Xfs) Stats() []Stat {
	return []Stat{
		{"writepage_calls", x.WritepageCalls, "xfs_vm_writepage calls"},
		{"max_cluster_pages", x.MaxCluster, "most pages one ->writepage call wrote (xfs_cluster_write)"},
		{"pages_skipped", x.PagesSkipped, "pages redirtied when xfs_map_blocks' ILOCK trylock failed"},
		{"write_inode_eagain", x.EAGAIN, "->write_inode calls that returned EAGAIN (ILOCK busy, inode pinned or flush-locked)"},
		{"write_inode_pinned", x.Pinned, "->write_inode EAGAINs on an inode pinned in the log (logged since xfs_sync_worker's last log force)"},
		{"write_inode_flush_locked", x.FlushLocked, "->write_inode EAGAINs on a flush-locked inode (its cluster buffer not yet written by xfsbufd)"},
		{"inode_flushes", x.Flushes, "inodes flushed into their cluster buffer (xfs_iflush with xfs_iflush_cluster)"},
		{"xfsdatad_ioends", x.Ioends, "appending ioends finished by the xfsdatad worker"},
		{"xfsdatad_requeues", x.EndIoRequeues, "xfs_end_io EAGAIN requeues, each followed by delay(1)"},
		{"ilock_waits", x.IlockWaits, "writeback's blocking xfs_ilock calls that found the ILOCK held and slept"},
		{"log_checkpoints", x.log.Checkpoints, "CIL checkpoints written to the log (xfs_sync_worker's log force)"},
		{"log_pages", x.log.LogPages, "pages written to the log"},
		{"metadata_home_pages", x.log.HomePages, "metadata pages written home (xfsaild's AIL push, xfsbufd): inode clusters, AGF, free-space btrees"},
	}
}

// Stats reports ext3's journal counters.
func (e *Ext3) Stats() []Stat {
	return []Stat{
		{"commits", e.j.Commits, "kjournald commits"},
		{"journal_pages", e.j.MetaPages, "pages written to the journal (metadata, commit blocks)"},
		{"commit_data_pages", e.CommitDataPages, "ordered data pages written by kjournald (journal_submit_data_buffers)"},
		{"pages_skipped", e.PagesSkipped, "->writepage calls whose trylock_buffer failed on a buffer kjournald held (page redirtied, counted in NR_WRITTEN)"},
		{"clean_pages", e.CleanPages, "->writepage calls on a page whose buffer kjournald had written (ended under writeback without IO, counted in NR_WRITTEN)"},
		{"checkpointed_blocks", e.Checkpointed, "indirect blocks written to their home location"},
		{"write_stalls", e.Stalls, "write()s that waited in journal_start behind a locked commit"},
	}
}

// Stats reports ext4's journal and writeback counters.
func (e *Ext4) Stats() []Stat {
	return []Stat{
		{"commits", e.j.Commits, "jbd2 commits"},
		{"journal_pages", e.j.MetaPages, "pages written to the journal"},
		{"nr_to_write_bumps", e.Bumps, "ext4_da_writepages calls that raised nr_to_write"},
	}
}

// Stats reports btrfs's transaction and writeback counters.
func (b *Btrfs) Stats() []Stat {
	return []Stat{
		{"transaction_commits", b.t.Commits, "btrfs-transaction commits"},
		{"metadata_pages", b.t.MetaPages, "btree and superblock pages written by commits"},
		{"nr_to_write_bumps", b.Bumps, "->writepages calls that raised nr_to_write"},
		{"async_bios", b.async.Bios, "data write bios checksummed and submitted by the worker pool (btrfs_wq_submit_bio)"},
		{"async_queued_max", b.async.MaxQueuedPages, "most pages under writeback not yet in the block layer (queued for checksumming or submission)"},
	}
}
