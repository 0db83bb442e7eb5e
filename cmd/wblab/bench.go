package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

func init() {
	commands["bench"] = command{
		usage: "wblab bench [--case NAME,...] [--runs N]  time the representative cases (PERFORMANCE.md)",
		help:  benchHelp,
		run:   benchCmd,
	}
}

const benchHelp = `Usage: wblab bench [flags]

Runs the representative cases (the same as "go test -bench Case ./engine") one after
the other and prints, per case: simulated seconds, wall seconds (the fastest of
--runs), simulated seconds per wall second, events, events per wall second, heap
allocations and bytes per run, and the peak live heap during the run.

  --case LIST   comma-separated case names (default all); --list shows them
  --runs N      runs per case, the fastest counts (default 3)
  --scale       add the scaling series: dd count 1-1000, simulated time, threshold
  --list        list the case names and exit

Wall time depends on the machine and its load; simulated results do not.
`

// benchRow is one measured case.
type benchRow struct {
	name            string
	simS, wallS     float64
	events          uint64
	allocs, bytes   uint64
	peakHeapMB      float64
	writtenMB, bwMB float64
}

// heapLive reads the live heap (objects) without stopping the world.
func heapLive(s []metrics.Sample) uint64 {
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		return s[0].Value.Uint64()
	}
	return 0
}

// benchOne runs cfg runs times: the fastest wall time, the allocations of one run,
// and (in a separate run, sampled at every time-series row) the peak live heap.
func benchOne(ctx context.Context, name string, cfg engine.Config, runs int) (benchRow, error) {
	row := benchRow{name: name, simS: time.Duration(cfg.Runtime).Seconds()}
	var ms0, ms1 runtime.MemStats
	for i := range runs {
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		res, err := engine.Run(ctx, cfg)
		wall := time.Since(start).Seconds()
		runtime.ReadMemStats(&ms1)
		if err != nil {
			return row, err
		}
		if i == 0 || wall < row.wallS {
			row.wallS = wall
		}
		row.events, row.writtenMB, row.bwMB = res.Events, res.WrittenMB, res.WriteBWMBps
		row.allocs, row.bytes = ms1.Mallocs-ms0.Mallocs, ms1.TotalAlloc-ms0.TotalAlloc
	}
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	base := heapLive(s)
	peak := base
	_, err := engine.RunWith(ctx, cfg, engine.RunOptions{Progress: func(done, total engine.Time) {
		peak = max(peak, heapLive(s))
	}})
	row.peakHeapMB = float64(peak-min(base, peak)) / (1 << 20)
	return row, err
}

func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	runs := fs.Int("runs", 3, "")
	only := fs.String("case", "", "")
	scale := fs.Bool("scale", false, "")
	list := fs.Bool("list", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, benchHelp)
			return exitOK
		}
		fmt.Fprintf(stderr, "wblab bench: %v\n(see wblab help bench)\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wblab bench: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	if *runs < 1 || *runs > 100 {
		fmt.Fprintf(stderr, "wblab bench: --runs: %d out of range [1, 100]\n", *runs)
		return exitUsage
	}
	cases := harness.BenchCases(*scale || *only != "")
	if *list {
		for _, c := range cases {
			fmt.Fprintln(stdout, c.Name)
		}
		return exitOK
	}
	if *only != "" {
		want := map[string]bool{}
		for _, n := range strings.Split(*only, ",") {
			want[strings.TrimSpace(n)] = true
		}
		var sel []harness.BenchCase
		for _, c := range cases {
			if want[c.Name] {
				sel = append(sel, c)
				delete(want, c.Name)
			}
		}
		if len(want) > 0 {
			var names []string
			for _, c := range cases {
				names = append(names, c.Name)
			}
			fmt.Fprintf(stderr, "wblab bench: --case: unknown %v (cases: %s)\n", sortedKeys(want), strings.Join(names, ", "))
			return exitUsage
		}
		cases = sel
	}
	fmt.Fprintf(stdout, "wblab bench: %s/%s, %d CPUs (GOMAXPROCS %d), %s; fastest of %d runs\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), *runs)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "case\tsim s\twall s\tsim-s/s\tevents\tMevents/s\tallocs/run\tMB alloc/run\tpeak heap MB\twrite_bw MB/s\t")
	for _, c := range cases {
		cfg, err := c.Config()
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			fmt.Fprintf(stderr, "wblab bench: %s: %v\n", c.Name, err)
			return exitFailed
		}
		r, err := benchOne(ctx, c.Name, cfg, *runs)
		if err != nil {
			fmt.Fprintf(stderr, "wblab bench: %s: %v\n", c.Name, err)
			return exitFailed
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%.3f\t%.0f\t%d\t%.2f\t%d\t%.1f\t%.1f\t%.2f\t\n", r.name, r.simS, r.wallS, r.simS/r.wallS,
			r.events, float64(r.events)/r.wallS/1e6, r.allocs, float64(r.bytes)/(1<<20), r.peakHeapMB, r.bwMB)
	}
	tw.Flush()
	return exitOK
}
