package harness

import (
	"encoding/csv"
	"strings"
	"testing"

	"github.com/wblab/wblab/engine"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseCaseWuTables parses every case of the thread's tables (the copy the
// package embeds, so no ../shared is needed).
func TestParseCaseWuTables(t *testing.T) {
	rows, err := csv.NewReader(strings.NewReader(wu2011TablesCSV)).ReadAll()
	require.NoError(t, err)
	require.NotEmpty(t, rows)
	col := -1
	for i, h := range rows[0] {
		if h == "case" {
			col = i
		}
	}
	require.GreaterOrEqual(t, col, 0, "no case column in %v", rows[0])
	seen := map[string]bool{}
	for _, row := range rows[1:] {
		name := row[col]
		if seen[name] {
			continue
		}
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			c, err := ParseCase(name)
			require.NoError(t, err)
			assert.Equal(t, name, c.String())
			assert.Equal(t, "X", c.Kernel)
			assert.NotZero(t, c.Dirty.Bytes)
			assert.Equal(t, 10, c.Background.Ratio)
			assert.Equal(t, "thresh="+map[int64]string{100 << 20: "100M", 1 << 30: "1G"}[c.Dirty.Bytes], c.Dir)
			again, err := ParseCase(c.String())
			require.NoError(t, err)
			assert.Equal(t, c, again)
		})
	}
	assert.NotEmpty(t, seen)
}

func TestParseCase(t *testing.T) {
	tests := []struct {
		in   string
		want Case
	}{
		{"thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", Case{
			Dir: "thresh=100M", FS: "ext4", DD: 10, BS: Size{4096, "4k"}, CPUs: 8,
			Memory: Size{4096 << 20, "4096M"}, Dirty: Limit{Bytes: 100 << 20, Text: "100M"},
			Background: Limit{Ratio: 10, Text: "10"}, Kernel: "X"}},
		{"thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", Case{
			Dir: "thresh=1G", FS: "xfs", DD: 100, BS: Size{4096, "4k"}, CPUs: 8,
			Memory: Size{4096 << 20, "4096M"}, Dirty: Limit{Bytes: 1 << 30, Text: "1024M"},
			Background: Limit{Ratio: 10, Text: "10"}, Kernel: "X"}},
		{"thresh=8M/ext4-1dd-4k-8p-4096M-8M:10-3.1.0-rc9-ioless-full+", Case{
			Dir: "thresh=8M", FS: "ext4", DD: 1, BS: Size{4096, "4k"}, CPUs: 8,
			Memory: Size{4096 << 20, "4096M"}, Dirty: Limit{Bytes: 8 << 20, Text: "8M"},
			Background: Limit{Ratio: 10, Text: "10"}, Kernel: "3.1.0-rc9-ioless-full+"}},
		// The compare script's specimen: ratios, no directory, 1 CPU, 1M blocks.
		{"nfs-10dd-1M-1p-32069M-20:10-3.1.0-rc4+", Case{
			FS: "nfs", DD: 10, BS: Size{1 << 20, "1M"}, CPUs: 1,
			Memory: Size{32069 << 20, "32069M"}, Dirty: Limit{Ratio: 20, Text: "20"},
			Background: Limit{Ratio: 10, Text: "10"}, Kernel: "3.1.0-rc4+"}},
		// Background bytes, in the directory too (the harness's thresh "A:B").
		{"thresh=1000M:999M/generic-1dd-64k-8p-4096M-1000M:999M-X", Case{
			Dir: "thresh=1000M:999M", FS: "generic", DD: 1, BS: Size{64 << 10, "64k"}, CPUs: 8,
			Memory: Size{4096 << 20, "4096M"}, Dirty: Limit{Bytes: 1000 << 20, Text: "1000M"},
			Background: Limit{Bytes: 999 << 20, Text: "999M"}, Kernel: "X"}},
		// Sizes are case-insensitive and keep their spelling; G memory; bare-byte bs.
		{"thresh=100m/generic-2dd-512-4p-4g-100m:50M-X", Case{
			Dir: "thresh=100m", FS: "generic", DD: 2, BS: Size{512, "512"}, CPUs: 4,
			Memory: Size{4 << 30, "4g"}, Dirty: Limit{Bytes: 100 << 20, Text: "100m"},
			Background: Limit{Bytes: 50 << 20, Text: "50M"}, Kernel: "X"}},
		// Limits at the edges.
		{"generic-10000dd-64M-256p-262144M-8k:100-X", Case{
			FS: "generic", DD: 10000, BS: Size{64 << 20, "64M"}, CPUs: 256,
			Memory: Size{256 << 30, "262144M"}, Dirty: Limit{Bytes: 8192, Text: "8k"},
			Background: Limit{Ratio: 100, Text: "100"}, Kernel: "X"}},
		{"generic-1dd-4k-1p-64M-1:4k-2.6.36-rc1+fix", Case{
			FS: "generic", DD: 1, BS: Size{4096, "4k"}, CPUs: 1,
			Memory: Size{64 << 20, "64M"}, Dirty: Limit{Ratio: 1, Text: "1"},
			Background: Limit{Bytes: 4096, Text: "4k"}, Kernel: "2.6.36-rc1+fix"}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseCase(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, c)
			assert.Equal(t, tt.in, c.String())
		})
	}
}

func TestParseCaseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want []string // substrings of the error, the first naming the part
	}{
		{"", []string{"case.fs: empty case name"}},
		{"   ", []string{"case.fs: empty case name"}},
		{"ext4", []string{"case.dd: missing", "FS-<N>dd-BS"}},
		{"ext4-10dd-4k-8p-4096M-100M:10", []string{"case.kernel: missing"}},
		{"ext4-10dd-4k-8p-4096M", []string{"case.dirty: missing"}},
		{"Ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.fs:", `"Ext4"`, "lowercase word"}},
		{"4ext-10dd-4k-8p-4096M-100M:10-X", []string{"case.fs:", `"4ext"`}},
		{"ext_4-10dd-4k-8p-4096M-100M:10-X", []string{"case.fs:", `"ext_4"`}},
		{"ext4-0dd-4k-8p-4096M-100M:10-X", []string{"case.dd:", `"0dd"`, "[1, 10000]"}},
		{"ext4-10001dd-4k-8p-4096M-100M:10-X", []string{"case.dd:", `"10001dd"`, "[1, 10000]"}},
		{"ext4-10-4k-8p-4096M-100M:10-X", []string{"case.dd:", `"10"`, "<N>dd"}},
		{"ext4-+10dd-4k-8p-4096M-100M:10-X", []string{"case.dd:", `"+10dd"`}},
		{"ext4-010dd-4k-8p-4096M-100M:10-X", []string{"case.dd:", "leading zeros"}},
		{"ext4-99999999999999999999dd-4k-8p-4096M-100M:10-X", []string{"case.dd:"}},
		{"ext4-10dd-4q-8p-4096M-100M:10-X", []string{"case.bs:", `"4q"`, "4k, 64k or 1M"}},
		{"ext4-10dd-1000-8p-4096M-100M:10-X", []string{"case.bs:", `"1000"`, "multiple of 512"}},
		{"ext4-10dd-128M-8p-4096M-100M:10-X", []string{"case.bs:", `"128M"`, "[512, 67108864]"}},
		{"ext4-10dd-0-8p-4096M-100M:10-X", []string{"case.bs:", `"0"`}},
		{"ext4-10dd-4k-0p-4096M-100M:10-X", []string{"case.cpus:", `"0p"`, "[1, 256]"}},
		{"ext4-10dd-4k-257p-4096M-100M:10-X", []string{"case.cpus:", `"257p"`, "[1, 256]"}},
		{"ext4-10dd-4k-8-4096M-100M:10-X", []string{"case.cpus:", `"8"`, "<N>p"}},
		{"ext4-10dd-4k-8p-4096-100M:10-X", []string{"case.memory:", `"4096"`, "4096M"}},
		{"ext4-10dd-4k-8p-32M-8M:10-X", []string{"case.memory:", `"32M"`, "[64M, 262144M]"}},
		{"ext4-10dd-4k-8p-300G-100M:10-X", []string{"case.memory:", `"300G"`, "[64M, 262144M]"}},
		{"ext4-10dd-4k-8p-4100000k-100M:10-X", []string{"case.memory:", "whole number of MiB"}},
		{"ext4-10dd-4k-8p-4096M-100M-X", []string{"case.background: missing", `"100M"`}},
		{"ext4-10dd-4k-8p-4096M-0:10-X", []string{"case.dirty:", `ratio "0"`, "[1, 100]"}},
		{"ext4-10dd-4k-8p-4096M-101:10-X", []string{"case.dirty:", `"101"`, "[1, 100]"}},
		{"ext4-10dd-4k-8p-4096M-4k:10-X", []string{"case.dirty:", `"4k"`, "[8192, 4294967296]"}},
		{"ext4-10dd-4k-8p-4096M-5G:10-X", []string{"case.dirty:", `"5G"`, "at most the memory size"}},
		{"ext4-10dd-4k-8p-99999999999G-100M:10-X", []string{"case.memory:", `"99999999999G" is too large`}},
		{"ext4-10dd-99999999999999999999-8p-4096M-100M:10-X", []string{"case.bs:", "is too large"}},
		{"ext4-10dd-4k-8p-4096M-9999999999999999999:10-X", []string{"case.dirty:", "is too large"}},
		{"ext4-10dd-4k-8p-4096M-100M:9999999999999999999k-X", []string{"case.background:", "is too large"}},
		{"ext4-10dd-4k-8p-4096M-100MB:10-X", []string{"case.dirty:", `"100MB"`, "100M"}},
		{"ext4-10dd-4k-8p-4096M-:10-X", []string{"case.dirty:", `""`}},
		{"ext4-10dd-4k-8p-4096M-100M:0-X", []string{"case.background:", `"0"`, "[1, 100]"}},
		{"ext4-10dd-4k-8p-4096M-100M:200-X", []string{"case.background:", `"200"`, "[1, 100]"}},
		{"ext4-10dd-4k-8p-4096M-100M:8G-X", []string{"case.background:", `"8G"`, "at most the memory size"}},
		{"ext4-10dd-4k-8p-4096M-100M:10:5-X", []string{"case.background:", `"10:5"`}},
		{"ext4-10dd-4k-8p-4096M-100M:-X", []string{"case.background:", `""`}},
		{"ext4-10dd-4k-8p-4096M-100M:10-", []string{"case.kernel:", `""`, "want X or a release"}},
		{"ext4-10dd-4k-8p-4096M-100M:10-3.1 rc", []string{"case.kernel:", `"3.1 rc"`}},
		{"ext4-10dd-4k-8p-4096M-100M:10--3.1", []string{"case.kernel:", `"-3.1"`}},
		{"thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X/y", []string{"case.kernel:", `"X/y"`}},
		{"ext4-10dd-4k-8p-4096M-100M:10-" + strings.Repeat("a", 65), []string{"case.kernel:", "at most 64"}},
		{"/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `""`, "thresh=SIZE"}},
		{"JBOD-4HDD-thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `"JBOD-4HDD-thresh=100M"`, "not supported"}},
		{"RAID0-4HDD-thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", "not supported"}},
		{"UKEY-thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", "not supported"}},
		{"results/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `"results"`, "thresh=SIZE"}},
		{"thresh=/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", "not a size"}},
		{"thresh=100/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `"100" is not a size`}},
		{"thresh=1G/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `"thresh=1G" disagrees`, "1073741824 bytes != 104857600 bytes"}},
		{"thresh=100M/ext4-10dd-4k-8p-4096M-20:10-X", []string{"case.dir:", "disagrees", "ratio 20%"}},
		{"thresh=100M:50M/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", "disagrees with the background", "52428800 bytes != ratio 10%"}},
		{"thresh=100M:x/ext4-10dd-4k-8p-4096M-100M:10-X", []string{"case.dir:", `background "x"`}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			c, err := ParseCase(tt.in)
			require.Error(t, err, "parsed as %#v", c)
			assert.Equal(t, Case{}, c)
			assert.True(t, strings.HasPrefix(err.Error(), tt.want[0]), "error %q does not start with %q", err, tt.want[0])
			for _, w := range tt.want[1:] {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestCaseStringCanonical(t *testing.T) {
	tests := []struct {
		c    Case
		want string
	}{
		{Case{FS: "ext4", DD: 10, BS: Size{Bytes: 4096}, CPUs: 8, Memory: Size{Bytes: 4096 << 20},
			Dirty: Limit{Bytes: 100 << 20}, Background: Limit{Ratio: 10}, Kernel: "X"},
			"ext4-10dd-4k-8p-4096M-100M:10-X"},
		{Case{Dir: "thresh=1G", FS: "xfs", DD: 100, BS: Size{Bytes: 1 << 20}, CPUs: 8, Memory: Size{Bytes: 4 << 30},
			Dirty: Limit{Bytes: 1 << 30}, Background: Limit{Bytes: 50 << 20}},
			"thresh=1G/xfs-100dd-1M-8p-4096M-1024M:50M-X"},
		{Case{FS: "generic", DD: 1, BS: Size{Bytes: 512}, CPUs: 1, Memory: Size{Bytes: 64 << 20},
			Dirty: Limit{Ratio: 20}, Background: Limit{Bytes: 12 << 10}, Kernel: "6.1"},
			"generic-1dd-512-1p-64M-20:12k-6.1"},
		{Case{FS: "generic", DD: 1, BS: Size{Bytes: 1536 << 10}, CPUs: 1, Memory: Size{Bytes: 64 << 20},
			Dirty: Limit{Bytes: 10000}, Background: Limit{Ratio: 10}},
			"generic-1dd-1536k-1p-64M-10k:10-X"},
		// Text that does not denote the numbers is ignored.
		{Case{FS: "generic", DD: 1, BS: Size{4096, "8k"}, CPUs: 1, Memory: Size{64 << 20, "64"},
			Dirty: Limit{Ratio: 20, Text: "20M"}, Background: Limit{Bytes: 1 << 20, Text: "010"}},
			"generic-1dd-4k-1p-64M-20:1M-X"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.c.String())
		})
	}
}

func TestCaseApply(t *testing.T) {
	tests := []struct {
		name  string
		start func(*engine.Config)
		check func(t *testing.T, cfg engine.Config)
	}{
		{"thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", nil, func(t *testing.T, cfg engine.Config) {
			assert.Equal(t, "ext4", cfg.Disks[0].Filesystem)
			assert.Equal(t, 10, cfg.Disks[0].Workload.DD)
			assert.Equal(t, int64(4096), cfg.Disks[0].Workload.BS)
			assert.Equal(t, 8, cfg.CPUs)
			assert.Equal(t, int64(4096), cfg.MemoryMB)
			assert.Equal(t, int64(104857600), cfg.DirtyBytes)
			assert.Equal(t, 0, cfg.DirtyRatio)
			assert.Equal(t, 10, cfg.DirtyBackgroundRatio)
			assert.Equal(t, int64(0), cfg.DirtyBackgroundBytes)
			assert.Equal(t, engine.DefaultConfig().Kernel, cfg.Kernel)
		}},
		{"nfs-10dd-1M-1p-32069M-20:10-X", func(c *engine.Config) { c.DirtyBytes = 1 << 30; c.DirtyBackgroundBytes = 1 << 20 }, func(t *testing.T, cfg engine.Config) {
			assert.Equal(t, "nfs", cfg.Disks[0].Filesystem)
			assert.Equal(t, int64(1<<20), cfg.Disks[0].Workload.BS)
			assert.Equal(t, 1, cfg.CPUs)
			assert.Equal(t, int64(32069), cfg.MemoryMB)
			assert.Equal(t, int64(0), cfg.DirtyBytes, "the ratio form zeroes dirty_bytes")
			assert.Equal(t, 20, cfg.DirtyRatio)
			assert.Equal(t, int64(0), cfg.DirtyBackgroundBytes, "the ratio form zeroes dirty_background_bytes")
			assert.Equal(t, 10, cfg.DirtyBackgroundRatio)
		}},
		{"thresh=1G:500M/generic-100dd-64k-4p-8G-1G:500M-3.1.0-rc9-ioless-full+", func(c *engine.Config) { c.Kernel = "other"; c.DirtyRatio = 20 }, func(t *testing.T, cfg engine.Config) {
			assert.Equal(t, "generic", cfg.Disks[0].Filesystem)
			assert.Equal(t, 100, cfg.Disks[0].Workload.DD)
			assert.Equal(t, int64(64<<10), cfg.Disks[0].Workload.BS)
			assert.Equal(t, int64(8192), cfg.MemoryMB)
			assert.Equal(t, int64(1<<30), cfg.DirtyBytes)
			assert.Equal(t, 0, cfg.DirtyRatio)
			assert.Equal(t, int64(500<<20), cfg.DirtyBackgroundBytes)
			assert.Equal(t, 0, cfg.DirtyBackgroundRatio)
			assert.Equal(t, "3.1.0-rc9-ioless-full", cfg.Kernel, "the release names the preset")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseCase(tt.name)
			require.NoError(t, err)
			cfg := engine.DefaultConfig()
			if tt.start != nil {
				tt.start(&cfg)
			}
			c.Apply(&cfg)
			assert.Equal(t, tt.name, cfg.Case)
			tt.check(t, cfg)
			assert.Equal(t, c, CaseOf(cfg), "CaseOf inverts Apply")
		})
	}
}

func TestCaseOf(t *testing.T) {
	cfg := engine.DefaultConfig()
	assert.Equal(t, "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", CaseOf(cfg).String())

	cfg.DirtyBytes, cfg.DirtyBackgroundBytes, cfg.DirtyBackgroundRatio = 1<<30, 999<<20, 0
	cfg.Disks[0].Workload = engine.Workload{DD: 100, BS: 1 << 20}
	c := CaseOf(cfg)
	assert.Equal(t, "thresh=1G:999M/generic-100dd-1M-8p-4096M-1024M:999M-X", c.String())
	again, err := ParseCase(c.String())
	require.NoError(t, err)
	assert.Equal(t, c, again)

	cfg.DirtyBytes, cfg.DirtyRatio = 0, 20
	assert.Equal(t, "generic-100dd-1M-8p-4096M-20:999M-X", CaseOf(cfg).String())

	// A stale Case string is not trusted.
	cfg = engine.DefaultConfig()
	cfg.Case = "thresh=1G/generic-100dd-4k-8p-4096M-1024M:10-X"
	assert.Equal(t, "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", CaseOf(cfg).String())
	// A matching one keeps its spelling.
	cfg.Case = "thresh=100m/generic-1dd-4K-8p-4g-100m:10-X"
	assert.Equal(t, cfg.Case, CaseOf(cfg).String())

	// Apply(CaseOf(cfg)) leaves the case fields unchanged.
	cfg = engine.DefaultConfig()
	cfg.DirtyBytes, cfg.DirtyRatio, cfg.CPUs, cfg.MemoryMB = 0, 15, 3, 1000
	probe := cfg
	CaseOf(cfg).Apply(&probe)
	assert.True(t, sameCaseFields(cfg, probe), "%+v != %+v", cfg, probe)
}

func TestConfigForCase(t *testing.T) {
	cfg, err := ConfigForCase("thresh=1G/generic-100dd-4k-8p-4096M-1024M:10-X")
	require.NoError(t, err)
	assert.Equal(t, int64(1<<30), cfg.DirtyBytes)
	assert.Equal(t, 100, cfg.Disks[0].Workload.DD)
	assert.Equal(t, "thresh=1G/generic-100dd-4k-8p-4096M-1024M:10-X", cfg.Case)
	assert.Equal(t, engine.DefaultConfig().Runtime, cfg.Runtime)

	cfg, err = ConfigForCase("generic-1dd-4k-8p-4096M-20:10-3.1.0-rc9-ioless-full+")
	require.NoError(t, err)
	assert.Equal(t, "3.1.0-rc9-ioless-full", cfg.Kernel)

	errs := []struct{ in, want string }{
		{"thresh=100M/zfs-10dd-4k-8p-4096M-100M:10-X", `fs: "zfs" is not a filesystem`},
		{"thresh=100M/generic-10dd-4k-8p-4096M-100M:10-9.9.9-nosuch", `case.kernel: release "9.9.9-nosuch" names no kernel preset`},
		{"thresh=100M/generic-0dd-4k-8p-4096M-100M:10-X", `case.dd:`},
	}
	for _, tt := range errs {
		t.Run(tt.in, func(t *testing.T) {
			_, err := ConfigForCase(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestKernelFromRelease(t *testing.T) {
	tests := []struct {
		rel, want string
		ok        bool
	}{
		{"3.1.0-rc9-ioless-full", "3.1.0-rc9-ioless-full", true},
		{"3.1.0-rc9-ioless-full+", "3.1.0-rc9-ioless-full", true},
		{"3.1.0-rc9-nosuch+", "", false},
		{"+", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			got, ok := kernelFromRelease(tt.rel)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCaseSet(t *testing.T) {
	base := "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X"
	tests := []struct {
		part, value string
		want        string // the case name after Set, or the error's start
		err         bool
	}{
		{"fs", "ext4", "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X", false},
		{"dd", "10", "thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X", false},
		{"dd", "100dd", "thresh=100M/generic-100dd-4k-8p-4096M-100M:10-X", false},
		{"bs", "64k", "thresh=100M/generic-1dd-64k-8p-4096M-100M:10-X", false},
		{"cpus", "2", "thresh=100M/generic-1dd-4k-2p-4096M-100M:10-X", false},
		{"memory", "8G", "thresh=100M/generic-1dd-4k-8p-8G-100M:10-X", false},
		{"dirty", "1024M", "thresh=1024M/generic-1dd-4k-8p-4096M-1024M:10-X", false},
		{"dirty", "1G", "thresh=1G/generic-1dd-4k-8p-4096M-1G:10-X", false},
		{"dirty", "20", "generic-1dd-4k-8p-4096M-20:10-X", false},
		{"background", "50M", "thresh=100M/generic-1dd-4k-8p-4096M-100M:50M-X", false},
		{"kernel", "3.1.0-rc9-ioless-full+", "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-3.1.0-rc9-ioless-full+", false},
		{"fs", "EXT4", `case.fs: "EXT4"`, true},
		{"dd", "0", `case.dd: "0dd"`, true},
		{"dd", "-1", `case.dd: "-1dd"`, true},
		{"bs", "1000", `case.bs: "1000"`, true},
		{"cpus", "x", `case.cpus: "xp"`, true},
		{"memory", "1M", `case.memory: "1M"`, true},
		{"dirty", "0", `case.dirty: ratio "0"`, true},
		{"background", "101", `case.background: ratio "101"`, true},
		{"kernel", "a b", `case.kernel: "a b"`, true},
		{"nosuch", "1", `case: "nosuch" is not a case part`, true},
	}
	for _, tt := range tests {
		t.Run(tt.part+"="+tt.value, func(t *testing.T) {
			c, err := ParseCase(base)
			require.NoError(t, err)
			err = c.Set(tt.part, tt.value)
			if tt.err {
				require.Error(t, err)
				assert.True(t, strings.HasPrefix(err.Error(), tt.want), "error %q does not start with %q", err, tt.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, c.String())
			again, err := ParseCase(c.String())
			require.NoError(t, err)
			assert.Equal(t, c, again)
		})
	}
	// Set checks values alone; the whole name checks dirty <= memory.
	c, err := ParseCase(base)
	require.NoError(t, err)
	require.NoError(t, c.Set("dirty", "8G"))
	_, err = ParseCase(c.String())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "case.dirty:")
	// A background in the directory follows the body.
	c, err = ParseCase("thresh=1000M:999M/generic-1dd-64k-8p-4096M-1000M:999M-X")
	require.NoError(t, err)
	require.NoError(t, c.Set("background", "10"))
	assert.Equal(t, "thresh=1000M:10/generic-1dd-64k-8p-4096M-1000M:10-X", c.String())
	_, err = ParseCase(c.String())
	require.NoError(t, err)
}

// TestLimitsFromCaseNames: the same limits reached through a case name.
func TestLimitsFromCaseNames(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"thresh=100M/generic-100000dd-4k-8p-4096M-100M:10-X", "case.dd"},
		{"thresh=100M/generic-1dd-4k-8p-1048576M-100M:10-X", "case.memory"},
		{"thresh=100M/generic-1dd-4k-100000p-4096M-100M:10-X", "case.cpus"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ConfigForCase(tc.name)
			if err == nil {
				err = c.Validate()
			}
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			t.Logf("refused: %v", err)
		})
	}
}

// TestFirstPageConfigCase: the page's first config carries its own case name.
func TestFirstPageConfigCase(t *testing.T) {
	cfg := engine.FirstPageConfig()
	probe := cfg
	probe.Case = ""
	assert.Equal(t, CaseOf(probe).String(), cfg.Case)
}
