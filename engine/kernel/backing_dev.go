package kernel

import "github.com/wblab/wblab/devices"

// GlobalStats are the zone/global VM counters the writeback code reads, in pages.
type GlobalStats struct {
	NrFileDirty int64 // NR_FILE_DIRTY
	NrWriteback int64 // NR_WRITEBACK
	NrDirtied   int64 // NR_DIRTIED (cumulative)
	NrWritten   int64 // NR_WRITTEN (cumulative)
}

// BdiStats are the per-bdi counters (bdi_stat), in pages.
type BdiStats struct {
	Reclaimable int64 // BDI_RECLAIMABLE
	Writeback   int64 // BDI_WRITEBACK
	Dirtied     int64 // BDI_DIRTIED (cumulative)
	Written     int64 // BDI_WRITTEN (cumulative)
}

// BDI is a backing_dev_info with its single bdi_writeback (v3.2: one per device),
// the request queue behind it and the filesystem mounted on it (one superblock per
// bdi in this model).
type BDI struct {
	Name  string // "8:0"
	Stats BdiStats
	Q     *devices.Queue
	FS    Filesystem
	Knobs BdiKnobs
	// minPPM, maxPPM are bdi->min_ratio and max_ratio in parts per million (the
	// knobs' percent, or their bytes converted; setRatios)
	minPPM, maxPPM int64

	onePage OnePageWriter // FS as a OnePageWriter, or nil

	idx     int      // position in Kernel.bdis (mount order)
	flusher *Flusher // flush-MAJ:MIN (nil on pdflush kernels)
	// completions is bdi->completions: the bdi's share of recent writeback
	// completions (writeout.go).
	completions propLocal

	// bdi_writeback lists
	bDirty  inodeList // b_dirty: newest at head, ordered by dirtied_when
	bIO     inodeList // b_io: consumed from the tail
	bMoreIO inodeList // b_more_io
	// b_more_io_wait (Wu 2011 patch 1): inodes to retry opportunistically
	bMoreIOWait inodeList
	// moveTmp is move_expired_inodes' local list, kept here so it is not
	// allocated per call (it is empty between calls)
	moveTmp inodeList

	lastOldFlush int64 // last_old_flush, jiffies
	lastActive   int64 // last_active, jiffies

	// bandwidth estimation (pages/s) and rate limits
	bwTimeStamp            int64 // jiffies
	dirtiedStamp           int64
	writtenStamp           int64
	WriteBandwidth         int64 // write_bandwidth
	AvgWriteBandwidth      int64 // avg_write_bandwidth
	DirtyRatelimit         int64 // dirty_ratelimit
	BalancedDirtyRatelimit int64 // balanced_dirty_ratelimit
	DirtyExceeded          bool  // dirty_exceeded

	// writebackRunning is BDI_writeback_running (writeback_in_progress()).
	writebackRunning bool

	// mp holds bdiMaxPause's divisors for the bandwidth and HZ they were
	// computed for (they change once per bandwidth update).
	mp maxPauseDivs
}

func newBDI(name string) *BDI {
	b := &BDI{Name: name, Knobs: DefaultBdiKnobs(), maxPPM: 100 * bdiRatioScale}
	b.bDirty.name, b.bIO.name, b.bMoreIO.name = "b_dirty", "b_io", "b_more_io"
	b.bMoreIOWait.name = "b_more_io_wait"
	b.bDirty.bit, b.bIO.bit, b.bMoreIO.bit, b.bMoreIOWait.bit = OnBDirty, OnBIO, OnBMoreIO, OnBMoreIOWait
	b.moveTmp.name = "move_expired_inodes tmp"
	for _, l := range []*inodeList{&b.bDirty, &b.bIO, &b.bMoreIO, &b.bMoreIOWait, &b.moveTmp} {
		l.owner = b
	}
	b.WriteBandwidth = initBWPages
	b.AvgWriteBandwidth = initBWPages
	b.DirtyRatelimit = initBWPages
	b.BalancedDirtyRatelimit = initBWPages
	return b
}

// ListLens reports the lengths of b_dirty, b_io and b_more_io.
func (b *BDI) ListLens() (dirty, io, moreIO int) { return b.bDirty.n, b.bIO.n, b.bMoreIO.n }

// MoreIOWaitLen reports the length of b_more_io_wait (0 without Wu 2011 patch 1).
func (b *BDI) MoreIOWaitLen() int { return b.bMoreIOWait.n }

// wbHasDirtyIO is wb_has_dirty_io() (with Wu 2011 patch 1, b_more_io_wait counts).
func (b *BDI) wbHasDirtyIO() bool {
	return b.bDirty.n > 0 || b.bIO.n > 0 || b.bMoreIO.n > 0 || b.bMoreIOWait.n > 0
}

// WritebackInProgress is writeback_in_progress(bdi).
func (b *BDI) WritebackInProgress() bool { return b.writebackRunning }

// Flusher is the bdi's flusher thread (nil on pdflush kernels).
func (b *BDI) Flusher() *Flusher { return b.flusher }

// Index is the bdi's position in mount order (0 = the first disk).
func (b *BDI) Index() int { return b.idx }
