package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSweepCmd(t *testing.T) {
	code, out, stderr := expCLI(t, "sweep", "--fs", "btrfs", "--thresh", "16M,1G", "--dd", "1,2", "--runtime", "5s", "--json")
	require.Equal(t, exitOK, code, stderr)
	var sw struct {
		ThresholdsMB []int64 `json:"thresholds_MB"`
		Writers      []int   `json:"writers"`
		Cells        []struct {
			FS          string  `json:"fs"`
			ThreshMB    int64   `json:"thresh_MB"`
			DD          int     `json:"dd"`
			WriteBWMBps float64 `json:"write_bw_MBps"`
		} `json:"cells"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sw))
	assert.Equal(t, []int64{16, 1024}, sw.ThresholdsMB)
	assert.Equal(t, []int{1, 2}, sw.Writers)
	require.Len(t, sw.Cells, 4)
	for _, c := range sw.Cells {
		assert.Equal(t, "btrfs", c.FS)
		assert.Greater(t, c.WriteBWMBps, 0.0)
	}
	code, out, _ = expCLI(t, "sweep", "--fs", "ext4", "--thresh", "8M", "--dd", "1", "--runtime", "2s")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "ext4")
	assert.Contains(t, out, "8M")

	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"sweep", "--thresh", "7M"}, "[8M, 4096M]"},
		{[]string{"sweep", "--thresh", "1G,x"}, "want sizes"},
		{[]string{"sweep", "--dd", "0"}, "[1, 10000]"},
		{[]string{"sweep", "--fs", "nope", "--runtime", "1s"}, "not a filesystem"},
		{[]string{"sweep", "--runtime", "0s"}, "--runtime"},
		{[]string{"sweep", "--bogus"}, "unknown flag"},
		{[]string{"sweep", "extra"}, "unexpected argument"},
	} {
		code, _, stderr := expCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.msg, tc.args)
	}
	code, out, _ = expCLI(t, "help", "sweep")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "writeback_chunk_size")
}
