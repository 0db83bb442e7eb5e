package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

func init() {
	commands["compare"] = command{
		usage: "wblab compare --base K1 --test K2 [--runtime D] [--seeds N] [--device D] (--matrix NAME | CASE...) [--json]   compare two kernels",
		help:  compareHelp(),
		run:   compareCmd,
	}
}

func compareHelp() string {
	return `Usage: wblab compare --base K1 --test K2 [--runtime D] [--seeds N] [--seed S] [--device D] (--matrix NAME | CASE...) [--json]

Runs every case under kernels K1 and K2 (in parallel, one run per CPU) and prints
the table Wu's harness prints: base write_bw, delta, test write_bw, case, and the
TOTAL write_bw row. --matrix runs one of the Wu 2011 thread's tables (its cases; its
kernels unless --base/--test are given): ` + strings.Join(harness.Matrices(), ", ") + `.
Kernels are preset names; the thread's short names work too (ioless-full,
more_io_wait-5). --runtime sets each run's length (default 600s). --device gives
every run the disk as 'wblab run --device' takes it (NAME[,key=value...], e.g. x25e;
default: the case's, wu2011-hdd).
--seeds N (1-` + fmt.Sprint(engine.MaxSeeds) + `, default 1) runs every case and kernel with the seeds S..S+N-1
(--seed S, default 1): figures are means over the seeds, each delta is paired by
seed with its 95% confidence interval (Student's t) beside it, and a delta whose
interval contains 0 is marked as inside the noise, e.g. ~+0.4%. When the kernels
differ in a switch whose paths never ran in a case, the table says so under it.
--json prints {"rows":[{"case","base_MBps","test_MBps","delta_pct","base_stats",
"test_stats","delta_stats":{"n","mean","min","max","sd","ci95"},"in_noise",
"never_ran"}...],"total_base_MBps","total_test_MBps","total_delta_pct","seeds",
"total_delta","total_in_noise"} (delta_pct and total_delta_pct are the means over
seeds; matrices add the thread's figures).
`
}

func compareCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags, cases, err := splitArgs(args, map[string]bool{"base": true, "test": true, "runtime": true, "matrix": true, "seed": true, "seeds": true, "device": true})
	if err != nil {
		fmt.Fprintf(stderr, "wblab compare: %v\n", err)
		return exitUsage
	}
	for f := range flags {
		switch f {
		case "help", "h":
			fmt.Fprint(stdout, compareHelp())
			return exitOK
		case "base", "test", "runtime", "matrix", "json", "seed", "seeds", "device":
		default:
			fmt.Fprintf(stderr, "wblab compare: unknown flag --%s (see wblab help compare)\n", f)
			return exitUsage
		}
	}
	var opt harness.CompareOptions
	if s, ok := flags["device"]; ok {
		if _, _, err := engine.ParseDevice(s); err != nil {
			fmt.Fprintf(stderr, "wblab compare: --device: %v\n", err)
			return exitUsage
		}
		opt.Device = s
	}
	if s, ok := flags["runtime"]; ok {
		d, err := engine.ParseDuration(s)
		if err != nil || d < minRuntime || d > maxRuntime {
			fmt.Fprintf(stderr, "wblab compare: --runtime %q: want a duration in [%s, %s]\n", s, seconds(minRuntime), seconds(maxRuntime))
			return exitUsage
		}
		opt.Runtime = d
	}
	if s, ok := flags["seed"]; ok {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			fmt.Fprintf(stderr, "wblab compare: --seed %q: want an unsigned 64-bit integer\n", s)
			return exitUsage
		}
		opt.Seed = n
	}
	if s, ok := flags["seeds"]; ok {
		n, err := parseSeeds(s)
		if err != nil {
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return exitUsage
		}
		opt.Seeds = n
	}
	var cmp *harness.Comparison
	if name, ok := flags["matrix"]; ok {
		if len(cases) > 0 {
			fmt.Fprintf(stderr, "wblab compare: give --matrix or cases, not both\n")
			return exitUsage
		}
		m, err := harness.LookupMatrix(name)
		if err != nil {
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return exitUsage
		}
		cmp, err = harness.CompareMatrix(ctx, m, flags["base"], flags["test"], opt)
		if err != nil {
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return exitFailed
		}
	} else {
		if flags["base"] == "" || flags["test"] == "" || len(cases) == 0 {
			fmt.Fprintf(stderr, "wblab compare: want --base K1 --test K2 and --matrix NAME or cases (see wblab help compare)\n")
			return exitUsage
		}
		for _, c := range cases {
			if _, err := harness.ParseCase(c); err != nil {
				fmt.Fprintf(stderr, "wblab compare: %v\n", err)
				return exitUsage
			}
		}
		cmp, err = harness.Compare(ctx, flags["base"], flags["test"], cases, opt)
		if err != nil {
			code := exitFailed
			if strings.Contains(err.Error(), "not a kernel preset") {
				code = exitUsage
			}
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return code
		}
	}
	_, asJSON := flags["json"]
	return writeOutput("compare", stdout, stderr, asJSON, cmp, cmp.Text)
}

// parseSeeds reads --seeds: a count in [1, engine.MaxSeeds].
func parseSeeds(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > engine.MaxSeeds {
		return 0, fmt.Errorf("--seeds %q: want a number of seeds in [1, %d]", s, engine.MaxSeeds)
	}
	return n, nil
}
