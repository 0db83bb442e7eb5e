// Package fidelity checks wblab against the Wu 2011 thread's measurements: the
// baseline kernel (3.1.0-rc9-ioless-full) over every baseline case of the thread's
// tables, on the default device (the thread's disk, wu2011-hdd).
package fidelity

import (
	"context"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/harness"
)

// Bars (issue 4).
const (
	maxMAEPct  = 10.0
	maxCasePct = 25.0
	runtimeS   = 600 // the harness's RUNTIME
	// flatPct: a 1dd → N dd change smaller than this in the thread counts as flat.
	flatPct = 5.0
)

// baselineKernel is the kernel of the baseline column (the thread's
// "ioless-full").
const baselineKernel = kernel.DefaultPreset

type fcase struct {
	name   string
	thread float64   // MB/s
	got    float64   // MB/s: the mean over the seeds
	seeds  []float64 // MB/s per seed, seeds 1..baselineSeeds
	c      harness.Case
	// columns: the case's figure under every kernel the thread's tables give it
	// for (base and test columns of T1-T6), MB/s by kernel
	columns map[string]float64
}

// baselineSeeds is how many seeds (1..baselineSeeds) each T1 case runs with; the
// issue-17 bars are on the mean.
const baselineSeeds = 5

// loadBaseline reads the baseline rows (base kernel ioless-full, first in table
// T1) of the thread's tables, which package harness embeds (harness.Matrices), so
// the test runs from a clone without ../shared.
func loadBaseline(t *testing.T) []*fcase {
	t.Helper()
	columns := map[string]map[string]float64{}
	var out []*fcase
	seen := map[string]bool{}
	names := harness.Matrices()
	require.NotEmpty(t, names, "the embedded tables")
	for _, name := range names {
		m, err := harness.LookupMatrix(name)
		require.NoError(t, err)
		for _, r := range m.Rows {
			if columns[r.Case] == nil {
				columns[r.Case] = map[string]float64{}
			}
			columns[r.Case][m.Base] = r.ThreadBaseMBps
			columns[r.Case][m.Test] = r.ThreadTestMBps
		}
	}
	for _, name := range names {
		m, _ := harness.LookupMatrix(name)
		if m.Base != baselineKernel {
			continue
		}
		for _, r := range m.Rows {
			if seen[r.Case] {
				continue
			}
			c, err := harness.ParseCase(r.Case)
			require.NoError(t, err, r.Case)
			seen[r.Case] = true
			out = append(out, &fcase{name: r.Case, thread: r.ThreadBaseMBps, c: c, columns: columns[r.Case]})
		}
	}
	require.NotEmpty(t, out, "no baseline rows")
	return out
}

// runAll runs every case for runtimeS seconds on the default device with seeds
// 1..nSeeds, through engine.RunAll's pool; fc.got is the mean over the seeds.
func runAll(t *testing.T, cases []*fcase, nSeeds int) {
	t.Helper()
	var cfgs []engine.Config
	for _, fc := range cases {
		cfg, err := harness.ConfigForCase(fc.name)
		require.NoError(t, err)
		cfg.Kernel = kernel.DefaultPreset
		cfg.Runtime = engine.Duration(runtimeS * time.Second)
		cfg.Seed = 1
		cfgs = append(cfgs, engine.SeedConfigs(cfg, nSeeds)...)
	}
	res, err := engine.RunAll(context.Background(), cfgs)
	require.NoError(t, err)
	for i, fc := range cases {
		fc.seeds = fc.seeds[:0]
		sum := 0.0
		for _, r := range res[i*nSeeds : (i+1)*nSeeds] {
			fc.seeds = append(fc.seeds, r.WriteBWMBps)
			sum += r.WriteBWMBps
		}
		fc.got = sum / float64(nSeeds)
	}
}

func errPct(fc *fcase) float64 { return (fc.got - fc.thread) / fc.thread * 100 }

