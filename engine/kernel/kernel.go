// Package kernel models Linux dirty-page writeback (v3.2 semantics first): the page
// cache's dirty/writeback state per inode, the per-bdi flusher with its work list and
// b_dirty/b_io/b_more_io, write_cache_pages with nr_to_write, dirty limits and the
// IO-less balance_dirty_pages throttling of writers. One Go file per kernel source
// file it models; identifiers follow the kernel's, and each modelled function names
// the kernel function and version in its comment.
//
// Kernel code that can block (submit_bio on a full request pool, waiting on page
// writeback, sleeping in balance_dirty_pages) is written as resumable state machines:
// a call returns true when its thread blocked, and the thread's owner calls it again
// when the thread resumes; the machine continues from its saved state.
package kernel

import (
	"fmt"
	"math/bits"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/tracepoint"
)

// SwTraceV66 prints the writeback tracepoints in the v6.6 wording (kernel-notes
// §6.3): cgroup_ino suffixes, global_dirty_state without unstable=,
// balance_dirty_pages with period/think, writeback_single_inode_start,
// writeback_sb_inodes_requeue and writeback_write_inode[_start], no
// writeback_wake_thread / writeback_single_inode_requeue. Off (the Config
// variant trace_v66=false on a modern preset) keeps the v3.2 wording the
// harness's scripts parse.
var SwTraceV66 = declare(Switch{Name: "trace_v66", Order: 470,
	Doc:       "trace lines in the v6.6 wording (cgroup_ino, no unstable=, period/think); off: v3.2 wording for old scripts",
	Models:    "include/trace/events/writeback.h v6.6",
	Source:    notesV6,
	Uncounted: "changes only the wording of trace lines, never the simulated run"})

// Kernel is one simulated machine's writeback subsystem.
type Kernel struct {
	W    *sim.World
	P    Params
	CPUs *sim.CPUs
	// BDI is the default bdi, the first disk AddDisk mounted: NewThread and
	// NewInode put tasks and files there. Q and FS are its queue and filesystem
	// (BDI.Q, BDI.FS). bdis lists every disk, in mount order.
	Q   *devices.Queue
	FS  Filesystem
	BDI *BDI
	G   GlobalStats

	bdis []*BDI
	// completions is vm_completions / writeout_completions (writeout.go), with
	// the v3.5+ writeout_period timer.
	completions         propGlobal
	writeoutPeriodTimer sim.Timer
	invSums             []BdiStats // CheckInvariants' per-bdi sums (reused)

	inodes  []*Inode
	threads []*Thread
	flusher *Flusher
	pd      *pdflush // the pdflush pool (switch pdflush)
	// balancer is balance_dirty_pages of the kernel's era (newBalancer)
	balancer balancer
	// fd is the flusher design: per-bdi thread, v6 work item, pdflush pool
	fd flusherDesign
	mm *mm // page reclaim (vmscan.go; nil: not modelled)

	congestionWQ sim.WaitQueue // congestion_wait sleepers (2.6.30 design)
	nextPID      int

	tracer tracepoint.Tracer

	// mm/page-writeback.c state
	dirtyableMem     int64           // determine_dirtyable_memory(), pages
	globalDirtyLimit int64           // global_dirty_limit (smoothed hard limit)
	updateTime       int64           // global_update_bandwidth's update_time, jiffies
	ratelimitPages   int64           // ratelimit_pages
	bdpRatelimits    []int64         // per-CPU bdp_ratelimits
	vmDirties        int64           // vm_dirties' global event count (task_dirty_inc), IO-full kernels
	posShare         posShare        // positionRatios' last bdi share of thresh
	dlMemo           dirtyLimitsMemo // both ratio conversions' thresholds

	// accounting
	irqCPU     sim.Time
	busyLoops  int64
	act        activity  // switch-guarded paths (activity.go)
	flusherGDS gdsRecord // flusher's global_dirty_state samples (harness write_bw)
}

