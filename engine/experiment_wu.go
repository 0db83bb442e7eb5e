package engine

import (
	"context"
	"fmt"
	"strings"
)

// Wu 2011 (../shared/threads/wu-2011-more_io_wait-thread.txt): the comparison
// tables T1-T6 (see Compare / the wu-2011-T* matrices) and the starvation behind
// patch 2: "For files on XFS that constantly get appended to calling redirty_tail
// means they will never get their updated i_size written out."
func init() {
	registerExperiment(&Experiment{
		Name:   "wu-2011",
		Thread: "wu-2011-more_io_wait-thread.txt",
		Doc: "table T1 (ioless-full vs more_io_wait-5, thread: TOTAL +1.2%) and the XFS inode metadata " +
			"starvation (max dirty age of inode metadata, baseline vs patches 1-4); T1-T6 via wblab compare --matrix",
		run: runWu2011,
	})
}

// wuStarvationCase is XFS with 100 appending writers, whose ->write_inode fails with
// EAGAIN when IO completion holds the ILOCK (the xfs model's seeded contention).
const wuStarvationCase = "thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X"

func runWu2011(ctx context.Context, quick bool) (*ExperimentReport, error) {
	opt := CompareOptions{}
	if quick {
		opt.Runtime = Duration(60e9)
	}
	m, err := LookupMatrix("wu-2011-T1")
	if err != nil {
		return nil, err
	}
	t1, err := CompareMatrix(ctx, m, "", "", opt)
	if err != nil {
		return nil, err
	}
	var cfgs []Config
	for _, k := range []string{m.Base, m.Test} {
		c, err := compareConfig(wuStarvationCase, k, opt)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, c)
	}
	res, err := runAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	f := map[string]float64{
		"t1_total_delta_pct":         t1.TotalDeltaPct,
		"thread_t1_total_delta_pct":  t1.ThreadTotalDeltaPct,
		"baseline_max_inode_age_s":   res[0].DirtyAge.MaxMetaS,
		"patched_max_inode_age_s":    res[1].DirtyAge.MaxMetaS,
		"baseline_max_dirty_age_s":   res[0].DirtyAge.MaxS,
		"patched_max_dirty_age_s":    res[1].DirtyAge.MaxS,
		"baseline_busy_loops":        float64(res[0].BusyLoops),
		"patched_busy_loops":         float64(res[1].BusyLoops),
		"t1_total_base_MBps":         t1.TotalBaseMBps,
		"t1_total_test_MBps":         t1.TotalTestMBps,
		"starvation_runtime_s":       res[0].RuntimeS,
		"thread_t1_total_delta_full": 1.2,
	}
	var b strings.Builder
	b.WriteString("wu-2011 table T1 (thread: +1.2% with the thresh=8M rows, +1.0% over these cases)\n")
	b.WriteString(t1.Text())
	fmt.Fprintf(&b, "\ninode metadata starvation, %s:\n", wuStarvationCase)
	fmt.Fprintf(&b, "  max dirty age of inode metadata: %s %.1f s, %s %.1f s\n", m.Base, res[0].DirtyAge.MaxMetaS, m.Test, res[1].DirtyAge.MaxMetaS)
	return &ExperimentReport{Figures: f, Text: b.String()}, nil
}