// baselineTable prints T1 as the harness does (thread, error, wblab, case) with
// seed 1's figure beside the mean, then the MAPE, the worst case and each
// filesystem's mean signed error, over the mean and over seed 1.
func baselineTable(cases []*fcase, wall time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n%10s  %9s %9s  %9s %8s  %s\n", "thread", "mean", "error", "seed 1", "error", "case")
	var sum, worst, sum1, worst1 float64
	fsErr, fsErr1, fsN := map[string]float64{}, map[string]float64{}, map[string]int{}
	for _, fc := range cases {
		e := errPct(fc)
		e1 := (fc.seeds[0] - fc.thread) / fc.thread * 100
		sum += math.Abs(e)
		sum1 += math.Abs(e1)
		worst = math.Max(worst, math.Abs(e))
		worst1 = math.Max(worst1, math.Abs(e1))
		fsErr[fc.c.FS] += e
		fsErr1[fc.c.FS] += e1
		fsN[fc.c.FS]++
		fmt.Fprintf(&b, "%10.2f  %9.2f %+8.1f%%  %9.2f %+7.1f%%  %s\n", fc.thread, fc.got, e, fc.seeds[0], e1, fc.name)
	}
	n := float64(len(cases))
	fmt.Fprintf(&b, "MAPE %.2f%% (worst %.1f%%) over the mean of %d seeds; seed 1: %.2f%% (worst %.1f%%); %d cases, %s wall on %d CPUs\n",
		sum/n, worst, len(cases[0].seeds), sum1/n, worst1, len(cases), wall.Round(time.Millisecond), runtime.GOMAXPROCS(0))
	fss := make([]string, 0, len(fsN))
	for fs := range fsN {
		fss = append(fss, fs)
	}
	sort.Strings(fss)
	b.WriteString("mean signed error per fs (mean / seed 1):")
	for _, fs := range fss {
		fmt.Fprintf(&b, " %s %+.1f / %+.1f%%", fs, fsErr[fs]/float64(fsN[fs]), fsErr1[fs]/float64(fsN[fs]))
	}
	b.WriteString("\n")
	return b.String()
}

// Issue 17's targets for T1 (the mean of baselineSeeds seeds, 600 s).
const (
	targetMAPEPct       = 4.0 // mean absolute error
	targetCasePct       = 8.0 // every case
	targetFSSignedPct   = 3.0 // each filesystem's mean signed error
	targetOneWriterPct  = 2.0 // ext4, xfs and btrfs with one dd
	oneWriterTargetsFor = "ext4 xfs btrfs"
)

