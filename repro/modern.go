package repro

import (
	"context"
	"fmt"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/stats"
	"github.com/wblab/wblab/harness"
	"strings"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// modern-vs-2011 (issue 9): the same harness cases on the Wu 2011 baseline kernel
// and on Linux 6.1 (kernel-notes "v6.x" paragraphs of §1-§3, §6.3), in the
// harness's compare table, with the figures that say what differs.
var modernVs2011 = Experiment{
	Name:   "modern-vs-2011",
	ID:     "modern",
	Title:  "2011 vs 6.1",
	Thread: "wu-2011-more_io_wait-thread.txt",
	Doc: "the same cases (1dd and 10dd on ext4, xfs, btrfs at 100M; a 1G case) on 3.1.0-rc9-ioless-full and " +
		"6.1 in the harness's compare table, with pauses, request size, queue and dirty age",
	Look: "The same case on the Wu 2011 baseline (v3.2 writeback) and on 6.1, which adds background writeback of every " +
		"dirty inode, requeue_inode, think-time compensated pauses and a blk-mq block layer with larger requests and blk-wbt. " +
		"Compare the pause chart, the request size and the device queue of A and B.",
	Mode: "ab", TestKernel: modernTest,
	Setup: func() (engine.Config, error) {
		c, err := harness.ConfigForCase(modernCases[1])
		c.Kernel = modernBase
		return c, err
	},
	run: runModernVs2011,
}

// modernBase and modernTest are the experiment's kernels.
const (
	modernBase = kernel.DefaultPreset
	modernTest = "6.1"
)

// modernCases are the experiment's cases (the Wu 2011 harness's names).
var modernCases = []string{
	"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/xfs-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/btrfs-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X",
	"thresh=1G/ext4-10dd-4k-8p-4096M-1024M:10-X",
}

// modernRow is one case on one kernel: the compare table's write_bw and what
// differs behind it.
type modernRow struct {
	res         *engine.Result
	pauses      int64
	meanPauseMs float64
}

func modernRowOf(r *engine.Result) modernRow {
	row := modernRow{res: r}
	var paused float64
	for _, t := range r.Tasks {
		row.pauses += t.Pauses
		paused += t.PausedS
	}
	if row.pauses > 0 {
		row.meanPauseMs = paused / float64(row.pauses) * 1000
	}
	return row
}

func runModernVs2011(ctx context.Context, quick bool) (*Report, error) {
	opt := harness.CompareOptions{}
	cases := modernCases
	if quick {
		opt.Runtime = engine.Duration(60 * sim.Second)
		cases = []string{modernCases[0], modernCases[3]}
	}
	var cfgs []engine.Config
	for _, name := range cases {
		for _, k := range []string{modernBase, modernTest} {
			c, err := harness.CompareConfig(name, k, opt)
			if err != nil {
				return nil, err
			}
			cfgs = append(cfgs, c)
		}
	}
	res, err := runAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	cmp := &harness.Comparison{Base: modernBase, Test: modernTest}
	rep := &Report{Figures: map[string]float64{}}
	var detail strings.Builder
	fmt.Fprintf(&detail, "%-46s %-7s %8s %8s %9s %8s %9s %9s\n", "case", "kernel", "write_bw", "pauses", "pause_ms",
		"avgrq_kb", "avgqu_sz", "dirty_age")
	for i, name := range cases {
		b, t := modernRowOf(res[2*i]), modernRowOf(res[2*i+1])
		bw, tw := b.res.WriteBWMBps, t.res.WriteBWMBps
		cmp.Rows = append(cmp.Rows, harness.CompareRow{Case: name, BaseMBps: bw, TestMBps: tw, DeltaPct: stats.DeltaPct(bw, tw)})
		cmp.TotalBaseMBps += bw
		cmp.TotalTestMBps += tw
		for _, r := range []struct {
			k   string
			row modernRow
		}{{"2011", b}, {"6.1", t}} {
			x := r.row.res
			fmt.Fprintf(&detail, "%-46s %-7s %8.2f %8d %9.1f %8.0f %9.1f %8.1fs\n", name, r.k, x.WriteBWMBps,
				r.row.pauses, r.row.meanPauseMs, x.Iostat.AvgRqSz/2, x.Iostat.AvgQuSz, x.DirtyAge.MeanS)
		}
		key := caseKey(name)
		rep.Figures[key+"_2011_MBps"] = bw
		rep.Figures[key+"_61_MBps"] = tw
		rep.Figures[key+"_delta_pct"] = stats.DeltaPct(bw, tw)
		rep.Figures[key+"_2011_avgqu"] = b.res.Iostat.AvgQuSz
		rep.Figures[key+"_61_avgqu"] = t.res.Iostat.AvgQuSz
		rep.Figures[key+"_2011_pause_ms"] = b.meanPauseMs
		rep.Figures[key+"_61_pause_ms"] = t.meanPauseMs
	}
	cmp.TotalDeltaPct = stats.DeltaPct(cmp.TotalBaseMBps, cmp.TotalTestMBps)
	rep.Figures["total_2011_MBps"] = cmp.TotalBaseMBps
	rep.Figures["total_61_MBps"] = cmp.TotalTestMBps
	rep.Figures["total_delta_pct"] = cmp.TotalDeltaPct
	rep.Text = cmp.Text() + "\n" + detail.String()
	return rep, nil
}

// caseKey turns "thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X" into
// "100M_ext4_10dd" for figure names.
func caseKey(name string) string {
	thresh, rest, _ := strings.Cut(strings.TrimPrefix(name, "thresh="), "/")
	parts := strings.Split(rest, "-")
	if len(parts) < 2 {
		return strings.NewReplacer("/", "_", "=", "_", ":", "_").Replace(name)
	}
	return thresh + "_" + parts[0] + "_" + parts[1]
}
