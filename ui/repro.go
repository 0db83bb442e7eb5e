package ui

import (
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
)

// Repro is a "Reproduce" preset: it sets up the form (and mode) for one of the threads
// and says in two sentences what to look for.
type Repro struct {
	ID, Title string
	Explain   string
	Kernels   []string // the kernel presets it needs; it is offered only when all exist
	Mode      string   // "ab" or "matrix"
	Table     string   // matrix: a built-in table
	Set       map[string]string
	BKernel   string
}

// Repros are the threads' experiments.
var Repros = []Repro{
	{ID: "chinner2010", Title: "Chinner 2010",
		Explain: "One dd writes through XFS on a fast 8p VM: 2.6.36-rc1's write_cache_pages stops only at nr_to_write == 0, which XFS's clustering jumps past, " +
			"so the flusher keeps calling ->writepage with a negative nr_to_write and XFS, no longer clustering, writes a page per call, " +
			"each two-page ioend needing the ILOCK in the xfsdatad worker, which requeues it and sleeps a jiffy whenever the writer holds the lock; the fix stops at <= 0. " +
			"Compare the \"dd finished in\" card (100 GB / time), the xfsdatad requeues and ioends cards and the flusher's CPU of A and B " +
			"(the thread: ~250 MB/s before, ~750 MB/s after; wblab: ~590 before, 750 after, a known gap).",
		Kernels: []string{"2.6.36-rc1", "2.6.36-rc1+fix"}, Mode: "ab", BKernel: "2.6.36-rc1+fix",
		Set: map[string]string{"fs": "xfs", "dd": "1", "bs": "1M", "count": "102400", "device": "chinner2010-vm", "kernel": "2.6.36-rc1",
			"dirty_bytes": "", "dirty_ratio": "20", "bg_ratio": "10"}},
	{ID: "wu2011", Title: "Wu 2011",
		Explain: "Wu's table T1 compares the IO-less balance_dirty_pages baseline with the more_io_wait-5 patch over 24 cases (fs × dd count × thresholds) on the default disk. " +
			"Look at the +x.x% column and TOTAL: the thread reports -2.6% to +3.9% per case and +1.0% in total.",
		Kernels: []string{"3.1.0-rc9-ioless-full", "3.1.0-rc9-ioless-full-more_io_wait-5"}, Mode: "matrix", Table: "T1",
		BKernel: "3.1.0-rc9-ioless-full-more_io_wait-5",
		Set:     map[string]string{"kernel": "3.1.0-rc9-ioless-full", "device": engine.DefaultDevice}},
	{ID: "axboe2009", Title: "Axboe 2009",
		Explain: "ext4 on an Intel X25-E SSD (4 CPUs, 2 GB): 2.6.30-rc6 writes back through pdflush threads, the per-bdi series gives each device its own flusher. " +
			"Compare write_bw of A and B for this one large-file writer, and how much of the writeback the dd does itself (its CPU in the JSON's cpu_by_actor; the CPU card is the whole machine's): " +
			"the thread measured per-bdi at 101% of 2.6.30-rc6's throughput for 95% of the benchmark's own CPU time.",
		Kernels: []string{"2.6.30-rc6", "2.6.30-rc6+per-bdi"}, Mode: "ab", BKernel: "2.6.30-rc6+per-bdi",
		Set: map[string]string{"fs": "ext4", "bs": "1M", "device": "x25e", "cpus": "4", "memory": "2048", "kernel": "2.6.30-rc6",
			"dirty_bytes": "", "dirty_ratio": "20", "bg_ratio": "10"}},
	{ID: "modern", Title: "2011 vs 6.1",
		Explain: "The same case on the Wu 2011 baseline (v3.2 writeback) and on 6.1, which adds background writeback of every dirty inode, requeue_inode, " +
			"think-time compensated pauses with wb_min_pause and a blk-mq block layer with 1280 KiB requests and blk-wbt on by default. " +
			"Compare the pause chart and the device queue: in the model the throttling changes move pauses rather than MB/s, while the block layer (wbt holding the queue near 16, larger requests) moves write_bw.",
		Kernels: []string{"3.1.0-rc9-ioless-full", "6.1"}, Mode: "ab", BKernel: "6.1",
		Set: map[string]string{"fs": "ext4", "dd": "10", "kernel": "3.1.0-rc9-ioless-full", "device": engine.DefaultDevice}},
	{ID: "kara2016", Title: "Kara 2016",
		Explain: "dd bs=1M count=10000 conv=fsync on ext3 to a queue-depth-1 disk: blk-wbt throttles the flusher's background writes, " +
			"so ext3's kjournald ends up writing the data with its commits. Compare the \"dd finished in\" card of A and B (the thread: ~105 s with wbt) and look at the blk-wbt chart.",
		Kernels: []string{"4.6", "4.6+wbt"}, Mode: "ab", BKernel: "4.6+wbt",
		Set: map[string]string{"fs": "ext3", "dd": "1", "bs": "1M", "count": "10000", "fsync": "on",
			"device": "kara2016-qd1", "kernel": "4.6", "dirty_bytes": "", "dirty_ratio": "20", "bg_ratio": "10"}},
}

// Available reports whether every kernel the preset needs is a kernel preset.
func (r Repro) Available() bool {
	have := map[string]bool{}
	for _, p := range kernel.Presets() {
		have[p.Name] = true
	}
	for _, k := range r.Kernels {
		if !have[k] {
			return false
		}
	}
	return true
}

// Missing lists the kernel presets the preset needs that the engine lacks.
func (r Repro) Missing() string {
	have := map[string]bool{}
	for _, p := range kernel.Presets() {
		have[p.Name] = true
	}
	var out []string
	for _, k := range r.Kernels {
		if !have[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// ReproByID finds a preset.
func ReproByID(id string) (Repro, bool) {
	for _, r := range Repros {
		if r.ID == id {
			return r, true
		}
	}
	return Repro{}, false
}

// Apply sets the state up for the preset: the default form (600 s, seed 1) with the
// preset's controls,
// its mode, B's kernel (switches at the preset's) and the matrix table.
func (r Repro) Apply(st State) State {
	f := FormFromConfig(engine.DefaultConfig())
	for k, v := range r.Set {
		f[k] = v
	}
	return State{Form: f, Mode: r.Mode, B: Form{"kernel": r.BKernel}, Table: r.Table, Embed: st.Embed, Repro: r.ID}
}