// issue17Gaps are the targets not reached, with why (measured with 5 seeds at
// 600 s): a target named here must be missed, one not named must hold, so the
// test fails both when a target regresses and when a gap closes (then remove it).
var issue17Gaps = map[string]string{
	"case": "xfs 10dd 100M +10.2 %, ext3 10dd 100M +9.8 %, xfs 100dd 1G +8.2 %: " +
		"xfs's placement follows 3.1 (1 GB allocsize windows at the AG's frontier, the whole delalloc extent converted at once) and " +
		"its log and metadata IO is on the disk (xfs_log.go, 0.1-0.3 %); the model's xfs 10dd 100M writes 6.7 MB per inode " +
		"visit (7.6 visits/s, 18 seeks/s, 9.7 % of the disk's time positioning) and loses 12.5 ms per visit against its 1dd " +
		"rate, where the thread, at that visit size, would lose 25; the thread's ext4 and xfs 10dd 100M are equal (45.7, 46.2), " +
		"the model's xfs is 6 % faster than its ext4; the disk's variants within their physical range (write cache off, " +
		"4 segments, QD 1, deadline, noop) never reach the thread's figure. Checked against the 3.1.0 sources (issue 17, " +
		"second pass) and measured, seed 1: a visit writes the inode's whole dirty run (xfs_cluster_write to EOF; the " +
		"16 MB nr_to_write never binds), one ioend per ->writepage, 512 KB bios, as the model does; smaller visits " +
		"do not cost more in the model (4 MB chunks, 13 visits/s: 50.58 MB/s); get_request's batching (a woken " +
		"flusher may take up to 3/2 of nr_requests) is absent but worth <= 0.4 % (nr_requests 160/192: 50.81/50.74); " +
		"CFQ starts 18.6 async slices/s, each with an expired FIFO head, 6/s of them a jump; 3.1's kupdate " +
		"->write_inode takes the trylock path (fixed, 50.90 -> 50.93); only a drive with its write cache off at NCQ 31 " +
		"comes near (47.93, 39 seeks/s), but it also takes xfs 10dd 1G to 52.87 (thread 54.19) and 1dd 100M to 55.18, " +
		"so it is not the thread's drive either: the drive's reordering across interleaved files is the open question; not identified. " +
		"Undocumented firmware policy alone moves these cells by more than their distance to the bar (issue 17, third pass, 5 seeds): " +
		"with destage_age=write (each write ages from its arrival, DiskSim's per-request timeout) they are +12.3 %, +22.2 % and " +
		"+12.6 % (MAPE 6.29 %); with each of the 16 segments a circular buffer of 2 MiB (Seagate's manuals: a segment never " +
		"overwrites data not yet on the medium) MAPE is 6.62 %",
	"fs:ext3": "+4.5 %: kjournald's data=ordered writes are modelled as page writeback (the commit waits for them, as " +
		"jbd's t_locked_list wait does); 3.1 writes buffers (submit_bh, no PG_writeback), and a page whose buffer kjournald " +
		"holds fails the flusher's trylock_buffer, is redirtied and still ended under writeback (NR_WRITTEN +1), then counted " +
		"again when met clean. That model is the switch ext3_jbd_buffers (no preset): with it ext3's mean error is +27 % " +
		"(1dd 100M 66.3 MB/s while the disk writes 48: each commit locks ~10-12k pages and the flusher, kept above the background " +
		"threshold by the redirtied pages, passes over them about once per page) and T2's ext3 1dd/2dd 100M cells go -50 %/-46 % " +
		"(Wu's patch 4 retries every jiffy) where the thread has +0.8/+1.2 %: 3.1 met locked buffers far less often; why is not identified. " +
		"What costs ext3 its throughput in the model is the disk's handling of the indirect blocks: without them (no 4 KB hole " +
		"before every 1024 data blocks, no checkpoint writes) ext3 1dd 100M writes 55.6 MB/s like ext4; the holes alone give " +
		"49.6, the checkpoint writes bring 47.6 (thread 45.9): the write cache holds the 4 MB runs between holes as separate " +
		"segments, and hddMaxWait's aging with a run's age reset at each partial destage (data stays ~0.6 s in a full 32 MiB " +
		"cache) destages them round-robin in 1 MB pieces, a seek each (24 of 38 seeks/s). With the age kept, T1's ext3 mean is " +
		"+16.8 % (1dd 100M +16.3 %, 10dd 100M +23.7 %, 1G 10dd +24.2 %) and the many-writer cases of ext4 and xfs move the " +
		"same way (ext4 10dd 100M +13.1 %, xfs +15.8 %; MAPE 7.1 %). No mechanism of 3.1's ext3 and jbd checked (block group " +
		"placement, pid colour, reservation windows, indirect blocks, t_sync_datalist order, journal metadata) accounts for the " +
		"thread's ext3 1dd 100M being 18 % below its ext4 (45.9 against 55.7)",
	"fs:xfs": "+3.8 %: xfs's many-writer cases (above); +5.1 % with destage_age=write",
	"1dd:ext4-1G": "-2.3 %: T1's 57.42 MB/s is the top of the thread's own spread for this case (55.47-57.52 " +
		"under the 7 kernels of T1-T6, whose patches change nothing a single writer runs in the model; the subtest " +
		"disk-rate logs each one-writer case's spread): the model's 56.10 is -1.1 % of their mean, and every " +
		"one-writer cell is within 1.4 % of its case's mean. The model has no mechanism for ext4 1dd being 2.2 % " +
		"faster at 1G than at 100M (the means over the kernels)",
}

// diskRateTolPct bounds the calibration of wu2011-hdd's media rate: the model's
// one-writer cells on oneWriterTargetsFor average the thread's within this.
const diskRateTolPct = 0.5

