package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/wblab/wblab/engine"
)

// writeJSON prints v as indented JSON; cmd names the command in the error.
func writeJSON(cmd string, stdout, stderr io.Writer, v any) int {
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(stderr, "wblab %s: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
}

// writeOutput prints v as JSON with asJSON, else the text report.
func writeOutput(cmd string, stdout, stderr io.Writer, asJSON bool, v any, text func() string) int {
	if asJSON {
		return writeJSON(cmd, stdout, stderr, v)
	}
	return writeText(cmd, stdout, stderr, text())
}

// writeText prints a text report.
func writeText(cmd string, stdout, stderr io.Writer, s string) int {
	if _, err := io.WriteString(stdout, s); err != nil {
		fmt.Fprintf(stderr, "wblab %s: %v\n", cmd, err)
		return exitFailed
	}
	return exitOK
}

// writeRunError prints a failed run's error on one short line (an invariant
// failure: the invariant, its numbers, the time and seed), then its details (the
// config that reproduces it, engine.ErrorDetails) with verbose, else a hint.
func writeRunError(stderr io.Writer, prefix string, err error, verbose bool) {
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	switch d := engine.ErrorDetails(err); {
	case d == "":
	case verbose:
		fmt.Fprintf(stderr, "  %s\n", d)
	default:
		fmt.Fprintln(stderr, "  (--verbose prints the details: the run's config as JSON)")
	}
}
