package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// TestWriteRunError: a run's error is one short line; an invariant failure's
// details (the config JSON) follow only with --verbose, else a hint does.
func TestWriteRunError(t *testing.T) {
	inv := &engine.FailureError{Err: errors.New("invariant bio-inside-device: W bio of sectors [8, 16) outside its capacity"),
		AtS: 2100, Seed: 1, Config: []byte(`{"fs":"ext4"}`)}
	for _, c := range []struct {
		name    string
		err     error
		verbose bool
		want    []string
	}{
		{"plain error", errors.New("btrfs: no"), false, []string{"wblab run: X: btrfs: no"}},
		{"invariant", inv, false, []string{
			"wblab run: X: invariant bio-inside-device: W bio of sectors [8, 16) outside its capacity (at t=2100.000000s, seed 1)",
			"  (--verbose prints the details: the run's config as JSON)"}},
		{"invariant, verbose", fmt.Errorf("wrapped: %w", inv), true, []string{
			"wblab run: X: wrapped: invariant bio-inside-device: W bio of sectors [8, 16) outside its capacity (at t=2100.000000s, seed 1)",
			`  config {"fs":"ext4"}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b strings.Builder
			writeRunError(&b, "wblab run: X", c.err, c.verbose)
			assert.Equal(t, strings.Join(c.want, "\n")+"\n", b.String())
		})
	}
}

// TestRunReportsTheFullDisk: issue 35's command shape on a 2 GiB partition runs
// an hour, exits 0 and prints when the disk filled; --verbose is accepted.
func TestRunReportsTheFullDisk(t *testing.T) {
	code, out, errOut := runArgs(t, "run", "--runtime", "60m", "--verbose", "--device", "wu2011-hdd,capacity=2G",
		"thresh=100M/ext4-2dd-4k-8p-4096M-100M:10-X")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `(?m)^disk 8:0 full at \d+\.\d s: 2 dd exited with ENOSPC$`, out)
	assert.Contains(t, out, "runtime   3600.0 s simulated")
	assert.Contains(t, out, "exited with ENOSPC after")
}
