package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// short keeps test runs quick.
var short = []string{"--runtime", "5s"}

func runArgs(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // substring of stdout ("" = don't care)
		stderr string // substring of stderr; "" = stderr must be empty
	}{
		{"no command", nil, 2, "", "Usage:"},
		{"unknown command", []string{"frobnicate"}, 2, "", `unknown command "frobnicate"`},
		{"help", []string{"help"}, 0, "wblab run [flags] [CASE]", ""},
		{"--help", []string{"--help"}, 0, "wblab run [flags] [CASE]", ""},
		{"help run", []string{"help", "run"}, 0, "--runtime DUR", ""},
		{"help presets", []string{"help", "presets"}, 0, "wblab presets [--json]", ""},
		{"help series", []string{"help", "series"}, 0, "iostat_avgqu_sz [requests]", ""},
		{"help nosuch", []string{"help", "nosuch"}, 2, "", `unknown command "nosuch"`},
		{"run --help", []string{"run", "--help"}, 0, "--trace-lines N", ""},
		{"run -h", []string{"run", "-h"}, 0, "--trace-lines N", ""},
		{"presets", []string{"presets"}, 0, "Kernels", ""},
		{"presets bad flag", []string{"presets", "--nope"}, 2, "", "flag provided but not defined: -nope"},
		{"presets extra arg", []string{"presets", "x"}, 2, "", `unexpected argument "x"`},

		{"default case", append([]string{"run"}, short...), 0, "", ""},
		{"thread case", append([]string{"run", "thresh=1G/generic-10dd-4k-8p-4096M-1024M:10-X"}, short...), 0, "", ""},
		{"flags after case", []string{"run", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X", "--runtime", "5s", "--seed", "7"}, 0, "", ""},
		{"release names the kernel", append([]string{"run", "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-3.1.0-rc9-ioless-full+"}, short...), 0, "", ""},
		{"case flags", append([]string{"run", "--dd", "3", "--bs", "64k", "--cpus", "2", "--memory", "1G", "--dirty", "20", "--background", "5"}, short...), 0, "", ""},

		{"seeds", append([]string{"run", "--seeds", "2"}, short...), 0, "2 seeds   write_bw mean", ""},
		{"seeds 0", append([]string{"run", "--seeds", "0"}, short...), 2, "", "want a number of seeds in [1, 100]"},
		{"seeds too many", append([]string{"run", "--seeds", "101"}, short...), 2, "", "want a number of seeds in [1, 100]"},
		{"seeds with series", append([]string{"run", "--seeds", "2", "--series", "x.csv"}, short...), 2, "", "not with --seeds 2"},
		{"seeds overflow the seed", append([]string{"run", "--seeds", "2", "--seed", "18446744073709551615"}, short...), 2, "", "too large for --seeds 2"},
		{"bad case", []string{"run", "ext4-1dd"}, 2, "", "case.bs: missing"},
		{"bad case dd", []string{"run", "thresh=100M/generic-0dd-4k-8p-4096M-100M:10-X"}, 2, "", `case.dd: "0dd"`},
		{"unsupported dir", []string{"run", "JBOD-4HDD-thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X"}, 2, "", "case.dir:"},
		{"unknown fs", []string{"run", "thresh=100M/ntfs-10dd-4k-8p-4096M-100M:10-X"}, 2, "", `fs: "ntfs" is not a filesystem`},
		{"unknown release", []string{"run", "generic-1dd-4k-8p-4096M-20:10-9.9-nosuch"}, 2, "", `case.kernel: release "9.9-nosuch"`},
		{"two cases", []string{"run", "a", "b"}, 2, "", "at most one CASE"},
		{"unknown flag", []string{"run", "--nope"}, 2, "", "flag provided but not defined: -nope"},
		{"flag without value", []string{"run", "--dd"}, 2, "", "flag needs an argument: -dd"},
		{"--dd 0", []string{"run", "--dd", "0"}, 2, "", `--dd "0": case.dd:`},
		{"--dd x", []string{"run", "--dd", "x"}, 2, "", `case.dd: "xdd"`},
		{"--bs 1000", []string{"run", "--bs", "1000"}, 2, "", "case.bs:"},
		{"--cpus 300", []string{"run", "--cpus", "300"}, 2, "", "case.cpus:"},
		{"--memory 1M", []string{"run", "--memory", "1M"}, 2, "", "case.memory:"},
		{"--memory below dirty", []string{"run", "--memory", "64M"}, 2, "", "case.dirty:"},
		{"--dirty 0", []string{"run", "--dirty", "0"}, 2, "", "case.dirty:"},
		{"--background 101", []string{"run", "--background", "101"}, 2, "", "case.background:"},
		{"--fs Ext4", []string{"run", "--fs", "Ext4"}, 2, "", "case.fs:"},
		{"--fs zfs", []string{"run", "--fs", "zfs"}, 2, "", `fs: "zfs" is not a filesystem`},
		{"--kernel", []string{"run", "--kernel", "nosuch"}, 2, "", `kernel: "nosuch" is not a kernel preset`},
		{"--variants name", []string{"run", "--variants", "nosuch=true"}, 2, "", `"nosuch" is not a kernel switch`},
		{"--variants form", []string{"run", "--variants", "scaled_chunk"}, 2, "", "is not name=true|false"},
		{"--variants bool", []string{"run", "--variants", "scaled_chunk=maybe"}, 2, "", "want true or false"},
		{"--device preset", []string{"run", "--device", "floppy"}, 2, "", `unknown preset "floppy"`},
		{"--device key", []string{"run", "--device", "simple,speed=1"}, 2, "", `unknown key "speed"`},
		{"--device range", []string{"run", "--device", "simple,qd=0"}, 2, "", "out of range"},
		{"--runtime 0", []string{"run", "--runtime", "0"}, 2, "", "runtime: 0 s is out of range 1 ms-24 h"},
		{"--runtime 48h", []string{"run", "--runtime", "48h"}, 2, "", "out of range"},
		{"--runtime x", []string{"run", "--runtime", "x"}, 2, "", "is not a duration"},
		{"--seed -1", []string{"run", "--seed", "-1"}, 2, "", `--seed "-1": "-1" is not a whole number >= 0`},
		{"--count x", []string{"run", "--count", "x"}, 2, "", `--count "x": "x" is not a whole number`},
		{"--count -1", []string{"run", "--count", "-1"}, 2, "", "workload.count: -1 is out of range 0-268435456"},
		{"--fsync without count", []string{"run", "--fsync"}, 2, "", "workload.fsync:"},
		{"--hz 999", []string{"run", "--hz", "999"}, 2, "", "hz: 999 is not a kernel HZ"},
		{"--hz huge", []string{"run", "--hz", "99999999999999999"}, 2, "", "hz:"},
		{"--expire-cs 0", []string{"run", "--expire-cs", "0"}, 2, "", "dirty_expire_centisecs: 0 centisecs is out of range"},
		{"--writeback-cs -1", []string{"run", "--writeback-cs", "-1"}, 2, "", "dirty_writeback_centisecs: -1 centisecs is out of range"},
		{"--trace-lines -1", []string{"run", "--trace-lines", "-1"}, 2, "", "trace_lines: -1 is out of range 0-500000"},
		{"--sample too long", []string{"run", "--runtime", "5s", "--sample", "10s"}, 2, "", "sample_interval"},
		// every bad input at once, one a line
		{"four errors", []string{"run", "--dd", "-3", "--dirty", "abc", "--memory", "0", "--runtime", "99999h"}, 2, "",
			"wblab run: --dd \"-3\": case.dd: \"-3dd\" is not <N>dd; want <N>dd with N in [1, 10000] (no sign or leading zeros)\n" +
				"--dirty \"abc\": case.dirty: \"abc\" is not a dirty threshold; want a size like 100M (bytes, in [8192, memory]) or a bare percentage in [1, 100]\n" +
				"--memory \"0\": case.memory: \"0\" is not a memory size; want a size with an M or G suffix like 4096M or 4G\n" +
				"runtime: 99999 h is out of range 1 ms-24 h\n(see wblab help run)"},
		{"old switch name", []string{"run", "--kernel", "6.1", "--variants", "bdi_knobs_v63=true", "--disk", "usb2-stick,dd=1,strictlimit=on", "--runtime", "0"}, 2, "",
			"wblab run: runtime: 0 s is out of range 1 ms-24 h\n(see wblab help run)"},
		{"--series empty", []string{"run", "--series", ""}, 2, "", "--series: want a file name"},
		{"--series bad path", append([]string{"run", "--series", filepath.Join(t.TempDir(), "no", "such", "dir.csv")}, short...), 2, "", "--series:"},
		{"--trace with 0 lines", append([]string{"run", "--trace", filepath.Join(t.TempDir(), "t.txt"), "--trace-lines", "0"}, short...), 2, "", "--trace-lines: 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr)
			if tt.stdout != "" {
				assert.Contains(t, stdout, tt.stdout)
			}
			if tt.stderr == "" {
				assert.Empty(t, stderr)
			} else {
				assert.Contains(t, stderr, tt.stderr)
			}
			assert.NotContains(t, stderr, "goroutine", "no stack traces")
			assert.NotContains(t, stderr, "panic")
			if code == 2 && len(tt.args) > 0 && tt.args[0] == "run" {
				assert.Contains(t, stderr, "see wblab help run")
			}
		})
	}
}

