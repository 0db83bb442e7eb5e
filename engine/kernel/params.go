package kernel

import "github.com/wblab/wblab/engine/sim"

// Page geometry (4 KiB pages, PAGE_SHIFT 12).
const (
	PageSize  = 4096
	PageShift = 12
)

// Sysctls are the vm.* writeback sysctls, declared once: engine.Config embeds
// them (their JSON names are the Config's) and so do Params. A non-zero _bytes
// value wins over its _ratio (the kernel zeroes the other).
type Sysctls struct {
	DirtyBytes           int64 `json:"dirty_bytes"`
	DirtyRatio           int   `json:"dirty_ratio"`
	DirtyBackgroundBytes int64 `json:"dirty_background_bytes"`
	DirtyBackgroundRatio int   `json:"dirty_background_ratio"`
	DirtyExpireCs        int   `json:"dirty_expire_centisecs"`
	DirtyWritebackCs     int   `json:"dirty_writeback_centisecs"`
}

// Params are the machine and sysctls the kernel model runs with.
type Params struct {
	CPUs     int
	MemoryMB int64

	// Sysctls are the vm.* sysctls, as the Config sets them.
	Sysctls

	Variants Variants
	Costs    Costs
	// Reclaim models the memory beside the page cache and page reclaim
	// (vmscan.go); nil: the page cache never fills.
	Reclaim *Reclaim

	// BdiName is the device's major:minor as trace lines print it ("8:0").
	BdiName string
}

// Costs is the CPU cost table: how long each operation keeps a CPU busy. These are
// physical parameters of the simulated machine (a 2011 8-core x86 box by default).
type Costs struct {
	WriteSyscall   sim.Time // one write() of dd incl. the read() from /dev/zero and syscall entry
	CopyPage       sim.Time // copying 4 KiB into the page cache (scaled for smaller chunks)
	NewDirtyPage   sim.Time // page cache lookup/alloc + account_page_dirtied for a newly dirtied page
	BalanceDirty   sim.Time // one balance_dirty_pages() evaluation
	Writepage      sim.Time // one ->writepage call (lock, clear dirty, set writeback, build a bio)
	ClusterPage    sim.Time // one extra page clustered inside a ->writepage call
	SubmitBio      sim.Time // submit_bio + request merge/allocation per bio run
	InodeWriteback sim.Time // writeback_single_inode overhead (locks, list moves)
	WriteInode     sim.Time // ->write_inode for a plain filesystem
	WbLoop         sim.Time // one wb_writeback loop iteration (queue_io, list walk)
	EndIOPage      sim.Time // end_page_writeback per page, in interrupt context
	// SleepWake is one sleep and wake-up of a task: schedule() out, try_to_wake_up,
	// schedule() back in (congestion_wait, a pdflush thread handed work).
	SleepWake sim.Time
	// KthreadCreate is kthread_run of a new kernel thread (kthreadd's fork, the
	// thread's first run): a pdflush thread started at run time.
	KthreadCreate sim.Time
}

// DefaultCosts is a 2011-era x86 core: ~2 GB/s into the page cache for bs=4k dd,
// a few µs per ->writepage. Calibrated parameters, not per-case corrections.
func DefaultCosts() Costs {
	return Costs{
		WriteSyscall:   1200 * sim.Nanosecond,
		CopyPage:       700 * sim.Nanosecond,
		NewDirtyPage:   500 * sim.Nanosecond,
		BalanceDirty:   1000 * sim.Nanosecond,
		Writepage:      2000 * sim.Nanosecond,
		ClusterPage:    400 * sim.Nanosecond,
		SubmitBio:      1500 * sim.Nanosecond,
		InodeWriteback: 2000 * sim.Nanosecond,
		WriteInode:     2000 * sim.Nanosecond,
		WbLoop:         1000 * sim.Nanosecond,
		EndIOPage:      300 * sim.Nanosecond,
		SleepWake:      3 * sim.Microsecond,
		KthreadCreate:  50 * sim.Microsecond,
	}
}

// Constants of mm/page-writeback.c and fs/fs-writeback.c (v3.2).
const (
	ratelimitCalcShift = 10        // RATELIMIT_CALC_SHIFT
	dirtyScope         = 8         // DIRTY_SCOPE
	minWritebackPages  = 4096 >> 2 // MIN_WRITEBACK_PAGES: 4 MB in pages
	maxWritebackPages  = 1024      // MAX_WRITEBACK_PAGES (2.6.32-3.0)
	initBWPages        = 100 << 8  // INIT_BW: 100 MB/s in pages/s
	longMax            = int64(1<<63 - 1)
	pagevecSize        = 14 // PAGEVEC_SIZE
)
