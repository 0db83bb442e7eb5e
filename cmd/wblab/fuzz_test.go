package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine"
)

// TestFuzzConfigs is VOPR-lite in CI: a few hundred random valid configs with
// invariants on. Run more with: wblab fuzz --configs 10000 --seed S.
func TestFuzzConfigs(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	for i := range n {
		cfg := fuzzConfig(42, i, engine.Duration(2*time.Second))
		require.NoError(t, cfg.Validate(), "config %d", i)
		err := fuzzOne(context.Background(), cfg, i%25 == 24)
		if err == nil {
			continue
		}
		var b strings.Builder
		reportFailure(&b, "config", cfg, err, fmt.Sprintf("wblab fuzz --seed 42 --index %d", i))
		t.Errorf("%s", b.String())
	}
}

// TestFuzzFoundBugs are the reproducers of the bugs wblab fuzz found on its first
// runs (all fsync of a count-limited dd on ext3/ext4/btrfs; fixed in engine/fs).
func TestFuzzFoundBugs(t *testing.T) {
	for _, tc := range []struct{ name, args string }{
		{"btrfs fsync panicked in fileMap.find", "run --fs btrfs --bs 4k --count 5 --fsync --runtime 2s --device simple --check"},
		{"btrfs 1k blocks fsync panicked", "run --fs btrfs --bs 1k --count 1322 --fsync --runtime 2s --device simple --check"},
		{"ext4 fsync panicked in fileMap.find", "run --fs ext4 --bs 64k --count 9 --fsync --runtime 2s --device simple --check"},
		{"ext4 117 dd fsync broke page conservation", "run --fs ext4 --dd 117 --bs 64k --count 9 --fsync --device x25e --memory 768M --dirty 607888k --background 8911k --runtime 200ms --check"},
		{"ext3 fsync drove NR_WRITEBACK negative", "run --fs ext3 --count 1 --fsync --runtime 2s --device simple --check"},
		{"ext3 14 dd fsync drove BDI_WRITEBACK negative", "run --fs ext3 --dd 14 --bs 1k --count 2 --fsync --cpus 24 --memory 278M --dirty 29 --background 79 --writeback-cs 1 --runtime 100ms --device simple --check"},
		{"btrfs hdd fsync broke page conservation", "run --fs btrfs --bs 1M --count 13 --fsync --cpus 33 --memory 10792M --dirty 22 --background 3470k --hz 300 --expire-cs 237 --writeback-cs 1 --runtime 40ms --device simple --check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseRunArgs(strings.Fields(tc.args)[1:])
			require.NoError(t, err)
			cfg, err := buildConfig(o)
			require.NoError(t, err)
			require.NoError(t, fuzzOne(context.Background(), cfg, true), "wblab %s", tc.args)
		})
	}
}

// TestFuzzConfigDeterministic: config I of seed S is fixed (replay depends on it).
func TestFuzzConfigDeterministic(t *testing.T) {
	a, b := fuzzConfig(7, 123, engine.Duration(10*time.Second)), fuzzConfig(7, 123, engine.Duration(10*time.Second))
	require.True(t, reflect.DeepEqual(a, b))
	require.False(t, reflect.DeepEqual(a, fuzzConfig(7, 124, engine.Duration(10*time.Second))))
}

// TestFuzzConfigRanges: the generator covers the ranges the issue asks for and
// draws only valid configs.
func TestFuzzConfigRanges(t *testing.T) {
	fss, devs := map[string]bool{}, map[string]bool{}
	minDD, maxDD, maxCPU := 1<<30, 0, 0
	small, long := 0, 0
	for i := range 3000 {
		c := fuzzConfig(1, i, engine.Duration(10*time.Second))
		require.NoError(t, c.Validate(), "config %d", i)
		require.True(t, c.CheckInvariants)
		fss[c.Disks[0].Filesystem], devs[c.Disks[0].Device.Name] = true, true
		minDD, maxDD, maxCPU = min(minDD, c.Disks[0].Workload.DD), max(maxDD, c.Disks[0].Workload.DD), max(maxCPU, c.CPUs)
		assert.LessOrEqual(t, c.Disks[0].Workload.DD, 200)
		assert.LessOrEqual(t, c.CPUs, 64)
		assert.True(t, c.MemoryMB >= 256 && c.MemoryMB <= 64<<10, "memory %d", c.MemoryMB)
		if c.DirtyBytes != 0 {
			assert.True(t, c.DirtyBytes >= 1<<20 && c.DirtyBytes <= 4<<30, "dirty %d", c.DirtyBytes)
		}
		assert.True(t, c.Disks[0].Device.QueueDepth >= 1)
		if c.Disks[0].Device.CapacityBytes > 0 && c.Disks[0].Device.CapacityBytes <= 16<<30 {
			small++ // a disk that fills (ENOSPC)
		}
		if c.Runtime > engine.Duration(10*time.Second) {
			long++ // 30 min to 2 h on a small disk, at most 4 dd
			assert.True(t, c.Disks[0].Device.CapacityBytes <= 16<<30 && c.Disks[0].Workload.DD <= 4, "config %d", i)
			assert.True(t, c.Runtime >= engine.Duration(30*time.Minute) && c.Runtime <= engine.Duration(2*time.Hour), "config %d: %v", i, c.Runtime)
		}
	}
	assert.Greater(t, small, 200, "small disks drawn")
	assert.Greater(t, long, 50, "long runs drawn")
	assert.Len(t, fss, len(engine.Filesystems()))
	assert.Len(t, devs, len(presets().Devices))
	assert.Equal(t, 1, minDD)
	assert.Greater(t, maxDD, 150)
	assert.Greater(t, maxCPU, 50)
}

