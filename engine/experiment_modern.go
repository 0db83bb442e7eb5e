package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// modern-vs-2011 (issue 9): the same harness cases on the Wu 2011 baseline kernel
// and on Linux 6.1 (kernel-notes "v6.x" paragraphs of §1-§3, §6.3), in the
// harness's compare table, with the figures that say what differs.
func init() {
	registerExperiment(&Experiment{
		Name:   "modern-vs-2011",
		Thread: "wu-2011-more_io_wait-thread.txt",
		Doc: "the same cases (1dd and 10dd on ext4, xfs, btrfs at 100M; a 1G case) on 3.1.0-rc9-ioless-full and " +
			"6.1 in the harness's compare table, with pauses, request size, queue and dirty age",
		run: runModernVs2011,
	})
}

// ModernVs2011Base and ModernVs2011Test are the experiment's kernels.
const (
	ModernVs2011Base = kernel.DefaultPreset
	ModernVs2011Test = "6.1"
)

// ModernVs2011Cases are the experiment's cases (the Wu 2011 harness's names).
var ModernVs2011Cases = []string{
	"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/xfs-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/btrfs-1dd-4k-8p-4096M-100M:10-X",
	"thresh=100M/btrfs-10dd-4k-8p-4096M-100M:10-X",
	"thresh=1G/ext4-10dd-4k-8p-4096M-1024M:10-X",
}

// ModernVs2011Explanation is the page's short explanation of what changed between
// the two kernels and why it matters.
const ModernVs2011Explanation = `What changed from 2011 (v3.2 writeback, IO-less throttling) to 6.1, and why it matters:
- Block layer: blk-mq with mq-deadline replaces the legacy queue with cfq; requests grow
  from 512 KiB to 1280 KiB (max_sectors_kb) and plugs flush at 32 requests or 128 KiB.
  Fewer, larger requests mean fewer seeks between the dd files on the disk.
- blk-wbt is on: the flusher's background writes are held to the wbt limits (16/8/4 at
  step 0), so the device queue is ~16 deep instead of ~110 (NCQ 31 plus the elevator's
  pools) and a read waits behind far less write backlog; with reads over the latency
  target wbt scales down to max_depth 2, where v6 keeps normal = 2, background = 1.
- Writeback: background work takes dirtied_before = jiffies on every loop (inodes
  dirtied after the work started are written too), I_SYNC_QUEUED, requeue_inode(),
  the I_SYNC check in writeback_sb_inodes, the wb_workfn work item and bandwidth
  updates from do_writepages and IO completion. With streaming dd these change little.
- Throttling: think-time compensation (time a dd spends outside balance_dirty_pages
  counts towards its pause), wb_min_pause (no sleep below ~10 ms, virtual time
  instead), wb_max_pause from the bdi's dirty pool, the clamped pos_ratio polynom and
  the capped balanced rate: fewer, steadier pauses for the same rate.
- Throughput (write_bw) moves with the block layer only. With every writeback and
  throttling switch of 6.1 turned off (--variants), ext4 1dd's write_bw is unchanged;
  wbt's ~16-deep queue costs the single stream and btrfs 10dd a few percent on this
  HDD, while ext4/xfs 10dd gain from fewer, larger requests between the files. The
  writeback and throttling changes show in the pause count and length, not in MB/s.`

// modernRow is one case on one kernel: the compare table's write_bw and what
// differs behind it.
type modernRow struct {
	res         *Result
	pauses      int64
	meanPauseMs float64
}

func modernRowOf(r *Result) modernRow {
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

func runModernVs2011(ctx context.Context, quick bool) (*ExperimentReport, error) {
	opt := CompareOptions{}
	cases := ModernVs2011Cases
	if quick {
		opt.Runtime = Duration(60 * sim.Second)
		cases = []string{ModernVs2011Cases[0], ModernVs2011Cases[3]}
	}
	var cfgs []Config
	for _, name := range cases {
		for _, k := range []string{ModernVs2011Base, ModernVs2011Test} {
			c, err := compareConfig(name, k, opt)
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
	cmp := &Comparison{Base: ModernVs2011Base, Test: ModernVs2011Test}
	rep := &ExperimentReport{Figures: map[string]float64{}}
	var detail strings.Builder
	fmt.Fprintf(&detail, "%-46s %-7s %8s %8s %9s %8s %9s %9s\n", "case", "kernel", "write_bw", "pauses", "pause_ms",
		"avgrq_kb", "avgqu_sz", "dirty_age")
	for i, name := range cases {
		b, t := modernRowOf(res[2*i]), modernRowOf(res[2*i+1])
		bw, tw := b.res.WriteBWMBps, t.res.WriteBWMBps
		cmp.Rows = append(cmp.Rows, CompareRow{Case: name, BaseMBps: bw, TestMBps: tw, DeltaPct: deltaPct(bw, tw)})
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
		rep.Figures[key+"_delta_pct"] = deltaPct(bw, tw)
		rep.Figures[key+"_2011_avgqu"] = b.res.Iostat.AvgQuSz
		rep.Figures[key+"_61_avgqu"] = t.res.Iostat.AvgQuSz
		rep.Figures[key+"_2011_pause_ms"] = b.meanPauseMs
		rep.Figures[key+"_61_pause_ms"] = t.meanPauseMs
	}
	cmp.TotalDeltaPct = deltaPct(cmp.TotalBaseMBps, cmp.TotalTestMBps)
	rep.Figures["total_2011_MBps"] = cmp.TotalBaseMBps
	rep.Figures["total_61_MBps"] = cmp.TotalTestMBps
	rep.Figures["total_delta_pct"] = cmp.TotalDeltaPct
	rep.Text = cmp.Text() + "\n" + detail.String() + "\n" + ModernVs2011Explanation + "\n"
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