func TestRunSummary(t *testing.T) {
	code, stdout, stderr := runArgs(t, "run", "--runtime", "5s", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X")
}

func TestRunJSON(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want map[string]any
	}{
		{"default", []string{"--json", "--runtime", "5s"}, map[string]any{
			"case": "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", "runtime_s": 5.0, "device": nil, "kernel": nil}},
		{"case and flags", []string{"--json", "--runtime", "5s", "--dd", "10", "thresh=1G/generic-1dd-4k-8p-4096M-1024M:10-X"}, map[string]any{
			"case": "thresh=1G/generic-10dd-4k-8p-4096M-1024M:10-X"}},
		{"dirty ratio drops the thresh= directory", []string{"--json", "--runtime", "5s", "--dirty", "20"}, map[string]any{
			"case": "generic-1dd-4k-8p-4096M-20:10-X"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(t, append([]string{"run"}, tt.args...)...)
			require.Equal(t, 0, code, stderr)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			for _, k := range []string{"case", "kernel", "device", "runtime_s", "write_bw_MBps", "written_MB", "dirtied_MB", "cpu_s"} {
				assert.Contains(t, got, k)
			}
			for k, v := range tt.want {
				if v != nil {
					assert.Equal(t, v, got[k], k)
				}
			}
		})
	}
}