// Filesystem is the per-filesystem behaviour behind the VFS: ->writepages,
// ->writepage, ->write_inode, block mapping and the write path's hooks.
type Filesystem interface {
	Name() string
	// Mount attaches the filesystem to the kernel on bdi b (its queue is b.Q); it
	// may start background actors (their threads on b: k.NewThreadOn).
	Mount(k *Kernel, b *BDI) error
	// Create sets up a new regular file's filesystem state (layout on the device).
	Create(in *Inode)
	// WriteBegin is called before th dirties n pages of in starting at index, in
	// calls write() calls (≥ 1): block allocation, journal handles. It returns
	// extra CPU cost.
	WriteBegin(th *Thread, in *Inode, index, n, calls int64) sim.Time
	// Writepages is ->writepages; it returns true when wc's thread blocked (call
	// again when it resumes). Most filesystems call wc.WriteCachePages().
	Writepages(wc *WritebackCtx) bool
	// Writepage is one ->writepage call from write_cache_pages on page index of the
	// dirty run [index, runEnd). It writes that page and may cluster further pages of
	// the run, decrementing wc.Wbc.NrToWrite for them itself; it returns the number of
	// pages written (≥ 1) and must start their writeback with wc.WritePages.
	Writepage(wc *WritebackCtx, index, runEnd int64) int64
	// WriteInode is ->write_inode; a non-nil error (EAGAIN) leaves the inode dirty.
	WriteInode(wc *WritebackCtx) error
	// Sector maps page index of in to its device sector.
	Sector(in *Inode, index int64) int64
}

// OnePageWriter is implemented by filesystems whose ->writepage always writes
// exactly one page and never touches nr_to_write (block_write_full_page,
// ext3_ordered_writepage), so write_cache_pages handles their runs arithmetically.
// Other filesystems get one Writepage call per step.
type OnePageWriter interface {
	// WritepageRun performs n consecutive one-page ->writepage calls from index.
	WritepageRun(wc *WritebackCtx, index, n int64)
}

// WritepageRunSplitter is implemented by OnePageWriters whose pages differ in
// what ->writepage does with them (ext3 under jbd: buffers kjournald holds or has
// written need no request), so write_cache_pages hands them runs of one kind.
type WritepageRunSplitter interface {
	// WritepageRunIO reports how many of the n pages from index (at least 1) are
	// of index's kind, and whether ->writepage submits IO for them.
	WritepageRunIO(wc *WritebackCtx, index, n int64) (int64, bool)
}

// IOCompleter is implemented by filesystems that finish data writeback outside the
// bio completion (XFS's ioends, completed by the xfsdatad workqueue).
type IOCompleter interface {
	// EndWriteIO sees the completion of pages [index, index+pages) of in. It returns
	// true when the filesystem takes over: it calls EndPageWriteback later.
	EndWriteIO(in *Inode, index, pages int64) bool
}

// WriteStaller is implemented by filesystems whose writers can block before
// dirtying pages (ext3's journal_start while the committing transaction is locked).
type WriteStaller interface {
	// WriteWait returns a wait queue th must sleep on before writing to in, or nil.
	WriteWait(th *Thread, in *Inode) *sim.WaitQueue
}

// FsyncCommitter is implemented by journalling filesystems whose fsync waits for a
// journal commit after the data and inode are written (ext3/ext4 ->fsync).
type FsyncCommitter interface {
	// FsyncCommit runs the commit wait of fsync(in) for th; it reports true when th
	// blocked (call again when th resumes) and false when the fsync may return.
	FsyncCommit(th *Thread, in *Inode) bool
}

// WriteWait asks the filesystem whether th must wait before writing to in.
func (k *Kernel) WriteWait(th *Thread, in *Inode) *sim.WaitQueue {
	if s, ok := in.bdi.FS.(WriteStaller); ok {
		return s.WriteWait(th, in)
	}
	return nil
}

