package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/wblab/wblab/repro"
)

func init() {
	commands["experiment"] = command{
		usage: "wblab experiment NAME [--json]   run a named reproduction of a source thread",
		help:  experimentHelp(),
		run:   experimentCmd,
	}
}

func experimentHelp() string {
	var b strings.Builder
	b.WriteString(`Usage: wblab experiment NAME [--json] [--quick]

Runs a named reproduction of one of the source threads and prints its figures next
to the thread's. --json prints one flat JSON object of the figures instead;
--quick runs a shortened version (smaller files) as the tests do.

Experiments:
`)
	for _, e := range repro.Experiments() {
		fmt.Fprintf(&b, "  %-14s %s\n", e.Name, wrap(e.Doc, 17, 88))
	}
	return b.String()
}

// splitArgs separates flags (--name, --name=value, --name value for names in
// valued) from positional arguments, in any order.
func splitArgs(args []string, valued map[string]bool) (flags map[string]string, pos []string, err error) {
	flags = map[string]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, val, hasVal = name[:j], name[j+1:], true
		}
		if valued[name] && !hasVal {
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			val = args[i]
		}
		flags[name] = val
	}
	return flags, pos, nil
}

func experimentCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags, pos, err := splitArgs(args, nil)
	if err != nil {
		fmt.Fprintf(stderr, "wblab experiment: %v\n", err)
		return exitUsage
	}
	if _, ok := flags["help"]; ok {
		fmt.Fprint(stdout, experimentHelp())
		return exitOK
	}
	if _, ok := flags["h"]; ok {
		fmt.Fprint(stdout, experimentHelp())
		return exitOK
	}
	for f := range flags {
		if f != "json" && f != "quick" {
			fmt.Fprintf(stderr, "wblab experiment: unknown flag --%s (see wblab help experiment)\n", f)
			return exitUsage
		}
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "wblab experiment: want one experiment name (see wblab help experiment)\n")
		return exitUsage
	}
	e, err := repro.LookupExperiment(pos[0])
	if err != nil {
		fmt.Fprintf(stderr, "wblab experiment: %v\n", err)
		return exitUsage
	}
	_, quick := flags["quick"]
	r, err := e.Run(ctx, quick)
	if err != nil {
		fmt.Fprintf(stderr, "wblab experiment: %v\n", err)
		return exitFailed
	}
	if _, ok := flags["json"]; ok {
		out := map[string]any{"experiment": r.Name}
		keys := make([]string, 0, len(r.Figures))
		for k := range r.Figures {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out[k] = r.Figures[k]
		}
		return writeJSON("experiment", stdout, stderr, out)
	}
	return writeText("experiment", stdout, stderr, r.Text)
}
