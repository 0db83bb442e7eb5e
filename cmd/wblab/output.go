package main

import (
	"encoding/json"
	"fmt"
	"io"
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