func TestRunOutputFiles(t *testing.T) {
	dir := t.TempDir()
	series, trace := filepath.Join(dir, "s.csv"), filepath.Join(dir, "t.txt")
	code, _, stderr := runArgs(t, "run", "--runtime", "5s", "--series", series, "--trace", trace, "--trace-lines", "1000")
	require.Equal(t, 0, code, stderr)
	b, err := os.ReadFile(series)
	require.NoError(t, err)
	header, _, _ := strings.Cut(string(b), "\n")
	assert.True(t, strings.HasPrefix(header, "time_s,"), "header %q", header)
	assert.Greater(t, strings.Count(string(b), "\n"), 1, "rows after the header")
	b, err = os.ReadFile(trace)
	require.NoError(t, err)
	assert.NotEmpty(t, b)
}

func TestRunDeterministic(t *testing.T) {
	args := []string{"run", "--json", "--runtime", "5s", "--seed", "42", "thresh=100M/generic-2dd-4k-8p-4096M-100M:10-X"}
	code1, out1, _ := runArgs(t, args...)
	code2, out2, _ := runArgs(t, args...)
	require.Equal(t, 0, code1)
	require.Equal(t, 0, code2)
	assert.Equal(t, out1, out2)
}

// errWriter fails every write.
type errWriter struct{}

