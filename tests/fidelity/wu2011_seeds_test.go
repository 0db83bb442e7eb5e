package fidelity

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/harness"
)

// Bars for the Wu 2011 tables with seeds (issue 14, item 5).
const (
	tableSeeds = 5   // seeds per case and kernel
	signPct    = 3.0 // a thread delta this large must have its sign where the model's is outside the noise
	totalPts   = 1.5 // the TOTAL within this many points of the thread's
)

// tableGap is a figure the model cannot reach yet: the test skips it with the
// measured figure and the reason, and fails once the figure is reached (so the
// entry is removed and the bar holds from then on).
type tableGap struct {
	criterion string // "total", "signs" or "identical"
	reason    string
}

// tableGaps are the known gaps, by matrix (measured with 5 seeds at 600 s).
var tableGaps = map[string][]tableGap{
	"wu-2011-T2": {{"total", "T2 changes what happens to inodes with pages_skipped (patch 5 vs removing the " +
		"redirty_tail); in 3.1 ext3 skips pages when __block_write_full_page's trylock_buffer fails on buffers " +
		"kjournald holds for its data=ordered commit (the thread's ext3 1G cells +6.7 %, +8.7 %); the model's ext3 " +
		"->writepage skips pages only with the switch ext3_jbd_buffers, in no preset: with it (5 seeds) T2's TOTAL is " +
		"-9.66 %, ext3 1dd/2dd 100M -49.9 %/-45.8 % (thread +0.8/+1.2), 1G 1dd/10dd +0.0/+0.7 % (thread +8.7/+6.7), " +
		"so without it the path rarely runs (XFS ILOCK only)"}},
}

// cannotFire names, per matrix, why the paths its kernels differ in cannot fire
// in these cases, and the switch_activity counters that must stay zero in every
// run for that to hold: such a table may give identical runs.
var cannotFire = map[string]struct {
	reason   string
	counters []string
}{
	"wu-2011-T3": {"Kara's patch changes only what WB_SYNC_NONE writeback does with an inode another task " +
		"holds under I_SYNC; in a dd workload only the flusher writes inodes back (IO-less balance_dirty_pages " +
		"writes nothing, no sync or fsync), so writeback_single_inode never finds I_SYNC set",
		[]string{"i_sync_skip", "requeue_io.i_sync", "requeue_io_wait.i_sync", "wb_writeback.no_progress_more_io"}},
}

// notFired names, for a cell where both kernels give identical runs although
// the thread's delta is at least harness.MinThreadDeltaPct, why the kernels'
// difference does not reach the result, and how many times (over both kernels
// and all seeds) the paths of the switches they differ in ran when this was
// measured. The test fails when a cell's count moves: the reason then has to be
// looked at again.
type notFired struct {
	maxRuns int64
	reason  string
}

const (
	whyExt3NoSkip = "ext3's ->writepage never leaves pages_skipped in the model (see the T2 gap), nothing " +
		"stops its writeback short of the slice and grab_super_passive never fails: none of the changed paths run"
	whyXFS100dd = "100 dd on XFS at 1G: ->writepage's ILOCK trylock never fails in 10 runs of 600 s (9 times " +
		"before the 100 GB partition's free space held only 93 of the 100 allocsize windows, issue 17): none of the changed paths run"
	whyXFS1dd = "one XFS dd: ->writepage's ILOCK trylock skips pages a few times per run, and ->write_inode " +
		"fails with EAGAIN after most passes (the inode is flush-locked until xfsbufd writes its cluster " +
		"buffer, or pinned in the log by its allocation); but the inode always has dirty pages left when " +
		"its slice ends, so both kernels requeue_io it, and it is the only dirty inode: the flusher's next pass " +
		"writes it either way"
)

