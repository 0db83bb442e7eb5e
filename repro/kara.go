package repro

import (
	"context"
	"fmt"
	"github.com/wblab/wblab/engine"
	"strings"

	"github.com/wblab/wblab/devices"
)

// Kara/Axboe 2016 (../shared/threads/kara-2016-wbt-ext3-discussion.txt): "dd
// if=/dev/zero of=/mnt/file bs=1M count=10000 conv=fsync — Runtime: 105.126
// 107.125 105.641" on ext3 with wbt; the journal thread ends up doing more of the
// data writeback; "when I repeat the same test with ext4, the numbers with and
// without your patch are exactly the same".
var kara2016 = Experiment{
	Name:   "kara-2016",
	ID:     "kara2016",
	Title:  "Kara 2016",
	Thread: "kara-2016-wbt-ext3-discussion.txt",
	Doc: "dd bs=1M count=10000 conv=fsync on kara2016-qd1, ext3 (data=ordered) and ext4, kernels 4.6 / 4.6+wbt / " +
		"4.6+wbt+qd1: runtime (thread: ~105 s ext3+wbt) and the journal thread's share of data pages",
	Look: "dd bs=1M count=10000 conv=fsync on ext3 to a queue-depth-1 disk: blk-wbt with the QD=1 patch throttles the " +
		"flusher's background writes, so ext3's kjournald ends up writing the data with its commits. " +
		"Compare the \"dd finished in\" card of A and B, the blk-wbt chart and the kjournald CPU.",
	Mode: "ab", TestKernel: "4.6+wbt+qd1",
	Setup: func() (engine.Config, error) { return karaConfig("4.6", "ext3", 10000) },
	run:   runKara2016,
}

var karaKernels = []string{"4.6", "4.6+wbt", "4.6+wbt+qd1"}

// karaOutcome is one run: dd's runtime and who wrote the data pages.
type karaOutcome struct {
	runtimeS      float64
	journalPages  int64
	flusherPages  int64
	otherPages    int64
	res           *engine.Result
	wbtFinalLimit string
}

func karaConfig(kernel, fs string, count int64) (engine.Config, error) {
	c := engine.DefaultConfig()
	dev, err := devices.Preset("kara2016-qd1")
	if err != nil {
		return c, err
	}
	c.Disks[0].Device, c.Kernel, c.Disks[0].Filesystem = dev, kernel, fs
	c.CPUs, c.MemoryMB = 8, 4096
	// The thread does not give the machine's memory or dirty limits: 4 GB and the
	// v4.6 default vm.dirty_ratio=20, dirty_background_ratio=10 are assumed.
	c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
	c.Disks[0].Workload = engine.Workload{DD: 1, BS: 1 << 20, Count: count, Fsync: true}
	c.Runtime = engine.Duration(count * 1e8) // ≥ 10 MB/s
	c.Case = fmt.Sprintf("kara-2016/%s-%dM-fsync", fs, count)
	return c, nil
}

// runKaraOne runs one config and splits the submitted data pages by thread comm:
// the journal thread (kjournald / jbd2), the flusher (flush-*), the rest (dd's fsync).
func runKaraOne(ctx context.Context, cfg engine.Config) (karaOutcome, error) {
	m, err := engine.Build(cfg, engine.BuildOptions{})
	if err != nil {
		return karaOutcome{}, err
	}
	if err := m.Run(ctx); err != nil {
		return karaOutcome{}, err
	}
	var o karaOutcome
	for _, th := range m.Kernel().Threads() {
		n := th.Stats.PagesSubmitted
		switch comm := th.Task.Comm; {
		case strings.HasPrefix(comm, "kjournald"), strings.HasPrefix(comm, "jbd2"):
			o.journalPages += n
		case strings.HasPrefix(comm, "flush-"):
			o.flusherPages += n
		default:
			o.otherPages += n
		}
	}
	o.res = m.Result()
	if len(o.res.Tasks) > 0 {
		o.runtimeS = o.res.Tasks[0].RuntimeS
	}
	return o, nil
}

func (o karaOutcome) journalShare() float64 {
	if t := o.journalPages + o.flusherPages + o.otherPages; t > 0 {
		return float64(o.journalPages) / float64(t)
	}
	return 0
}

func runKara2016(ctx context.Context, quick bool) (*Report, error) {
	count := int64(10000)
	if quick {
		count = 2000
	}
	type job struct{ fs, kernel string }
	var jobs []job
	for _, fs := range []string{"ext3", "ext4"} {
		for _, k := range karaKernels {
			jobs = append(jobs, job{fs, k})
		}
	}
	out := make([]karaOutcome, len(jobs))
	errs := make([]error, len(jobs))
	parallel(len(jobs), func(i int) {
		j := jobs[i]
		cfg, err := karaConfig(j.kernel, j.fs, count)
		if err == nil {
			out[i], err = runKaraOne(ctx, cfg)
		}
		errs[i] = err
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s on %s: %w", jobs[i].kernel, jobs[i].fs, err)
		}
	}
	f := map[string]float64{"count_MB": float64(count)}
	suffix := []string{"", "_wbt", "_wbt_qd1"}
	var b strings.Builder
	fmt.Fprintf(&b, "kara-2016: dd bs=1M count=%d conv=fsync on kara2016-qd1 (thread: ~105 s ext3 with wbt)\n", count)
	fmt.Fprintf(&b, "%-5s %-12s %10s %14s %14s %14s\n", "fs", "kernel", "runtime", "journal pages", "flusher pages", "journal share")
	for i, j := range jobs {
		o := out[i]
		key := j.fs + suffix[i%3]
		f[key+"_s"] = o.runtimeS
		f[key+"_journal_share"] = o.journalShare()
		fmt.Fprintf(&b, "%-5s %-12s %8.1f s %14d %14d %13.1f%%\n", j.fs, j.kernel, o.runtimeS, o.journalPages, o.flusherPages, 100*o.journalShare())
	}
	return &Report{Figures: f, Text: b.String()}, nil
}
