package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchCommand(t *testing.T) {
	code, out, errOut := runArgs(t, "bench", "--runs", "1", "--case", "kara-qd1-ext3-10000M-fsync")
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "sim-s/s")
	assert.Contains(t, out, "kara-qd1-ext3-10000M-fsync")
	assert.Equal(t, 3, len(strings.Split(strings.TrimSpace(out), "\n")), out)

	code, out, _ = runArgs(t, "bench", "--list", "--scale")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "scale-dd/generic-1000dd-1G-60s")

	for _, args := range [][]string{{"--runs", "0"}, {"--case", "nope"}, {"--bogus"}, {"extra"}} {
		code, _, errOut := runArgs(t, append([]string{"bench"}, args...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Contains(t, errOut, "wblab bench:", "%v", args)
	}
	code, out, _ = runArgs(t, "help", "bench")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "--runs N")
}
