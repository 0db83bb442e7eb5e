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
	commands["sweep"] = command{
		usage: "wblab sweep [--fs LIST] [--thresh LIST] [--dd LIST] [--runtime D] [--kernel K] [--seed S] [--json]   write_bw by dirty threshold and writers",
		help:  sweepHelp(),
		run:   sweepCmd,
	}
}

func sweepHelp() string {
	return `Usage: wblab sweep [--fs LIST] [--thresh LIST] [--dd LIST] [--runtime D] [--kernel K] [--seed S] [--json]

Runs the Wu 2011 harness's dd case over a grid (in parallel, one run per CPU) and
prints, per filesystem, write_bw (MB/s, MB = 2^20 bytes) by dirty threshold (rows)
and number of dd writers (columns), each with the disk's seeks per second and the
average request size in KiB. Defaults: --fs ` + strings.Join(harness.SweepFilesystems, ",") + `,
--thresh ` + joinMB(harness.SweepThresholdsMB) + `, --dd ` + joinInts(harness.SweepWriters) + `, --runtime 600s, the default
kernel (` + engine.DefaultConfig().Kernel + `) and device (wu2011-hdd), seed 1.
--thresh takes sizes in [8M, 4096M] (k/M/G binary suffixes; whole MiB), --dd counts
in [1, 10000]. --json prints {"kernel","device","runtime_s","seed","filesystems",
"thresholds_MB","writers","cells":[{"fs","thresh_MB","dd","write_bw_MBps",
"disk_MBps","avgrq_sz","seeks_s","seek_pct","rotate_pct"}...]}. write_bw is the
harness's figure; disk_MBps the run's mean disk rate (written / runtime); the table
marks with * a write_bw more than 5 % off it.

On a rotating disk write_bw falls as the threshold shrinks and the writers grow:
each file's share of the dirty pages, and with it the flusher's per-inode chunk
(writeback_chunk_size, at most the file's dirty pages), gets smaller, so the disk
switches between files more often and each switch costs a seek and a rotation.
btrfs allocates every file's data from one COW frontier in writeback order and
barely moves the head.
`
}

func joinMB(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		if x%1024 == 0 {
			s[i] = fmt.Sprintf("%dG", x/1024)
		} else {
			s[i] = fmt.Sprintf("%dM", x)
		}
	}
	return strings.Join(s, ",")
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func sweepCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	valued := map[string]bool{"fs": true, "thresh": true, "dd": true, "runtime": true, "kernel": true, "seed": true}
	flags, pos, err := splitArgs(args, valued)
	if err != nil {
		fmt.Fprintf(stderr, "wblab sweep: %v\n", err)
		return exitUsage
	}
	if len(pos) > 0 {
		fmt.Fprintf(stderr, "wblab sweep: unexpected argument %q (see wblab help sweep)\n", pos[0])
		return exitUsage
	}
	var opt harness.SweepOptions
	for f, v := range flags {
		switch f {
		case "help", "h":
			fmt.Fprint(stdout, sweepHelp())
			return exitOK
		case "json":
		case "fs":
			opt.Filesystems = strings.Split(v, ",")
		case "kernel":
			opt.Kernel = v
		case "thresh":
			for _, t := range strings.Split(v, ",") {
				n, err := engine.ParseBytes(t)
				if err != nil || n%(1<<20) != 0 || n < 8<<20 || n > 4096<<20 {
					fmt.Fprintf(stderr, "wblab sweep: --thresh %q: want sizes in [8M, 4096M], whole MiB, like 8M,100M,1G\n", t)
					return exitUsage
				}
				opt.ThresholdsMB = append(opt.ThresholdsMB, n>>20)
			}
		case "dd":
			for _, t := range strings.Split(v, ",") {
				n, err := strconv.Atoi(t)
				if err != nil || n < 1 || n > 10000 {
					fmt.Fprintf(stderr, "wblab sweep: --dd %q: want writer counts in [1, 10000], like 1,2,10,100\n", t)
					return exitUsage
				}
				opt.Writers = append(opt.Writers, n)
			}
		case "runtime":
			d, err := engine.ParseDuration(v)
			if err != nil || d < minRuntime || d > maxRuntime {
				fmt.Fprintf(stderr, "wblab sweep: --runtime %q: want a duration in [%s, %s]\n", v, seconds(minRuntime), seconds(maxRuntime))
				return exitUsage
			}
			opt.Runtime = d
		case "seed":
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				fmt.Fprintf(stderr, "wblab sweep: --seed %q: want an unsigned 64-bit integer\n", v)
				return exitUsage
			}
			opt.Seed = n
		default:
			fmt.Fprintf(stderr, "wblab sweep: unknown flag --%s (see wblab help sweep)\n", f)
			return exitUsage
		}
	}
	if _, _, err := harness.SweepConfigs(opt); err != nil {
		fmt.Fprintf(stderr, "wblab sweep: %v\n", err)
		return exitUsage
	}
	sw, err := harness.RunSweep(ctx, opt)
	if err != nil {
		fmt.Fprintf(stderr, "wblab sweep: %v\n", err)
		return exitFailed
	}
	_, asJSON := flags["json"]
	return writeOutput("sweep", stdout, stderr, asJSON, sw, sw.Text)
}
