package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func expCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runContext(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestExperimentCmd(t *testing.T) {
	code, out, stderr := expCLI(t, "experiment", "chinner-2010", "--quick", "--json")
	require.Equal(t, exitOK, code, stderr)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"buggy_MBps", "fixed_MBps", "ratio", "ext4_ratio"} {
		assert.Contains(t, m, k)
	}
	code, out, _ = expCLI(t, "experiment", "--quick", "kara-2016")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "4.6+wbt+qd1")

	code, _, stderr = expCLI(t, "experiment", "nope")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "chinner-2010")
	code, _, _ = expCLI(t, "experiment")
	assert.Equal(t, exitUsage, code)
	code, out, _ = expCLI(t, "help", "experiment")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "kara-2016")
}

func TestCompareCmd(t *testing.T) {
	code, out, stderr := expCLI(t, "compare", "--base", "ioless-full", "--test=more_io_wait-5", "--runtime", "10s",
		"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X", "--json")
	require.Equal(t, exitOK, code, stderr)
	var m struct {
		Rows []struct {
			Case     string  `json:"case"`
			BaseMBps float64 `json:"base_MBps"`
			TestMBps float64 `json:"test_MBps"`
			DeltaPct float64 `json:"delta_pct"`
		} `json:"rows"`
		TotalBase  float64 `json:"total_base_MBps"`
		TotalTest  float64 `json:"total_test_MBps"`
		TotalDelta float64 `json:"total_delta_pct"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.Len(t, m.Rows, 1)
	assert.Positive(t, m.TotalBase)

	code, out, _ = expCLI(t, "compare", "--base", "ioless-full", "--test", "more_io_wait-5", "--runtime", "10s",
		"thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Contains(t, lines[0], "3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+")
	assert.True(t, strings.HasSuffix(lines[len(lines)-1], "TOTAL write_bw"))

	for _, args := range [][]string{
		{"compare"},
		{"compare", "--base", "nope", "--test", "4.6", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X"},
		{"compare", "--matrix", "wu-2011-T9"},
		{"compare", "--bogus"},
		{"compare", "--runtime", "xx", "--matrix", "wu-2011-T1"},
		{"compare", "--seeds", "0", "--matrix", "wu-2011-T1"},
		{"compare", "--seeds", "101", "--matrix", "wu-2011-T1"},
		{"compare", "--seed", "-1", "--matrix", "wu-2011-T1"},
		{"compare", "--device", "nope", "--matrix", "wu-2011-T1"},
		{"compare", "--device", "x25e,qd=0", "--matrix", "wu-2011-T1"},
	} {
		code, _, _ := expCLI(t, args...)
		assert.Equal(t, exitUsage, code, args)
	}
}

func TestCompareCmdSeeds(t *testing.T) {
	code, out, stderr := expCLI(t, "compare", "--base", "ioless-full", "--test=more_io_wait-5", "--runtime", "10s",
		"--seeds", "3", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X", "--json")
	require.Equal(t, exitOK, code, stderr)
	var m struct {
		Rows []struct {
			DeltaPct float64 `json:"delta_pct"`
			Delta    struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
				CI95 float64 `json:"ci95"`
			} `json:"delta_stats"`
			InNoise  bool     `json:"in_noise"`
			NeverRan []string `json:"never_ran"`
		} `json:"rows"`
		Seeds      int     `json:"seeds"`
		TotalDelta float64 `json:"total_delta_pct"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	require.Len(t, m.Rows, 1)
	assert.Equal(t, 3, m.Seeds)
	assert.Equal(t, 3, m.Rows[0].Delta.N)
	assert.Equal(t, m.Rows[0].Delta.Mean, m.Rows[0].DeltaPct)
	assert.True(t, m.Rows[0].InNoise)
	assert.Contains(t, m.Rows[0].NeverRan, "more_io_wait")

	code, out, _ = expCLI(t, "compare", "--base", "ioless-full", "--test", "more_io_wait-5", "--runtime", "10s",
		"--seeds", "2", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "~+0.0%")
	assert.Contains(t, out, "this change never ran in this case")
	assert.Contains(t, out, "2 seeds per case and kernel")
}
