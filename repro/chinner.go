package repro

import (
	"context"
	"fmt"
	"github.com/wblab/wblab/engine"
	"sort"
	"strconv"
	"strings"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/fs"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// Chinner 2010 (../shared/threads/chinner-2010-write_cache_pages-nr_to_write.txt):
// "This improves sustained sequential buffered write performance from around
// 250MB/s to 750MB/s for a 100GB file on an XFS filesystem on my 8p test VM."
var chinner2010 = Experiment{
	Name:   "chinner-2010",
	ID:     "chinner2010",
	Title:  "Chinner 2010",
	Thread: "chinner-2010-write_cache_pages-nr_to_write.txt",
	Doc: "XFS, 8 CPUs, 100 GB sequential buffered dd on chinner2010-vm: 2.6.36-rc1 vs +fix " +
		"(thread: ~250 vs ~750 MB/s), wbc_writepage towrt going 1, 0, -1, -2 before the fix, ext4 unaffected",
	Look: "One dd writes a large file through XFS on a fast 8-CPU VM: 2.6.36-rc1's write_cache_pages keeps calling " +
		"->writepage after XFS's clustering drove nr_to_write below zero, and the fix stops there. " +
		"Compare the \"dd finished in\" card, the xfsdatad requeues and ioends cards and the flusher's CPU of A and B.",
	Mode: "ab", TestKernel: "2.6.36-rc1+fix",
	Setup: func() (engine.Config, error) { return chinnerConfig("2.6.36-rc1", "xfs", 100) },
	run:   runChinner2010,
}

// The thread's trace: the towrt=1023 call (at 1342952.351654 s) clustered 1023
// pages, and the next call (towrt=0) started at 1342952.369520 s.
const (
	chinnerThreadClusterPages = 1023
	chinnerThreadClusterUs    = (1342952.369520 - 1342952.351654) * 1e6
)

// chinnerConfig is the thread's machine: an 8p VM (4 GB assumed, default 2.6.36
// dirty ratios 20/10) writing one file with dd bs=1M.
func chinnerConfig(kernel, fs string, gb int64) (engine.Config, error) {
	c := engine.DefaultConfig()
	dev, err := devices.Preset("chinner2010-vm")
	if err != nil {
		return c, err
	}
	c.Disks[0].Device, c.Kernel, c.Disks[0].Filesystem = dev, kernel, fs
	c.CPUs, c.MemoryMB = 8, 4096
	c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
	c.Disks[0].Workload = engine.Workload{DD: 1, BS: 1 << 20, Count: gb << 10}
	c.Runtime = engine.Duration(int64(gb) * 10e9) // ≥ 100 MB/s
	c.Case = fmt.Sprintf("chinner-2010/%s-%dG", fs, gb)
	return c, nil
}

func runChinner2010(ctx context.Context, quick bool) (*Report, error) {
	gb := int64(100)
	if quick {
		gb = 8
	}
	var cfgs []engine.Config
	for _, fs := range []string{"xfs", "ext4", "xfs-dm"} {
		for _, k := range []string{"2.6.36-rc1", "2.6.36-rc1+fix"} {
			c, err := chinnerConfig(k, strings.TrimSuffix(fs, "-dm"), gb)
			if err != nil {
				return nil, err
			}
			// the same machine with its disk behind dm-linear (devices/dm.go)
			c.Disks[0].Device.DM = strings.HasSuffix(fs, "-dm")
			cfgs = append(cfgs, c)
		}
	}
	res, err := runAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	tr, trFix, trDM, err := chinnerTrace(ctx)
	if err != nil {
		return nil, err
	}
	buggy, fixed := ddRateMBps(res[0]), ddRateMBps(res[1])
	e4b, e4f := ddRateMBps(res[2]), ddRateMBps(res[3])
	dmb, dmf := ddRateMBps(res[4]), ddRateMBps(res[5])
	calls := fsStat(res[0], "writepage_calls")
	wbB, devB := writebackWhere(res[0])
	wbF, devF := writebackWhere(res[1])
	flusherCPU := actorCPU(res[0], "flush-")
	f := map[string]float64{
		"buggy_MBps": buggy, "fixed_MBps": fixed, "ratio": fixed / buggy,
		"ext4_buggy_MBps": e4b, "ext4_fixed_MBps": e4f, "ext4_ratio": e4f / e4b,
		"dm_buggy_MBps": dmb, "dm_fixed_MBps": dmf, "dm_ratio": dmf / dmb,
		"dm_call_us": float64(chinnerCallCPU(true)) / 1e3, "call_us": float64(chinnerCallCPU(false)) / 1e3,
		"file_GB": float64(gb),
		// the buggy kernel at the trace level
		"call_gap_p50_us": tr.p50, "call_gap_p95_us": tr.p95, "call_gap_mean_us": tr.mean,
		"cluster_call_pages": float64(tr.clusterPages), "cluster_call_us": tr.clusterUs,
		"dm_call_gap_p50_us": trDM.p50, "dm_call_gap_p95_us": trDM.p95,
		"sleeprq_per_s": tr.sleeprqPerS, "fixed_sleeprq_per_s": trFix.sleeprqPerS, "fixed_sleeprq_max_us": trFix.sleeprqMaxUs,
		"calls_per_s":             float64(calls) / res[0].RuntimeS,
		"calls_per_flusher_cpu_s": float64(calls) / max(flusherCPU, 1e-9),
		"flusher_busy":            flusherCPU / res[0].RuntimeS,
		"xfsdatad_requeues":       float64(fsStat(res[0], "xfsdatad_requeues")),
		"writeback_MB":            wbB, "writeback_at_device_MB": devB,
		"fixed_writeback_MB": wbF, "fixed_writeback_at_device_MB": devF,
		"ilock_waits":        float64(fsStat(res[0], "ilock_waits")),
		"requeues_per_ioend": float64(fsStat(res[0], "xfsdatad_requeues")) / max(float64(fsStat(res[0], "xfsdatad_ioends")), 1),
		// the buggy kernel's cycle, from a 10 s run sampled every 10 ms
		"passes_per_s": tr.passesPerS, "flusher_active_share": tr.activeShare,
		"completion_active_MBps": tr.complActiveMBps, "completion_idle_MBps": tr.complIdleMBps,
		// the flusher's time one sleep as long as the thread's clustering call would
		// take at each pass start
		"thread_sleep_share": tr.passesPerS * chinnerThreadClusterUs / 1e6,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "chinner-2010: %d GB sequential buffered dd, 8 CPUs, chinner2010-vm\n", gb)
	fmt.Fprintf(&b, "%-6s %14s %14s %7s   thread\n", "fs", "2.6.36-rc1", "+fix", "ratio")
	fmt.Fprintf(&b, "%-6s %9.0f MB/s %9.0f MB/s %7.2f   ~250 → ~750 MB/s (3.0)\n", "xfs", buggy, fixed, fixed/buggy)
	fmt.Fprintf(&b, "%-6s %9.0f MB/s %9.0f MB/s %7.2f   (unaffected)\n", "ext4", e4b, e4f, e4f/e4b)
	fmt.Fprintf(&b, "%-6s %9.0f MB/s %9.0f MB/s %7.2f   the xfs machine with its disk behind dm-linear (dm=on)\n", "xfs+dm", dmb, dmf, dmf/dmb)
	fmt.Fprintf(&b, "  the thread's bdi 253:16 is a dm device (dm-16) or, as likely, a KVM guest's second virtio disk vdb "+
		"(virtio_blk: minor = index << 4, a dynamic major like dm's): chinner2010-vm has no dm, dm=on adds it\n")
	fmt.Fprintf(&b, "wbc_writepage towrt before the fix: %s   (thread: 1024, 1023, 0, -1, -2)\n", strings.Join(tr.towrt, ", "))
	fmt.Fprintf(&b, "2.6.36-rc1 two-page calls, from the trace: gap p50 %.1f µs, p95 %.1f µs, mean %.1f µs   "+
		"(thread: 22 µs for the first call after the flusher moved from CPU 7 to CPU 0, 7 µs for the next)\n",
		tr.p50, tr.p95, tr.mean)
	fmt.Fprintf(&b, "  one call: %s\n", chinnerCallBreakdown())
	fmt.Fprintf(&b, "  through dm: + the clone's submission (dm_request, clone_bio, __map_bio → generic_make_request → __make_request) %.1f µs = %.1f µs per call; gap p50 %.1f µs, p95 %.1f µs\n",
		f["dm_call_us"]-f["call_us"], f["dm_call_us"], trDM.p50, trDM.p95)
	fmt.Fprintf(&b, "the clustering call before them: %d pages in %.0f µs (%.2f µs/page, CPU only)   (thread: %d pages in %.0f µs, %.1f µs/page; "+
		"the lines before it are on CPU 7, the ones after on CPU 0: the flusher most likely slept inside that call)\n",
		tr.clusterPages, tr.clusterUs, tr.clusterUs/float64(max(tr.clusterPages, 1)),
		chinnerThreadClusterPages, chinnerThreadClusterUs, chinnerThreadClusterUs/chinnerThreadClusterPages)
	fmt.Fprintf(&b, "  %.0f calls/s over the run (thread: ~250 MB/s in two-page calls is ~%.0f/s), %.0f per second of flusher CPU (flusher busy %.0f%%); %d ILOCK waits, %d xfsdatad delay(1) requeues\n",
		f["calls_per_s"], 250.0*(1<<20)/(2*4096), f["calls_per_flusher_cpu_s"], 100*f["flusher_busy"], fsStat(res[0], "ilock_waits"), fsStat(res[0], "xfsdatad_requeues"))
	fmt.Fprintf(&b, "  the flusher's block_sleeprq (get_request_wait) lines: %.0f/s before the fix; %.0f/s with it, the longest %.0f µs to its next line\n",
		tr.sleeprqPerS, trFix.sleeprqPerS, trFix.sleeprqMaxUs)
	fmt.Fprintf(&b, "  pages under writeback, mean over the run: %.0f MB, of which %.1f MB in requests at the disk (the rest in ioends waiting for xfsdatad's xfs_setfilesize); +fix %.0f MB, %.1f MB at the disk\n",
		wbB, devB, wbF, devF)
	fmt.Fprintf(&b, "the buggy kernel's cycle (10 s, sampled every 10 ms): the flusher submits %.0f%% of the time, in %.1f passes/s; IO completions run at %.0f MB/s "+
		"while it submits (xfsdatad's xfs_setfilesize trylock fails against xfs_map_blocks' ILOCK_SHARED holds, %.3f requeues per ioend over the run, "+
		"each followed by delay(1)) and %.0f MB/s while it idles below the background threshold; dd follows the completions, the pages under "+
		"writeback counting against the dirty limit\n",
		100*tr.activeShare, tr.passesPerS, tr.complActiveMBps, f["requeues_per_ioend"], tr.complIdleMBps)
	fmt.Fprintf(&b, "  a sleep as long as the thread's clustering call (%.1f ms) at each pass start would take %.1f%% of the flusher's time\n",
		chinnerThreadClusterUs/1e3, 100*f["thread_sleep_share"])
	return &Report{Figures: f, Text: b.String()}, nil
}

// writebackWhere is the mean NR_WRITEBACK over a run and the mean of it held by
// requests at the disk (iostat avgqu-sz × avgrq-sz), MB.
func writebackWhere(r *engine.Result) (wb, atDevice float64) {
	w, _ := r.Series.Column("writeback_MB")
	q, _ := r.Series.Column("iostat_avgqu_sz")
	sz, _ := r.Series.Column("iostat_avgrq_sz")
	if len(w) == 0 || len(q) != len(w) || len(sz) != len(w) {
		return 0, 0
	}
	for i := range w {
		wb += w[i]
		atDevice += q[i] * sz[i] * 512 / (1 << 20)
	}
	return wb / float64(len(w)), atDevice / float64(len(w))
}

// chinnerCallParts are what one 2.6.36-rc1 two-page ->writepage call costs in the
// model (xfs.Xfs.oldRuleStep), on a plain disk.
func chinnerCallParts() []struct {
	name string
	d    sim.Time
} {
	c := kernel.DefaultCosts()
	x := fs.DefaultXfsParams()
	lookups := sim.Time(13) // PAGEVEC_SIZE looked up, one converted
	return []struct {
		name string
		d    sim.Time
	}{
		{"write_cache_pages + page lock/clear/set_writeback", c.Writepage},
		{"visit of the clustered page", x.SkipPageCost},
		{"xfs_map_blocks (ILOCK, xfs_bmapi, ioend)", x.MapBlocksCost},
		{"xfs_convert_page", c.ClusterPage},
		{"pagevec_lookup/release of 13 unused pages", lookups * x.LookupPageCost},
		{"bio alloc + submit_bio + merge", c.SubmitBio},
	}
}

// chinnerCallCPU is one two-page call's CPU, through dm or not: each call submits
// one bio.
func chinnerCallCPU(dm bool) sim.Time {
	var sum sim.Time
	for _, p := range chinnerCallParts() {
		sum += p.d
	}
	if dm {
		base := kernel.DefaultCosts().SubmitBio
		sum += devices.DMSubmitBio(base) - base
	}
	return sum
}

// chinnerCallBreakdown lists what one 2.6.36-rc1 two-page ->writepage call costs in
// the model and one ioend's completion in xfsdatad.
func chinnerCallBreakdown() string {
	c := kernel.DefaultCosts()
	x := fs.DefaultXfsParams()
	var sum sim.Time
	var b strings.Builder
	for _, p := range chinnerCallParts() {
		fmt.Fprintf(&b, "%s %.1f + ", p.name, float64(p.d)/1e3)
		sum += p.d
	}
	s := strings.TrimSuffix(b.String(), " + ")
	return fmt.Sprintf("%s = %.1f µs (+%.1f µs sleep/wake-up when xfs_ilock finds the ILOCK held); completion per ioend %.1f µs + %.1f µs per page, +1 jiffy per failed xfs_setfilesize trylock",
		s, float64(sum)/1e3, float64(c.SleepWake)/1e3, float64(x.EndIoCost)/1e3, float64(c.EndIOPage)/1e3)
}

// chinnerTraceFigures are the buggy kernel's wbc_writepage lines: the towrt
// sequence and the spacing of consecutive two-page calls (towrt ≤ 0, µs).
type chinnerTraceFigures struct {
	towrt          []string
	p50, p95, mean float64
	// the first ->writepage call that drove towrt from > 0 to <= 0 (the clustering
	// call): its pages and the time to the next call's line
	clusterPages int64
	clusterUs    float64
	// the flusher's block_sleeprq lines (get_request_wait) per second of trace,
	// and the longest time from one to the flusher's next line (µs)
	sleeprqPerS, sleeprqMaxUs float64
	// the cycle (chinnerPhases): write_cache_pages passes started per second, the
	// share of the time the flusher submits, and the IO completions (MB/s) while it
	// submits and while it is idle
	passesPerS, activeShare, complActiveMBps, complIdleMBps float64
}

// chinnerTrace runs the buggy kernel briefly with tracing, on the plain disk and
// behind dm, and the fixed one longer (its calls are 512 times fewer) for its
// get_request_wait sleeps; and the buggy kernel for several of its submit-then-idle
// cycles, untraced and sampled every 10 ms (chinnerPhases).
func chinnerTrace(ctx context.Context) (buggy, fixed, dm chinnerTraceFigures, err error) {
	var cfgs []engine.Config
	for _, k := range []struct {
		name    string
		s       int64
		dm      bool
		sampled bool // the cycle: untraced, sampled every 10 ms
	}{{"2.6.36-rc1", 1, false, false}, {"2.6.36-rc1+fix", 10, false, false}, {"2.6.36-rc1", 1, true, false}, {"2.6.36-rc1", 10, false, true}} {
		c, err := chinnerConfig(k.name, "xfs", 16)
		if err != nil {
			return buggy, fixed, dm, err
		}
		c.Runtime = engine.Duration(k.s * 1e9)
		c.TraceLines = 200_000
		c.Disks[0].Device.DM = k.dm
		if k.sampled {
			c.TraceLines, c.SampleInterval = 0, engine.Duration(10e6)
		}
		cfgs = append(cfgs, c)
	}
	res, err := runAll(ctx, cfgs)
	if err != nil {
		return buggy, fixed, dm, err
	}
	buggy = traceFigures(res[0])
	var starts int
	buggy.activeShare, buggy.complActiveMBps, buggy.complIdleMBps, starts = chinnerPhases(res[3])
	buggy.passesPerS = float64(starts) / max(res[3].RuntimeS-chinnerWarmS, 1e-9)
	return buggy, traceFigures(res[1]), traceFigures(res[2]), nil
}

// traceFigures reads a chinnerTrace run's trace.
func traceFigures(r *engine.Result) chinnerTraceFigures {
	out := chinnerTraceFigures{towrt: towrtSequence(r.Trace, 6)}
	n, maxUs := sleeprqs(r.Trace, "flush-")
	out.sleeprqPerS, out.sleeprqMaxUs = float64(n)/r.RuntimeS, maxUs
	out.clusterPages, out.clusterUs = clusterCall(r.Trace)
	gaps := CallGapsUs(r.Trace)
	if n := len(gaps); n > 0 {
		sort.Float64s(gaps)
		var sum float64
		for _, g := range gaps {
			sum += g
		}
		out.p50, out.p95, out.mean = gaps[n/2], gaps[n*19/20], sum/float64(n)
	}
	return out
}

// chinnerPhases splits a run's samples (after its first chinnerWarmS) by whether
// the flusher is submitting: pages leaving the dirty state (dirtied less the change
// of dirty) faster than chinnerActiveMBps. It returns the share of the time the
// flusher submits, the IO completions (written_MB's rate) while it does and while
// it does not, and how many submitting periods began: in 2.6.36-rc1 each is one
// write_cache_pages pass (wb_writeback starts it when dirty pages cross the
// background threshold; it ends when none is left).
func chinnerPhases(r *engine.Result) (activeShare, complActive, complIdle float64, starts int) {
	t, _ := r.Series.Column("time_s")
	dirty, _ := r.Series.Column("dirty_MB")
	dirtied, _ := r.Series.Column("dirtied_MB")
	written, _ := r.Series.Column("written_MB")
	n := len(t)
	if n < 2 || len(dirty) != n || len(dirtied) != n || len(written) != n {
		return 0, 0, 0, 0
	}
	var tA, tI, wA, wI float64
	active := false
	for i := 1; i < n; i++ {
		dt := t[i] - t[i-1]
		if t[i-1] < chinnerWarmS || dt <= 0 {
			continue
		}
		submitted := (dirtied[i] - dirtied[i-1]) - (dirty[i] - dirty[i-1])
		if submitted/dt > chinnerActiveMBps {
			if !active {
				starts++
			}
			tA, wA = tA+dt, wA+written[i]-written[i-1]
		} else {
			tI, wI = tI+dt, wI+written[i]-written[i-1]
		}
		active = submitted/dt > chinnerActiveMBps
	}
	if tA > 0 {
		complActive = wA / tA
	}
	if tI > 0 {
		complIdle = wI / tI
	}
	return tA / max(tA+tI, 1e-9), complActive, complIdle, starts
}

// chinnerActiveMBps separates the flusher's submitting samples from its idle ones:
// a pass submits hundreds of MB/s, an idle flusher nothing (dd's own writeback in
// balance_dirty_pages does not run here: the dirty pages stay below its bdi limit).
const chinnerActiveMBps = 50

// chinnerWarmS is the start of a run chinnerPhases leaves out: the first pass
// begins once dd has dirtied the background threshold.
const chinnerWarmS = 1

// sleeprqs counts the block_sleeprq lines of tasks whose comm starts with prefix
// and the longest gap (µs) from one to the same task's next line.
func sleeprqs(trace []string, prefix string) (n int, maxUs float64) {
	asleep := map[string]float64{} // comm-pid → time of its block_sleeprq
	for _, l := range trace {
		f := strings.Fields(l)
		if len(f) < 4 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		t, err := strconv.ParseFloat(strings.TrimSuffix(f[2], ":"), 64)
		if err != nil {
			continue
		}
		if t0, ok := asleep[f[0]]; ok {
			maxUs = max(maxUs, (t-t0)*1e6)
			delete(asleep, f[0])
		}
		if f[3] == "block_sleeprq:" {
			n++
			asleep[f[0]] = t
		}
	}
	return n, maxUs
}

// writepageLine parses a wbc_writepage trace line: the task's comm-pid, the
// timestamp (s) and towrt.
func writepageLine(l string) (comm string, t float64, towrt int64, ok bool) {
	i := strings.Index(l, ": wbc_writepage: ")
	j := strings.Index(l, "towrt=")
	if i < 0 || j < 0 {
		return "", 0, 0, false
	}
	f := strings.Fields(l[:i])
	if len(f) < 3 {
		return "", 0, 0, false
	}
	t, err1 := strconv.ParseFloat(f[len(f)-1], 64)
	towrt, err2 := strconv.ParseInt(strings.Fields(l[j+len("towrt="):])[0], 10, 64)
	return f[0], t, towrt, err1 == nil && err2 == nil
}

// CallGapsUs returns the spacing (µs) of consecutive wbc_writepage lines of one
// thread whose towrt goes down by one from ≤ 0 (2.6.36-rc1's two-page calls).
func CallGapsUs(trace []string) []float64 {
	var gaps []float64
	var prevComm string
	var prevT float64
	prevTowrt := int64(1)
	for _, l := range trace {
		comm, t, towrt, ok := writepageLine(l)
		if !ok {
			continue
		}
		if comm == prevComm && towrt <= 0 && towrt == prevTowrt-1 {
			gaps = append(gaps, (t-prevT)*1e6)
		}
		prevComm, prevT, prevTowrt = comm, t, towrt
	}
	return gaps
}

// clusterCall finds the first pair of consecutive wbc_writepage lines of one thread
// whose towrt goes from n > 0 to <= 0: the first line's call clustered n pages (its
// xfs_convert_page loop drove nr_to_write to 0), and the gap to the second is that
// call's duration (µs).
func clusterCall(trace []string) (int64, float64) {
	var prevComm string
	var prevT float64
	var prevTowrt int64
	for _, l := range trace {
		comm, t, towrt, ok := writepageLine(l)
		if !ok {
			continue
		}
		if comm == prevComm && prevTowrt > 0 && towrt <= 0 {
			return prevTowrt, (t - prevT) * 1e6
		}
		prevComm, prevT, prevTowrt = comm, t, towrt
	}
	return 0, 0
}

// fsStat reads one filesystem counter of a Result (0 when absent).
func fsStat(r *engine.Result, name string) int64 {
	for _, st := range r.FSStats {
		if st.Name == name {
			return st.Value
		}
	}
	return 0
}

// actorCPU is the CPU seconds of the actors whose name starts with prefix.
func actorCPU(r *engine.Result, prefix string) float64 {
	var s float64
	for _, a := range r.CPUByActor {
		if strings.HasPrefix(a.Actor, prefix) {
			s += a.CPUS
		}
	}
	return s
}

// towrtSequence extracts n consecutive towrt values of wbc_writepage lines from a
// trace, starting at the line before the first one whose towrt is ≤ 0 (the
// ->writepage call whose cluster drove nr_to_write to 0).
func towrtSequence(trace []string, n int) []string {
	var vals []string
	for _, l := range trace {
		i := strings.Index(l, "wbc_writepage: ")
		if i < 0 {
			continue
		}
		j := strings.Index(l[i:], "towrt=")
		if j < 0 {
			continue
		}
		vals = append(vals, strings.Fields(l[i+j+len("towrt="):])[0])
	}
	for i, v := range vals {
		if v == "0" || strings.HasPrefix(v, "-") {
			start := max(i-1, 0)
			return vals[start:min(start+n, len(vals))]
		}
	}
	return nil
}