// New creates the kernel model on world w, with no disk yet: AddDisk mounts each
// disk, the first one before anything runs.
func New(w *sim.World, p Params) (*Kernel, error) {
	if p.CPUs < 1 {
		return nil, fmt.Errorf("kernel: cpus %d < 1", p.CPUs)
	}
	k := &Kernel{W: w, P: p, CPUs: w.NewCPUs(p.CPUs), nextPID: 1000}
	k.writeoutPeriodTimer.Fn = k.writeoutPeriod
	k.bdpRatelimits = make([]int64, p.CPUs)
	k.balancer = newBalancer(k)
	k.dirtyableMem = dirtyableMemory(p.MemoryMB)
	if p.Reclaim != nil {
		k.initReclaim(p.Reclaim)
	}
	_, thresh := k.dirtyLimits()
	k.globalDirtyLimit = thresh
	k.writebackSetRatelimit(thresh)
	k.fd = newFlusherDesign(k)
	return k, nil
}

// AddDisk mounts a disk: its bdi (named name, "8:0", "8:16"), request queue and
// filesystem, with its bdi knobs and its own flusher thread (bdi_register; on
// pdflush kernels the flusher only serves sync's queued work and the shared
// pdflush pool does the rest). Disks are added in mount order before the run
// starts. The first disk's mount also boots what the kernel starts once, in the
// order the kernel starts it: the pdflush pool after the first flusher, kswapd
// after the first mount.
func (k *Kernel) AddDisk(name string, q *devices.Queue, fs Filesystem, knobs BdiKnobs) (*BDI, error) {
	if err := knobs.Validate(k.P.Variants); err != nil {
		return nil, err
	}
	b := newBDI(name)
	b.Q, b.FS, b.Knobs, b.idx = q, fs, knobs, len(k.bdis)
	// the first disk's default knobs are newBDI's ratios: nothing to set (and
	// setRatios' dirty-limit reads would count in SwitchActivity)
	if len(k.bdis) > 0 || knobs != DefaultBdiKnobs() {
		if err := k.setRatios(b); err != nil {
			return nil, err
		}
	}
	b.onePage, _ = fs.(OnePageWriter)
	k.bdis = append(k.bdis, b)
	first := len(k.bdis) == 1
	if first {
		k.BDI, k.Q, k.FS = b, q, fs
	}
	b.flusher = newFlusher(k, b)
	if first {
		k.flusher = b.flusher
		if k.on(swPdflush) {
			k.pd = newPdflush(k)
		}
	}
	if err := fs.Mount(k, b); err != nil {
		return nil, err
	}
	if first && k.mm != nil {
		k.startKswapd()
	}
	return b, nil
}

// SetKnobs sets the first disk's bdi knobs (before the run starts).
func (k *Kernel) SetKnobs(b *BDI, knobs BdiKnobs) error {
	if err := knobs.Validate(k.P.Variants); err != nil {
		return err
	}
	b.Knobs = knobs
	return k.setRatios(b)
}

// BDIs lists the disks' bdis in mount order.
func (k *Kernel) BDIs() []*BDI { return k.bdis }

// dirtyableMemory models determine_dirtyable_memory() for an idle box whose page cache
// holds the test files: total memory less what the kernel and user space pin
// (1/16 of memory + 64 MB — 3776 MB dirtyable of a 4096M box, within the 3.5-3.9 GB
// of kernel-notes §2.2).
func dirtyableMemory(memMB int64) int64 {
	pinned := memMB/16 + 64
	if pinned > memMB/2 {
		pinned = memMB / 2
	}
	return (memMB-pinned)<<(20-PageShift) + 1
}

// SetTracer sets (nil: removes) the tracer the kernel's tracepoints emit to.
func (k *Kernel) SetTracer(t tracepoint.Tracer) { k.tracer = t }

// Tracing reports whether a tracer is set. Tracepoints test it before they build
// their event, so an untraced run pays one check per tracepoint.
func (k *Kernel) Tracing() bool { return k.tracer != nil }