func (errWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestRunFailures(t *testing.T) {
	// Writing the result fails: status 1.
	var stderr bytes.Buffer
	code := run([]string{"run", "--runtime", "5s"}, errWriter{}, &stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "disk full")

	// A cancelled run fails: status 1.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	stderr.Reset()
	code = runContext(ctx, []string{"run", "--runtime", "5s"}, io.Discard, &stderr)
	assert.Equal(t, 1, code, stderr.String())
	assert.Contains(t, stderr.String(), "wblab run:")
}

func TestPresetsJSON(t *testing.T) {
	code, stdout, stderr := runArgs(t, "presets", "--json")
	require.Equal(t, 0, code, stderr)
	var got presetList
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.NotEmpty(t, got.Kernels)
	assert.NotEmpty(t, got.Devices)
	assert.Contains(t, got.Filesystems, "generic")
	code, stdout, _ = runArgs(t, "presets")
	require.Equal(t, 0, code)
	for _, k := range got.Kernels {
		assert.Contains(t, stdout, k.Name)
	}
	for _, d := range got.Devices {
		assert.Contains(t, stdout, d.Name)
	}
}

// Every flag of "wblab run" is in its help, with a default.
func TestRunHelpDocumentsEveryFlag(t *testing.T) {
	help := runHelp()
	n := 0
	newRunFlags(&runOpts{}).VisitAll(func(f *flag.Flag) {
		n++
		i := strings.Index(help, "  --"+f.Name+" ")
		if !assert.GreaterOrEqual(t, i, 0, "--%s is not documented", f.Name) {
			return
		}
		// The flag's entry runs to the next flag's.
		entry := help[i+2:]
		if j := strings.Index(entry, "\n  --"); j >= 0 {
			entry = entry[:j]
		}
		assert.Contains(t, entry, "default", "--%s: no default in %q", f.Name, entry)
	})
	assert.GreaterOrEqual(t, n, 20)
}

func TestRunSeedsJSON(t *testing.T) {
	code, stdout, stderr := runArgs(t, "run", "--json", "--runtime", "5s", "--seeds", "3", "--seed", "4", "thresh=100M/ext4-2dd-4k-8p-4096M-100M:10-X")
	require.Equal(t, 0, code, stderr)
	var got struct {
		Seeds   []uint64 `json:"seeds"`
		WriteBW struct {
			N    int     `json:"n"`
			Mean float64 `json:"mean"`
			Min  float64 `json:"min"`
			Max  float64 `json:"max"`
		} `json:"write_bw_MBps"`
		Results []struct {
			Seed    uint64  `json:"seed"`
			WriteBW float64 `json:"write_bw_MBps"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, []uint64{4, 5, 6}, got.Seeds)
	require.Len(t, got.Results, 3)
	assert.Equal(t, 3, got.WriteBW.N)
	sum := 0.0
	for i, r := range got.Results {
		assert.Equal(t, got.Seeds[i], r.Seed)
		sum += r.WriteBW
	}
	assert.InDelta(t, sum/3, got.WriteBW.Mean, 1e-9)
}

// "wblab help series" lists every --series column with the page's explanation.
func TestHelpSeriesMatchesThePage(t *testing.T) {
	code, out, _ := runArgs(t, "help", "series")
	require.Equal(t, 0, code)
	flat := strings.Join(strings.Fields(out), " ")
	for _, c := range engine.Columns {
		assert.Contains(t, out, c.Name+" ["+c.Unit+"]")
		if d, ok := engine.SeriesDoc(c.Name); ok {
			assert.Contains(t, flat, strings.Join(strings.Fields(d.Meaning), " "), c.Name)
		}
	}
}