// TestFuzzReplayCommand: the printed "wblab run ... --check" line gives exactly
// the config (so replaying it reproduces the run).
func TestFuzzReplayCommand(t *testing.T) {
	expressed := 0
	for i := range 400 {
		cfg := fuzzConfig(9, i, engine.Duration(10*time.Second))
		args, ok := runFlags(cfg)
		if !ok {
			require.Positive(t, cfg.Disks[0].Workload.Readers, "config %d not expressible", i)
			continue
		}
		expressed++
		require.Equal(t, "run", args[0])
		o, err := parseRunArgs(args[1:])
		require.NoError(t, err, "config %d: %s", i, commandLine(args))
		got, err := buildConfig(o)
		require.NoError(t, err, "config %d: %s", i, commandLine(args))
		want := cfg
		want.Case = got.Case
		if len(want.Variants) == 0 && len(got.Variants) == 0 {
			want.Variants, got.Variants = nil, nil
		}
		require.True(t, reflect.DeepEqual(want, got), "config %d: %s\nwant %+v\ngot  %+v", i, commandLine(args), want, got)
	}
	require.Greater(t, expressed, 250)
}

// TestFuzzCommand runs the subcommand: flags, a clean run, --index, --replay and
// a failing replay's output.
func TestFuzzCommand(t *testing.T) {
	code, out, errOut := runArgs(t, "fuzz", "--configs", "20", "--seed", "5", "--max-runtime", "500ms", "--recheck", "5")
	require.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "wblab fuzz: 20 configs (seed 5")
	assert.Empty(t, errOut)

	code, out, _ = runArgs(t, "fuzz", "--seed", "5", "--index", "3", "-v", "--max-runtime", "500ms")
	assert.Contains(t, out, "wblab fuzz: 1 configs (seed 5, first 3)")
	_ = code

	dir := t.TempDir()
	good := fuzzConfig(5, 0, engine.Duration(time.Second))
	good.Disks[0].Workload.Fsync, good.Disks[0].Filesystem = false, "generic"
	b, _ := json.Marshal(good)
	path := filepath.Join(dir, "good.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, out, errOut = runArgs(t, "fuzz", "--replay", path)
	require.Equal(t, exitOK, code, out+errOut)
	assert.Contains(t, out, "ok (invariants held, same Result twice)")

	bad := good
	bad.CPUs = 0
	b, _ = json.Marshal(bad)
	require.NoError(t, os.WriteFile(path, b, 0o644))
	code, _, errOut = runArgs(t, "fuzz", "--replay", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "cpus")

	for _, args := range [][]string{{"--configs", "0"}, {"--parallel", "0"}, {"--max-runtime", "2h"}, {"--bogus"}, {"extra"}, {"--index", "1", "--replay", "x"}} {
		code, _, errOut := runArgs(t, append([]string{"fuzz"}, args...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Contains(t, errOut, "wblab fuzz:", "%v", args)
	}
	code, out, _ = runArgs(t, "help", "fuzz")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "--configs N")
}

// TestPanicSite names the innermost wblab frames of a panic.
func TestPanicSite(t *testing.T) {
	stack := "goroutine 1 [running]:\nruntime/debug.Stack()\n\t/usr/local/go/src/runtime/debug/stack.go:26 +0x5e\n" +
		"github.com/wblab/wblab/engine/fs.(*fileMap).find(...)\n\t/work/main/engine/fs/layout.go:109 +0x12\n" +
		"github.com/wblab/wblab/cmd/wblab.fuzzOne.func1()\n\t/work/main/cmd/wblab/fuzz.go:1 +0x1\n"
	assert.Equal(t, "engine/fs.(*fileMap).find fs/layout.go:109", panicSite([]byte(stack)))
}