// trace emits ev from th's context (nil: interrupt/timer context).
func (k *Kernel) trace(th *Thread, ev tracepoint.Event) { k.traceAt(th, k.W.Now(), ev) }

// traceAt emits ev stamped t: a call inside a CPU burst that the model computes in
// one step (t ≥ now), so the event carries the call's own time.
func (k *Kernel) traceAt(th *Thread, t sim.Time, ev tracepoint.Event) {
	var task *sim.Task
	if th != nil {
		task = th.Task
	}
	k.tracer.Emit(t, task, ev)
}

// Thread is a task executing kernel code: its sim task, block-layer submission
// context, pending CPU cost and balance_dirty_pages state (task_struct fields).
type Thread struct {
	Task *sim.Task
	Sub  *devices.Submitter // the submitter on the queue th now writes to
	subs []*devices.Submitter
	cost sim.Time
	// mapping is the bdi of the file th last dirtied (balance_dirty_pages'
	// mapping->backing_dev_info).
	mapping *BDI

	// task_struct writeback fields
	NrDirtied      int64 // nr_dirtied
	NrDirtiedPause int64 // nr_dirtied_pause
	// DirtyPausedWhen is dirty_paused_when (v3.3+, switch bdp_think_time), jiffies;
	// 0 until the first balance_dirty_pages.
	DirtyPausedWhen int64
	bdp             bdpState
	dirties         propSingle // tsk->dirties (2.6.24-3.1 task_dirty_inc), IO-full kernels
	// noYield defers CPU bursts to the caller (kernel code run from a dirtier's
	// balance_dirty_pages, whose caller consumes the cost after it returns)
	noYield bool
	// sleepCause labels th's current sleep (SleepFor, read by SleepCause)
	sleepCause WaitCause
	Stats      ThreadStats
}

// ThreadStats are per-thread throttling statistics.
type ThreadStats struct {
	Dirtied     int64    // pages dirtied (page chunks written)
	Pauses      int64    // balance_dirty_pages sleeps
	Paused      sim.Time // time slept in balance_dirty_pages
	MaxPause    sim.Time
	BdpCalls    int64
	LastTaskBW  int64 // last task_ratelimit, pages/s
	LastPauseJf int64
	// PagesSubmitted counts data pages this thread started writeback on (the
	// flusher, a journal thread writing ordered data, a dirtier, fsync).
	PagesSubmitted int64
	// PauseHist counts balance_dirty_pages pauses by length: bucket 0 < 1 ms,
	// bucket i in [2^(i-1), 2^i) ms, the last bucket the rest (PauseBuckets).
	PauseHist [PauseBuckets]int64
}

// PauseBuckets is the number of pause-length buckets: < 1 ms, 1-2 ms, ... 256-512
// ms, >= 512 ms.
const PauseBuckets = 11

// notePause accounts one balance_dirty_pages pause of length d.
func (s *ThreadStats) notePause(d sim.Time) {
	s.Paused += d
	s.MaxPause = max(s.MaxPause, d)
	s.PauseHist[pauseBucket(d)]++
}

// pauseBucket is the PauseHist bucket of a pause of length d: the number of
// 1, 2, 4, ... ms steps d reaches, at most PauseBuckets-1. d reaches 2^i ms
// exactly when its whole milliseconds q do, so the count is the bit length of q.
func pauseBucket(d sim.Time) int {
	if d <= 0 {
		return 0
	}
	return min(bits.Len64(uint64(d)/1e6), PauseBuckets-1)
}

// NewThread creates a thread with a fresh task (pid assigned) on the kernel's CPUs,
// submitting IO to the first disk.
func (k *Kernel) NewThread(comm string) *Thread { return k.NewThreadOn(k.BDI, comm) }