// checkDiskRate is the calibration of wu2011-hdd's outer media rate (devices/spec.go),
// the one disk figure taken from the thread: with one dd on ext4, xfs and btrfs the
// media rate is the limit, and the model's six cells average the thread's six.
func checkDiskRate(t *testing.T, cases []*fcase) {
	var thread, got float64
	n := 0
	for _, fc := range cases {
		if fc.c.DD == 1 && strings.Contains(oneWriterTargetsFor, fc.c.FS) {
			thread += fc.thread
			got += fc.got
			n++
		}
	}
	require.Equal(t, 6, n, "one-writer cells on %s", oneWriterTargetsFor)
	thread, got = thread/float64(n), got/float64(n)
	t.Logf("one-writer mean: thread %.2f MB/s, wblab %.2f MB/s (%+.2f%%)", thread, got, (got-thread)/thread*100)
	// The thread's repeatability: the same one-writer case under every kernel of
	// T1-T6 (their patches change nothing a single writer's path runs in the model).
	for _, fc := range cases {
		if fc.c.DD != 1 || !strings.Contains(oneWriterTargetsFor, fc.c.FS) {
			continue
		}
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, v := range fc.columns {
			lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
		}
		mean := sum / float64(len(fc.columns))
		t.Logf("%s: T1 %.2f, %d kernels %.2f-%.2f (spread %.1f%%, mean %.2f); wblab %.2f (%+.1f%% of T1, %+.1f%% of the mean)",
			fc.name, fc.thread, len(fc.columns), lo, hi, (hi-lo)/mean*100, mean, fc.got, errPct(fc), (fc.got-mean)/mean*100)
	}
	assert.InDelta(t, 0, (got-thread)/thread*100, diskRateTolPct, "wu2011-hdd's media rate is calibrated on this mean")
}

// checkIssue17Targets checks the T1 targets against issue17Gaps.
func checkIssue17Targets(t *testing.T, cases []*fcase, mape float64) {
	missed := map[string]string{}
	if mape > targetMAPEPct {
		missed["mape"] = fmt.Sprintf("MAPE %.2f%% > %.0f%%", mape, targetMAPEPct)
	}
	var over []string
	fsErr, fsN := map[string]float64{}, map[string]int{}
	for _, fc := range cases {
		e := errPct(fc)
		if math.Abs(e) > targetCasePct {
			over = append(over, fmt.Sprintf("%s %+.1f%%", fc.name, e))
		}
		fsErr[fc.c.FS] += e
		fsN[fc.c.FS]++
		if fc.c.DD == 1 && strings.Contains(oneWriterTargetsFor, fc.c.FS) && math.Abs(e) > targetOneWriterPct {
			missed["1dd:"+fc.c.FS+"-"+strings.TrimPrefix(fc.c.Dir, "thresh=")] = fmt.Sprintf("%s %+.1f%% beyond ±%.0f%%", fc.name, e, targetOneWriterPct)
		}
	}
	if len(over) > 0 {
		missed["case"] = strings.Join(over, ", ")
	}
	for fs, sum := range fsErr {
		if m := sum / float64(fsN[fs]); math.Abs(m) > targetFSSignedPct {
			missed["fs:"+fs] = fmt.Sprintf("%s mean signed error %+.1f%%", fs, m)
		}
	}
	var skip []string
	for _, k := range slices.Sorted(maps.Keys(missed)) {
		why, known := issue17Gaps[k]
		if !known {
			t.Errorf("issue 17 target %s missed: %s", k, missed[k])
			continue
		}
		skip = append(skip, fmt.Sprintf("%s: %s (%s)", k, missed[k], why))
	}
	for _, k := range slices.Sorted(maps.Keys(issue17Gaps)) {
		if _, ok := missed[k]; !ok {
			t.Errorf("issue 17 target %s is reached now: remove it from issue17Gaps", k)
		}
	}
	if len(skip) > 0 && !t.Failed() {
		t.Skipf("issue 17 targets not reached: %s", strings.Join(skip, " | "))
	}
}