var notFiredWhy = map[string]map[string]notFired{
	"wu-2011-T1": {"thresh=100M/xfs-1dd-4k-8p-4096M-100M:10-X": {20678, whyXFS1dd}},
	"wu-2011-T2": {
		"thresh=1G/ext3-10dd-4k-8p-4096M-1024M:10-X": {0, whyExt3NoSkip},
		"thresh=1G/ext3-1dd-4k-8p-4096M-1024M:10-X":  {0, whyExt3NoSkip},
		"thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X": {0, whyXFS100dd},
	},
	"wu-2011-T4": {
		"thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-X": {0, "one ext4 dd: ext4_da_writepages never leaves " +
			"pages_skipped in the model and grab_super_passive never fails, so the paths of patch 7 and of the " +
			"pages_skipped change never run"},
		"thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X": {0, whyXFS100dd},
	},
	"wu-2011-T5": {"thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-X": {240, whyXFS1dd}},
}

// pathRuns sums, over act, the runs of the counted paths of the switches in which
// base and test differ, and names the paths that ran.
func pathRuns(t *testing.T, base, test string, act map[string]int64) (int64, string) {
	t.Helper()
	bp, err := kernel.LookupPreset(base)
	require.NoError(t, err)
	tp, err := kernel.LookupPreset(test)
	require.NoError(t, err)
	changed := map[string]bool{}
	for _, name := range kernel.VariantNames() {
		a, _ := bp.Variants.Get(name)
		b, _ := tp.Variants.Get(name)
		changed[name] = a != b
	}
	var n int64
	var ran []string
	for _, p := range kernel.ActivityPaths() {
		for _, s := range p.Switches {
			if changed[s] {
				n += act[p.Name]
				if act[p.Name] > 0 {
					ran = append(ran, fmt.Sprintf("%s %d", p.Name, act[p.Name]))
				}
				break
			}
		}
	}
	return n, strings.Join(ran, ", ")
}

// tableRun is one matrix's measured figures.
type tableRun struct {
	m        *harness.Matrix
	rows     []stats.Summary // paired delta per case
	total    stats.Summary   // paired TOTAL delta
	ctl      []stats.Summary // control: base against itself, seeds harness.ControlSeedOffset on
	ctlTotal stats.Summary
	base     []stats.Summary // base write_bw per case
	test     []stats.Summary
	act      map[string]int64   // switch_activity summed over all the table's runs
	caseAct  []map[string]int64 // per case, over both kernels and all seeds
}

// runTables runs every (case, kernel, seed) of the matrices once (the matrices
// share kernels and cases), and each matrix's base kernel again as its control,
// through the engine's pool, and pairs the deltas by seed.
func runTables(t *testing.T, names []string, runtimeS, seeds int) map[string]*tableRun {
	t.Helper()
	type key struct {
		c, k string
		off  uint64 // seed offset: harness.ControlSeedOffset for the control's second run
	}
	idx := map[key]int{}
	var cfgs []engine.Config
	var keys []key
	for _, name := range names {
		m, err := harness.LookupMatrix(name)
		require.NoError(t, err)
		for _, c := range m.Cases() {
			for _, kk := range []key{{c, m.Base, 0}, {c, m.Test, 0}, {c, m.Base, harness.ControlSeedOffset}} {
				if _, ok := idx[kk]; ok {
					continue
				}
				cfg, err := harness.ConfigForCase(c)
				require.NoError(t, err)
				cfg.Kernel, cfg.Runtime = kk.k, engine.Duration(time.Duration(runtimeS)*time.Second)
				cfg.Seed += kk.off
				idx[kk] = len(keys)
				keys = append(keys, kk)
				cfgs = append(cfgs, engine.SeedConfigs(cfg, seeds)...)
			}
		}
	}
	start := time.Now()
	res, err := engine.RunAll(context.Background(), cfgs)
	require.NoError(t, err)
	t.Logf("%d runs (%d cases x kernels x %d seeds) of %d s in %s wall on %d CPUs",
		len(cfgs), len(keys), seeds, runtimeS, time.Since(start).Round(time.Millisecond), runtime.GOMAXPROCS(0))
	bw := func(k key) ([]float64, []map[string]int64) {
		i := idx[k] * seeds
		out, act := make([]float64, seeds), make([]map[string]int64, seeds)
		for s := range seeds {
			out[s], act[s] = res[i+s].WriteBWMBps, res[i+s].SwitchActivity
		}
		return out, act
	}
	out := map[string]*tableRun{}
	for _, name := range names {
		m, _ := harness.LookupMatrix(name)
		tr := &tableRun{m: m, act: map[string]int64{}}
		totB, totT, totC := make([]float64, seeds), make([]float64, seeds), make([]float64, seeds)
		for _, c := range m.Cases() {
			b, actB := bw(key{c, m.Base, 0})
			tt, actT := bw(key{c, m.Test, 0})
			ctl, _ := bw(key{c, m.Base, harness.ControlSeedOffset})
			ca := map[string]int64{}
			for _, a := range append(actB, actT...) {
				for k, v := range a {
					tr.act[k] += v
					ca[k] += v
				}
			}
			tr.caseAct = append(tr.caseAct, ca)
			for s := range seeds {
				totB[s] += b[s]
				totT[s] += tt[s]
				totC[s] += ctl[s]
			}
			tr.rows = append(tr.rows, stats.PairedDeltaPct(b, tt))
			tr.ctl = append(tr.ctl, stats.PairedDeltaPct(b, ctl))
			tr.base, tr.test = append(tr.base, stats.Of(b)), append(tr.test, stats.Of(tt))
		}
		tr.total = stats.PairedDeltaPct(totB, totT)
		tr.ctlTotal = stats.PairedDeltaPct(totB, totC)
		out[name] = tr
	}
	return out
}