// NewThreadOn creates a thread whose IO goes to b's queue.
func (k *Kernel) NewThreadOn(b *BDI, comm string) *Thread {
	k.nextPID++
	t := k.W.NewTask(comm, k.nextPID, k.CPUs)
	th := &Thread{Task: t, NrDirtiedPause: 128 >> (PageShift - 10)}
	th.Sub = b.Q.NewSubmitter(t)
	th.subs = make([]*devices.Submitter, b.idx+1)
	th.subs[b.idx] = th.Sub
	k.threads = append(k.threads, th)
	return th
}

// useBDI points th's submissions at b's queue (a pdflush thread moving to another
// superblock). A thread's plug and blocked bios stay with the queue they are on;
// callers switch only between inodes, when th is not blocked.
func (th *Thread) useBDI(b *BDI) {
	for len(th.subs) <= b.idx {
		th.subs = append(th.subs, nil)
	}
	if th.subs[b.idx] == nil {
		th.subs[b.idx] = b.Q.NewSubmitter(th.Task)
	}
	th.Sub = th.subs[b.idx]
}

// Threads lists every thread created so far.
func (k *Kernel) Threads() []*Thread { return k.threads }

// Charge adds CPU cost to be consumed at the thread's next yield.
func (th *Thread) Charge(c sim.Time) { th.cost += c }

// Pending is the CPU cost charged and not yet consumed.
func (th *Thread) Pending() sim.Time { return th.cost }

// YieldCPU consumes the pending CPU cost as one burst. It reports true when the
// thread now runs a burst (blocked until Resume).
func (th *Thread) YieldCPU() bool {
	if th.cost <= 0 || th.noYield {
		return false
	}
	c := th.cost
	th.cost = 0
	th.Task.Compute(c)
	return true
}

// NewInode creates a regular file on the first disk's filesystem.
func (k *Kernel) NewInode() *Inode { return k.NewInodeOn(k.BDI) }

// NewInodeOn creates a regular file on b's filesystem.
func (k *Kernel) NewInodeOn(b *BDI) *Inode {
	in := &Inode{Ino: uint64(len(k.inodes)) + 12, bdi: b}
	k.inodes = append(k.inodes, in)
	b.FS.Create(in)
	return in
}

// Inodes lists the files.
func (k *Kernel) Inodes() []*Inode { return k.inodes }

func (k *Kernel) inode(ino uint64) *Inode { return k.inodes[ino-12] }

// Inode returns the file with inode number ino.
func (k *Kernel) Inode(ino uint64) *Inode { return k.inode(ino) }

// Flusher is the bdi's flusher thread.
func (k *Kernel) Flusher() *Flusher { return k.flusher }

// IrqCPU is CPU time spent in IO completion (not attributed to a thread).
func (k *Kernel) IrqCPU() sim.Time { return k.irqCPU }

// AddIrqCPU accounts CPU time spent in interrupt context (a filesystem's bio completion).
func (k *Kernel) AddIrqCPU(c sim.Time) { k.irqCPU += c }

// BusyLoops counts wb_writeback iterations that made no progress and retried at once.
func (k *Kernel) BusyLoops() int64 { return k.busyLoops }

// DirtyPages models generic_perform_write's per-page work for n pages of in
// starting at index: write_begin (fs), copy, write_end → __set_page_dirty_nobuffers
// → account_page_dirtied, then __mark_inode_dirty(I_DIRTY_PAGES) and the i_size
// update's mark_inode_dirty when the file grows. It returns the pages newly dirtied.
func (k *Kernel) DirtyPages(th *Thread, in *Inode, index, n int64, newSize int64) int64 {
	added := in.Dirty.Add(index, n)
	th.mapping = in.bdi
	if added > 0 {
		// account_page_dirtied (v3.2)
		k.G.NrFileDirty += added
		in.bdi.Stats.Reclaimable += added
		in.noteDirtied(index, k.W.Now())
		k.accountDirtied(th, in, added)
		k.markInodeDirty(in, IDirtyPages)
	}
	if newSize > in.Size {
		in.Size = newSize
		// generic_write_end: i_size changed → mark_inode_dirty (I_DIRTY)
		k.markInodeDirty(in, IDirtySync|IDirtyDatasync)
	}
	return added
}

