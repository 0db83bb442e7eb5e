package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/validate"
)

func TestValidateCmd(t *testing.T) {
	code, out, stderr := expCLI(t, "validate")
	require.Equal(t, exitOK, code, stderr)
	for _, s := range []string{"MB = 2^20 bytes", "window", "== overall: mean absolute error", "write_bw [MB/s]", "dirty+writeback [MB]", "bdi_thresh [MB]"} {
		assert.Contains(t, out, s)
	}

	refs, err := validate.References()
	require.NoError(t, err)
	name := refs[0].Name
	code, out, stderr = expCLI(t, "validate", "--case", name, "--json")
	require.Equal(t, exitOK, code, stderr)
	var js struct {
		Comparisons []map[string]any `json:"comparisons"`
		Scenarios   []any            `json:"scenarios"`
		Accuracy    []any            `json:"accuracy"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	cs := js.Comparisons
	require.Len(t, cs, 1)
	assert.Contains(t, cs[0], "Measured")
	assert.NotNil(t, cs[0]["Model"])

	// a fresh measurement in a directory (here a copy of a committed log)
	dir := t.TempDir()
	b, err := os.ReadFile("../../validate/references/" + name + ".log.gz")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "mine.log.gz"), b, 0o644))
	code, out, stderr = expCLI(t, "validate", "--dir", dir)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "== mine ")

	// a harness 2 run (a not-held smoke run, a test fixture): wblab's side per seed,
	// the reference table and the accuracy table
	h2 := t.TempDir()
	b, err = os.ReadFile("../../validate/testdata/notheld-s3-maxratio-smoke.log.gz")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(h2, "s4-max-ratio.r1.log.gz"), b, 0o644))
	code, out, stderr = expCLI(t, "validate", "--dir", h2)
	require.Equal(t, exitOK, code, stderr)
	for _, s := range []string{"== scenarios (harness 2)", "s4-max-ratio (0 of 1 runs held: NOT HELD", "w2 rate (vdb) [MB/s]", "editor p99 [s]",
		"== accuracy of the 6.1 preset", "(no held harness 2 scenario)"} {
		assert.Contains(t, out, s)
	}
	code, out, stderr = expCLI(t, "validate", "--dir", h2, "--json")
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(out), &js))
	assert.NotEmpty(t, js.Scenarios)
	assert.Empty(t, js.Accuracy, "not held: no accuracy row")

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", "--case", "nope"}, `--case "nope": no such reference`},
		{[]string{"validate", "--bogus"}, "unknown flag --bogus"},
		{[]string{"validate", "extra"}, `unexpected argument "extra"`},
		{[]string{"validate", "--dir", filepath.Join(dir, "missing")}, "no such file or directory"},
		{[]string{"validate", "--dir", t.TempDir()}, "no *.log or *.log.gz files"},
	} {
		code, _, stderr := expCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
	code, out, _ = expCLI(t, "help", "validate")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "2^20 bytes")
}

// TestValidateKernel612: --kernel 6.12 compares the references measured on Debian's
// 6.12 kernel with the 6.12 preset; a kernel with no references is refused with
// the two that have them.
func TestValidateKernel612(t *testing.T) {
	code, out, stderr := expCLI(t, "validate", "--kernel", "6.12")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "Linux 6.12 preset vs a real kernel")
	assert.Contains(t, out, "real 6.12 = mean")
	assert.Contains(t, out, "== accuracy of the 6.12 preset")
	assert.NotContains(t, out, "kernel 6.1.0-")
	code, _, stderr = expCLI(t, "validate", "--kernel", "5.4")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--kernel "5.4": references exist for 6.1 and 6.12`)
}
