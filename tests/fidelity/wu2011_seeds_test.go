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
	"wu-2011-T1": {{"signs", "btrfs 10dd at 100M: under patches 1-4 the inodes that i_size updates redirty during " +
		"writeback go to b_more_io_wait (patch 2) and kupdate retries them early (patch 4), ~2000 extra passes with " +
		"smaller slices; the thread's +3.1 % needs a btrfs behaviour the model does not have (not identified)"}},
	"wu-2011-T2": {{"total", "T2 changes what happens to inodes with pages_skipped (patch 5 vs removing the " +
		"redirty_tail); in 3.1 ext3 skips pages when __block_write_full_page's trylock_buffer fails on buffers " +
		"kjournald holds for its data=ordered commit (the thread's ext3 1G cells +6.7 %, +8.7 %); the model's ext3 " +
		"->writepage never skips a page, so the path rarely runs (XFS ILOCK only)"}},
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

// tableRun is one matrix's measured figures.
type tableRun struct {
	m     *harness.Matrix
	rows  []stats.Summary // paired delta per case
	total stats.Summary   // paired TOTAL delta
	base  []stats.Summary // base write_bw per case
	test  []stats.Summary
	act   map[string]int64 // switch_activity summed over all the table's runs
}

// runTables runs every (case, kernel, seed) of the matrices once (the matrices
// share kernels and cases) through the engine's pool and pairs the deltas by seed.
func runTables(t *testing.T, names []string, runtimeS, seeds int) map[string]*tableRun {
	t.Helper()
	type key struct{ c, k string }
	idx := map[key]int{}
	var cfgs []engine.Config
	var keys []key
	for _, name := range names {
		m, err := harness.LookupMatrix(name)
		require.NoError(t, err)
		for _, c := range m.Cases() {
			for _, k := range []string{m.Base, m.Test} {
				kk := key{c, k}
				if _, ok := idx[kk]; ok {
					continue
				}
				cfg, err := harness.ConfigForCase(c)
				require.NoError(t, err)
				cfg.Kernel, cfg.Runtime = k, engine.Duration(time.Duration(runtimeS)*time.Second)
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
		totB, totT := make([]float64, seeds), make([]float64, seeds)
		for _, c := range m.Cases() {
			b, actB := bw(key{c, m.Base})
			tt, actT := bw(key{c, m.Test})
			for _, a := range append(actB, actT...) {
				for k, v := range a {
					tr.act[k] += v
				}
			}
			for s := range seeds {
				totB[s] += b[s]
				totT[s] += tt[s]
			}
			tr.rows = append(tr.rows, stats.PairedDeltaPct(b, tt))
			tr.base, tr.test = append(tr.base, stats.Of(b)), append(tr.test, stats.Of(tt))
		}
		tr.total = stats.PairedDeltaPct(totB, totT)
		out[name] = tr
	}
	return out
}

// TestFidelityWu2011TablesSeeds: for each of T1-T6, 5 seeds per kernel at 600 s:
//   - the thread's sign on every cell where the thread's |delta| >= 3 % and the
//     model's delta is outside the noise (its 95 % CI, paired by seed, excludes 0);
//   - the TOTAL within ±1.5 points of the thread's over the same cases;
//   - no table where the two kernels give identical runs in every cell.
func TestFidelityWu2011TablesSeeds(t *testing.T) {
	runtimeS, seeds := runtimeS, tableSeeds
	if testing.Short() {
		t.Skip("fidelity: T1-T6 x 5 seeds x 2 kernels of 600 s; skipped with -short")
	}
	tables := runTables(t, harness.Matrices(), runtimeS, seeds)
	for _, name := range harness.Matrices() {
		t.Run(name, func(t *testing.T) {
			tr := tables[name]
			var b strings.Builder
			fmt.Fprintf(&b, "\n%s (%s vs %s), %d seeds:\n%8s %20s  %s\n", name, tr.m.Base, tr.m.Test, seeds, "thread", "wblab ±CI95 [min,max]", "case")
			var failures []string
			n, agree, identical := 0, 0, 0
			for i, row := range tr.m.Rows {
				d := tr.rows[i]
				fmt.Fprintf(&b, "%+7.1f%% %8s ±%4.1f [%+5.1f,%+5.1f]  %s\n", row.ThreadDeltaPct,
					stats.FormatDeltaPct(d), d.CI95, d.Min, d.Max, row.Case)
				if d.Min == 0 && d.Max == 0 {
					identical++
				}
				if math.Abs(row.ThreadDeltaPct) < signPct {
					continue
				}
				n++
				sameSign := d.Mean*row.ThreadDeltaPct > 0
				if sameSign {
					agree++
				}
				if !d.InNoise() && !sameSign {
					failures = append(failures, fmt.Sprintf("signs: %s thread %+.1f%%, wblab %+.2f%% ±%.2f (outside the noise, wrong sign)",
						row.Case, row.ThreadDeltaPct, d.Mean, d.CI95))
				}
			}
			thr := tr.m.ThreadTotalDeltaPct()
			fmt.Fprintf(&b, "TOTAL thread %+.2f%%, wblab %+.2f%% ±%.2f [%+.2f, %+.2f]; signs %d of %d cells with |thread| >= %.0f%%; %d of %d cells identical runs\n",
				thr, tr.total.Mean, tr.total.CI95, tr.total.Min, tr.total.Max, agree, n, signPct, identical, len(tr.m.Rows))
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