// EndIO is the block layer's completion for pages [index, index+pages) of inode ino:
// end_page_writeback → test_clear_page_writeback (v3.2): NR_WRITEBACK down,
// NR_WRITTEN and BDI_WRITTEN up, waiters on the inode's writeback woken.
func (k *Kernel) EndIO(ino uint64, index, pages int64, op devices.Op) {
	if op != devices.Write {
		return
	}
	in := k.inode(ino)
	if c, ok := in.bdi.FS.(IOCompleter); ok && c.EndWriteIO(in, index, pages) {
		return
	}
	k.irqCPU += sim.Time(pages) * k.P.Costs.EndIOPage
	k.EndPageWriteback(in, index, pages)
}

// EndPageWriteback is end_page_writeback for pages [index, index+pages) of in, from
// interrupt context or a filesystem's completion worker (the caller accounts the CPU).
func (k *Kernel) EndPageWriteback(in *Inode, index, pages int64) {
	n := in.Writeback.Remove(index, pages)
	b := in.bdi
	k.G.NrWriteback -= n
	b.Stats.Writeback -= n
	k.accountWritten(in, n)
	if in.wbWait.Len() > 0 {
		in.wbWait.WakeAll()
	}
	if k.on(swBandwidthFromWritepages) && n > 0 && in.Writeback.Empty() {
		k.wbInodeWritebackEnd(b)
	}
	if k.mm != nil {
		k.rotateReclaimable(in, index, pages)
	}
	k.wakeCongestion(b)
}

// accountDirtied is account_page_dirtied's count of n pages of in newly dirtied
// by th (v3.2): NR_DIRTIED, BDI_DIRTIED, the inode's total and, with the IO-full
// throttle, the task's dirty count (NR_FILE_DIRTY and BDI_RECLAIMABLE are the
// caller's: a redirtied page never left them).
func (k *Kernel) accountDirtied(th *Thread, in *Inode, n int64) {
	k.G.NrDirtied += n
	in.bdi.Stats.Dirtied += n
	in.dirtied += n
	if k.on(swIOFullThrottle) {
		k.taskDirtyInc(th, n)
	}
}

// accountWritten is test_clear_page_writeback's count of n pages of in whose
// writeback ended (v3.2): NR_WRITTEN, BDI_WRITTEN, the writeout fraction and the
// inode's total.
func (k *Kernel) accountWritten(in *Inode, n int64) {
	k.G.NrWritten += n
	in.bdi.Stats.Written += n
	k.bdiWriteoutInc(in.bdi, n)
	in.written += n
}

// gdsRecord keeps what the harness's write_bw() needs from the flusher's
// global_dirty_state lines: the first line and the last 101 (time, NR_WRITTEN).
type gdsRecord struct {
	n     int64
	first gdsSample
	ring  [101]gdsSample
}

type gdsSample struct {
	t       sim.Time
	written int64
}

func (r *gdsRecord) add(s gdsSample) {
	if r.n == 0 {
		r.first = s
	}
	r.ring[r.n%int64(len(r.ring))] = s
	r.n++
}

// HarnessWriteBW computes write_bw as Wu's compare script does from the flusher's
// global_dirty_state lines: n = min(lines/10, 100); (written[-n] - written[0]) /
// (time[-n] - time[0]) in pages/s. ok is false when there are too few lines.
func (k *Kernel) HarnessWriteBW() (pagesPerSec float64, lines int64, ok bool) {
	r := &k.flusherGDS
	n := min(r.n/10, 100)
	if n < 1 {
		return 0, r.n, false
	}
	last := r.ring[(r.n-n)%int64(len(r.ring))]
	dt := last.t - r.first.t
	if dt <= 0 {
		return 0, r.n, false
	}
	return float64(last.written-r.first.written) / dt.Seconds(), r.n, true
}