// TestCalibrationWu2011Baseline checks table T1's base column (issues 4 and 17),
// each case run with seeds 1..baselineSeeds; the bars are on the mean. The
// wu2011-hdd preset's media rate is calibrated on the column's six one-writer
// cells (disk-rate); the other eighteen cells, the ordering and trend checks
// below (ext3 slowest, the thread's 1dd → N dd drops) were not fitted.
func TestCalibrationWu2011Baseline(t *testing.T) {
	if testing.Short() {
		t.Skip("fidelity: 24 cases of 600 s; skipped with -short")
	}
	cases := loadBaseline(t)
	cfg, err := harness.ConfigForCase(cases[0].name)
	require.NoError(t, err)
	require.Equal(t, "wu2011-hdd", cfg.Disks[0].Device.Name, "a thread case runs on the thread's disk by default")

	start := time.Now()
	runAll(t, cases, baselineSeeds)
	wall := time.Since(start)
	t.Log(baselineTable(cases, wall))

	mape, worst := 0.0, 0.0
	for _, fc := range cases {
		mape += math.Abs(errPct(fc))
		worst = math.Max(worst, math.Abs(errPct(fc)))
	}
	mape /= float64(len(cases))
	assert.LessOrEqual(t, mape, maxMAEPct, "mean absolute error")
	t.Run("disk-rate", func(t *testing.T) { checkDiskRate(t, cases) })
	t.Run("issue17-targets", func(t *testing.T) { checkIssue17Targets(t, cases, mape) })
	for _, fc := range cases {
		assert.LessOrEqual(t, math.Abs(errPct(fc)), maxCasePct, "%s: thread %.2f, wblab %.2f", fc.name, fc.thread, fc.got)
	}

	// ext3 is the slowest filesystem at each threshold and dd count
	type key struct {
		dir string
		dd  int
	}
	groups := map[key][]*fcase{}
	for _, fc := range cases {
		k := key{fc.c.Dir, fc.c.DD}
		groups[k] = append(groups[k], fc)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].dir != keys[j].dir {
			return keys[i].dir < keys[j].dir
		}
		return keys[i].dd < keys[j].dd
	})
	for _, k := range keys {
		var ext3 *fcase
		for _, fc := range groups[k] {
			if fc.c.FS == "ext3" {
				ext3 = fc
			}
		}
		if ext3 == nil {
			continue
		}
		for _, fc := range groups[k] {
			if fc != ext3 {
				assert.Less(t, ext3.got, fc.got, "%s %ddd: ext3 (%.2f) must be slower than %s (%.2f)", k.dir, k.dd, ext3.got, fc.c.FS, fc.got)
			}
		}
	}

	// the thread's 1dd → N dd trend per filesystem and threshold: a drop of at least
	// flatPct in the thread is a drop of at least flatPct in wblab (its size is
	// held by the per-case bars above); a flat thread row stays within flatPct
	one := map[string]*fcase{}
	for _, fc := range cases {
		if fc.c.DD == 1 {
			one[fc.c.Dir+"/"+fc.c.FS] = fc
		}
	}
	for _, fc := range cases {
		base := one[fc.c.Dir+"/"+fc.c.FS]
		if fc.c.DD == 1 || base == nil {
			continue
		}
		dt := (fc.thread - base.thread) / base.thread * 100
		dm := (fc.got - base.got) / base.got * 100
		if math.Abs(dt) >= flatPct {
			assert.True(t, dm*dt > 0 && math.Abs(dm) >= flatPct,
				"%s %s 1→%ddd: thread %+.1f%%, wblab %+.1f%%", fc.c.Dir, fc.c.FS, fc.c.DD, dt, dm)
		} else {
			assert.Less(t, math.Abs(dm), flatPct,
				"%s %s 1→%ddd: thread flat (%+.1f%%), wblab %+.1f%%", fc.c.Dir, fc.c.FS, fc.c.DD, dt, dm)
		}
	}
}

// TestBaselineTablesEmbedded: the baseline rows come from the tables package
// harness embeds (no ../shared needed, also under CI=true): T1's 24 cases with
// the thread's base figure, each case with every kernel the tables give it for.
func TestBaselineTablesEmbedded(t *testing.T) {
	cases := loadBaseline(t)
	t1, err := harness.LookupMatrix("wu-2011-T1")
	require.NoError(t, err)
	require.Len(t, cases, len(t1.Rows))
	require.Len(t, cases, 24)
	for i, r := range t1.Rows {
		assert.Equal(t, r.Case, cases[i].name)
		assert.Equal(t, r.ThreadBaseMBps, cases[i].thread, r.Case)
		assert.Equal(t, r.ThreadTestMBps, cases[i].columns[t1.Test], r.Case)
		assert.GreaterOrEqual(t, len(cases[i].columns), 2, r.Case)
	}
	assert.Equal(t, 56.47, cases[0].thread, "btrfs 10dd 100M, the first row of T1")
}