// TestFidelityWu2011TablesSeeds: for each of T1-T6, 5 seeds per kernel at 600 s,
// and a control (the base kernel against itself with other seeds):
//   - the thread's sign on every cell where the thread's |delta| >= 3 % and the
//     model's delta is beyond the control (harness.BeyondControl);
//   - the TOTAL within ±1.5 points of the thread's over the same cases;
//   - no cell with the thread's |delta| >= 3 % where the two kernels give
//     identical runs, unless notFiredWhy names why, with the path counts that
//     reason was measured on;
//   - no table where the two kernels give identical runs in every cell.
func TestFidelityWu2011TablesSeeds(t *testing.T) {
	runtimeS, seeds := runtimeS, tableSeeds
	if testing.Short() {
		t.Skip("fidelity: T1-T6 x 5 seeds x 3 runs of 600 s; skipped with -short")
	}
	tables := runTables(t, harness.Matrices(), runtimeS, seeds)
	for _, name := range harness.Matrices() {
		t.Run(name, func(t *testing.T) {
			tr := tables[name]
			var b strings.Builder
			fmt.Fprintf(&b, "\n%s (%s vs %s), %d seeds; control %s vs itself (* beyond the control):\n%8s %20s %9s  %s\n",
				name, tr.m.Base, tr.m.Test, seeds, tr.m.Base, "thread", "wblab ±CI95 [min,max]", "control", "case")
			var failures []string
			n, agree, identical, beyond := 0, 0, 0, 0
			cmp := &harness.Comparison{Base: tr.m.Base, Test: tr.m.Test, Seeds: seeds}
			why := map[string]string{}
			for i, row := range tr.m.Rows {
				d, ctl := tr.rows[i], tr.ctl[i]
				r := harness.CompareRow{Case: row.Case, BaseMBps: tr.base[i].Mean, TestMBps: tr.test[i].Mean, DeltaPct: d.Mean,
					SeedStats:      harness.SeedStats{Base: tr.base[i], Test: tr.test[i], Delta: d},
					ThreadDeltaPct: row.ThreadDeltaPct}
				cmp.Rows = append(cmp.Rows, r)
				bc := harness.BeyondControl(r, harness.CompareRow{DeltaPct: ctl.Mean, SeedStats: harness.SeedStats{Delta: ctl}})
				mark := " "
				if bc {
					mark = "*"
					beyond++
				}
				fmt.Fprintf(&b, "%+7.1f%% %8s ±%4.1f [%+5.1f,%+5.1f]%s %+8.2f%%  %s\n", row.ThreadDeltaPct,
					stats.FormatDeltaPct(d), d.CI95, d.Min, d.Max, mark, ctl.Mean, row.Case)
				if d.Min == 0 && d.Max == 0 {
					identical++
				}
				if nf, ok := notFiredWhy[name][row.Case]; ok {
					why[row.Case] = nf.reason
					got, ran := pathRuns(t, tr.m.Base, tr.m.Test, tr.caseAct[i])
					if got != nf.maxRuns {
						t.Errorf("%s %s: the paths the kernels differ in ran %d times (%s; notFiredWhy was measured at %d): "+
							"check the reason again and update the entry: %s", name, row.Case, got, ran, nf.maxRuns, nf.reason)
					}
					t.Logf("%s %s: identical runs expected (%s): %s", name, row.Case, ran, nf.reason)
				}
				if math.Abs(row.ThreadDeltaPct) < signPct {
					continue
				}
				n++
				sameSign := d.Mean*row.ThreadDeltaPct > 0
				if sameSign {
					agree++
				}
				if bc && !sameSign {
					failures = append(failures, fmt.Sprintf("signs: %s thread %+.1f%%, wblab %+.2f%% ±%.2f, control %+.2f%% ±%.2f (beyond the control, wrong sign)",
						row.Case, row.ThreadDeltaPct, d.Mean, d.CI95, ctl.Mean, ctl.CI95))
				}
			}
			if _, ok := cannotFire[name]; !ok {
				for _, err := range harness.NotFired(cmp, why) {
					t.Errorf("%s: %v", name, err)
				}
			}
			thr := tr.m.ThreadTotalDeltaPct()
			fmt.Fprintf(&b, "TOTAL thread %+.2f%%, wblab %+.2f%% ±%.2f [%+.2f, %+.2f], control %+.2f%% ±%.2f; "+
				"signs %d of %d cells with |thread| >= %.0f%%; %d of %d cells beyond the control; %d of %d cells identical runs\n",
				thr, tr.total.Mean, tr.total.CI95, tr.total.Min, tr.total.Max, tr.ctlTotal.Mean, tr.ctlTotal.CI95,
				agree, n, signPct, beyond, len(tr.m.Rows), identical, len(tr.m.Rows))
			t.Log(b.String())
			if math.Abs(tr.total.Mean-thr) > totalPts {
				failures = append(failures, fmt.Sprintf("total: TOTAL %+.2f%% ±%.2f, thread %+.2f%% (bar ±%.1f points)", tr.total.Mean, tr.total.CI95, thr, totalPts))
			}
			if cf, ok := cannotFire[name]; ok {
				for _, c := range cf.counters {
					if tr.act[c] != 0 {
						t.Errorf("%s: the reason given for identical runs does not hold: %s ran %d times (%s)", name, c, tr.act[c], cf.reason)
					}
				}
				if identical == len(tr.m.Rows) {
					t.Logf("%s: identical runs in every cell: %s", name, cf.reason)
				}
			} else if identical == len(tr.m.Rows) {
				failures = append(failures, "identical: the two kernels give identical runs in every cell")
			}
			checkGaps(t, name, failures)
		})
	}
}

// checkGaps fails on a failure no gap names, fails on a gap whose figure is now
// reached, and skips with the figures and reasons of the gaps that remain.
func checkGaps(t *testing.T, name string, failures []string) {
	t.Helper()
	gaps := map[string]tableGap{}
	for _, g := range tableGaps[name] {
		gaps[g.criterion] = g
	}
	open := map[string][]string{}
	for _, f := range failures {
		crit := f[:strings.Index(f, ":")]
		if _, ok := gaps[crit]; !ok {
			t.Errorf("%s %s", name, f)
			continue
		}
		open[crit] = append(open[crit], f)
	}
	var skip []string
	crits := make([]string, 0, len(gaps))
	for c := range gaps {
		crits = append(crits, c)
	}
	sort.Strings(crits)
	for _, c := range crits {
		if len(open[c]) == 0 {
			t.Errorf("%s: the known gap %q is reached now: remove it from tableGaps", name, c)
			continue
		}
		skip = append(skip, fmt.Sprintf("%s (%s)", strings.Join(open[c], "; "), gaps[c].reason))
	}
	if len(skip) > 0 && !t.Failed() {
		t.Skipf("%s: not reached yet: %s", name, strings.Join(skip, " | "))
	}
}
