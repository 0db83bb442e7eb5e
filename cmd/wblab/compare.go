package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/wblab/wblab/engine"
)

func init() {
	commands["compare"] = command{
		usage: "wblab compare --base K1 --test K2 [--runtime D] (--matrix NAME | CASE...) [--json]   compare two kernels",
		help:  compareHelp(),
		run:   compareCmd,
	}
}

func compareHelp() string {
	return `Usage: wblab compare --base K1 --test K2 [--runtime D] (--matrix NAME | CASE...) [--json]

Runs every case under kernels K1 and K2 (all runs in parallel) and prints the table
Wu's harness prints: base write_bw, delta, test write_bw, case, and the TOTAL
write_bw row. --matrix runs one of the Wu 2011 thread's tables (its cases; its
kernels unless --base/--test are given): ` + strings.Join(engine.Matrices(), ", ") + `.
Kernels are preset names; the thread's short names work too (ioless-full,
more_io_wait-5). --runtime sets each run's length (default 600s). --json prints
{"rows":[{"case","base_MBps","test_MBps","delta_pct"}...],"total_base_MBps",
"total_test_MBps","total_delta_pct"} (matrices add the thread's figures).
`
}

func compareCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags, cases, err := splitArgs(args, map[string]bool{"base": true, "test": true, "runtime": true, "matrix": true, "seed": true})
	if err != nil {
		fmt.Fprintf(stderr, "wblab compare: %v\n", err)
		return exitUsage
	}
	for f := range flags {
		switch f {
		case "help", "h":
			fmt.Fprint(stdout, compareHelp())
			return exitOK
		case "base", "test", "runtime", "matrix", "json":
		default:
			fmt.Fprintf(stderr, "wblab compare: unknown flag --%s (see wblab help compare)\n", f)
			return exitUsage
		}
	}
	var opt engine.CompareOptions
	if s, ok := flags["runtime"]; ok {
		d, err := engine.ParseDuration(s)
		if err != nil || d < minRuntime || d > maxRuntime {
			fmt.Fprintf(stderr, "wblab compare: --runtime %q: want a duration in [%s, %s]\n", s, seconds(minRuntime), seconds(maxRuntime))
			return exitUsage
		}
		opt.Runtime = d
	}
	var cmp *engine.Comparison
	if name, ok := flags["matrix"]; ok {
		if len(cases) > 0 {
			fmt.Fprintf(stderr, "wblab compare: give --matrix or cases, not both\n")
			return exitUsage
		}
		m, err := engine.LookupMatrix(name)
		if err != nil {
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return exitUsage
		}
		cmp, err = engine.CompareMatrix(ctx, m, flags["base"], flags["test"], opt)
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
			if _, err := engine.ParseCase(c); err != nil {
				fmt.Fprintf(stderr, "wblab compare: %v\n", err)
				return exitUsage
			}
		}
		cmp, err = engine.Compare(ctx, flags["base"], flags["test"], cases, opt)
		if err != nil {
			code := exitFailed
			if strings.Contains(err.Error(), "not a kernel preset") {
				code = exitUsage
			}
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return code
		}
	}
	if _, ok := flags["json"]; ok {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(cmp); err != nil {
			fmt.Fprintf(stderr, "wblab compare: %v\n", err)
			return exitFailed
		}
		return exitOK
	}
	if _, err := io.WriteString(stdout, cmp.Text()); err != nil {
		return exitFailed
	}
	return exitOK
}
