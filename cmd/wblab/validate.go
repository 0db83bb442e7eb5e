package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/wblab/wblab/validate"
)

func init() {
	commands["validate"] = command{
		usage: "wblab validate [--kernel 6.1|6.12] [--dir DIR] [--case NAME,...] [--json]   a preset vs its measured kernel (QEMU)",
		help:  validateHelp,
		run:   validateCmd,
	}
}

const validateHelp = `Usage: wblab validate [--dir DIR] [--case NAME,...] [--json]

Runs the Linux 6.1 preset (6.12 with --kernel 6.12) on each reference case measured on a real kernel in
QEMU (validate/README.md: what was measured, on which machine, and how to re-measure)
and prints, per case and overall, measured vs wblab: write_bw, the window's mean
dirty and dirty+writeback, the bdi, dirty and background thresholds, the bdi's write
bandwidth estimate and the writers' dirtying rate, with the error. wblab gets the
disk rate the guest measured in the window, not the QEMU throttle's nominal value.
Cases wblab cannot model yet print their measured figures only.

Harness 2 runs (writers that share a machine, validate/qemu/matrix-shared.txt) print
"held: ..." or "not held: ..." with the reason: each writer, and the editor, was run
alone after the scenario (its control); a run is not held when a lone writer did not
reach its disk's rate or the kernel's dirty limit, or the lone editor's save took
over 0.1 s: then the guest's emulated CPU, not the disk or the kernel, was the limit.
wblab runs each harness 2 run from its own settings (the log's H lines: vCPUs,
MemTotal, the sysctls and queue settings as read back, each disk a capped device at
the rate the guest got on it, its filesystem and max_ratio, each writer, the editor),
with seeds 1-5: the scenario, the kill and the timed final sync, and each writer
alone. Per scenario (its runs NAME.rK) the reference table prints each figure's real
mean [min, max] over the held runs, wblab's mean [min, max] over those runs' seeds,
the error, and whether it is within the target (rates, thresholds, dirty+writeback:
±25 %; editor fsync p50, p99: ±50 %; or inside the real range); then the accuracy
per kind of figure over the held scenarios (the table wblab run cites).
Units: MB = 2^20 bytes. The window is in seconds since the writers started.

  --dir DIR        read *.log / *.log.gz console logs from DIR (default: the
                   references committed in validate/references)
  --kernel K       6.1 (default: validate/references) or 6.12 (the references
                   measured on Debian's 6.12 kernel, validate/references-6.12); each
                   log is compared with the preset of the kernel it measured
  --case NAMES     only these cases (comma-separated log names)
  --json           print {"comparisons", "scenarios" (the reference table),
                   "accuracy"} as JSON
`

func validateCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags, rest, err := splitArgs(args, map[string]bool{"dir": true, "case": true, "kernel": true})
	if err != nil {
		fmt.Fprintf(stderr, "wblab validate: %v\n", err)
		return exitUsage
	}
	if len(rest) > 0 {
		fmt.Fprintf(stderr, "wblab validate: unexpected argument %q (use --case NAME)\n", rest[0])
		return exitUsage
	}
	for f := range flags {
		switch f {
		case "help", "h":
			fmt.Fprint(stdout, validateHelp)
			return exitOK
		case "dir", "case", "json", "kernel":
		default:
			fmt.Fprintf(stderr, "wblab validate: unknown flag --%s (see wblab help validate)\n", f)
			return exitUsage
		}
	}
	var logs []*validate.Log
	k, byKernel := flags["kernel"]
	switch {
	case byKernel && k != validate.Kernel && k != validate.Kernel612:
		fmt.Fprintf(stderr, "wblab validate: --kernel %q: references exist for %s and %s\n", k, validate.Kernel, validate.Kernel612)
		return exitUsage
	case flags["dir"] != "":
		logs, err = validate.ReadDir(flags["dir"])
	case k == validate.Kernel612:
		logs, err = validate.References612()
	default:
		logs, err = validate.References()
	}
	if err != nil {
		fmt.Fprintf(stderr, "wblab validate: %v\n", err)
		return exitUsage
	}
	if names, ok := flags["case"]; ok {
		want := map[string]bool{}
		for _, n := range strings.Split(names, ",") {
			want[strings.TrimSpace(n)] = true
		}
		var sel []*validate.Log
		var all []string
		for _, l := range logs {
			all = append(all, l.Name)
			if want[l.Name] {
				sel = append(sel, l)
				delete(want, l.Name)
			}
		}
		for n := range want {
			fmt.Fprintf(stderr, "wblab validate: --case %q: no such reference (cases: %s)\n", n, strings.Join(all, ", "))
			return exitUsage
		}
		logs = sel
	}
	var cs []validate.Comparison
	for _, l := range logs {
		c, err := validate.Compare(ctx, l)
		if err != nil {
			fmt.Fprintf(stderr, "wblab validate: %v\n", err)
			return exitFailed
		}
		cs = append(cs, c)
	}
	if _, ok := flags["json"]; ok {
		figs := validate.MixReference(cs)
		if figs == nil {
			figs = []validate.MixFigure{}
		}
		return writeJSON("validate", stdout, stderr, struct {
			Comparisons []validate.Comparison  `json:"comparisons"`
			Scenarios   []validate.MixFigure   `json:"scenarios"`
			Accuracy    []validate.AccuracyRow `json:"accuracy"`
		}{cs, figs, validate.AccuracyOf(figs, validate.HeldRuns(cs))})
	}
	if err := validate.WriteReport(stdout, cs); err != nil {
		fmt.Fprintf(stderr, "wblab validate: %v\n", err)
		return exitFailed
	}
	return exitOK
}
