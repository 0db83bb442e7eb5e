package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/tests/determinism"
)

// updateGolden regenerates testdata/golden.json:
//
//	go test ./engine -run '^TestGolden$' -update
var updateGolden = flag.Bool("update", false, "regenerate testdata/golden.json (only for an intended model change)")

const goldenFile = "testdata/golden.json"

// goldenCase is one case whose Result is fixed.
type goldenCase struct {
	Name   string
	Config func() engine.Config
}

func goldenCaseConfig(name string, runtime time.Duration, edit func(*engine.Config)) func() engine.Config {
	return func() engine.Config {
		c, err := harness.ConfigForCase(name)
		if err != nil {
			panic(err)
		}
		c.Runtime = engine.Duration(runtime)
		if edit != nil {
			edit(&c)
		}
		return c
	}
}

// goldenCases are the threads' representative cases (the benchmark set).
var goldenCases = []goldenCase{
	{"generic-1dd-100M", goldenCaseConfig("thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", 600*time.Second, nil)},
	{"xfs-100dd-1G", goldenCaseConfig("thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", 600*time.Second, nil)},
	{"ext4-10dd-8M", goldenCaseConfig("thresh=8M/ext4-10dd-4k-8p-4096M-8M:10-X", 300*time.Second, nil)},
	{"ext3-10dd-100M", goldenCaseConfig("thresh=100M/ext3-10dd-4k-8p-4096M-100M:10-X", 300*time.Second, nil)},
	{"kara-qd1-ext3-fsync", goldenCaseConfig("thresh=100M/ext3-1dd-1M-8p-4096M-100M:10-X", 120*time.Second, func(c *engine.Config) {
		c.Disks[0].Device, _ = devices.Preset("kara2016-qd1")
		c.Disks[0].Workload.Count, c.Disks[0].Workload.Fsync = 10000, true
	})},
	{"btrfs-2dd-traced", goldenCaseConfig("thresh=100M/btrfs-2dd-4k-8p-4096M-100M:10-X", 60*time.Second, func(c *engine.Config) {
		c.TraceLines = 2000
		c.CheckInvariants = true
	})},
	// the 6.12 preset, one case per filesystem (XFS with 1 MiB writes: large folios)
	{"6.12-generic-1dd-100M", goldenCaseConfig("thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", 120*time.Second, kernel612)},
	{"6.12-xfs-10dd-1M-100M", goldenCaseConfig("thresh=100M/xfs-10dd-1M-8p-4096M-100M:10-X", 120*time.Second, kernel612)},
	{"6.12-ext4-10dd-100M", goldenCaseConfig("thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X", 120*time.Second, kernel612)},
	{"6.12-ext3-1dd-100M", goldenCaseConfig("thresh=100M/ext3-1dd-4k-8p-4096M-100M:10-X", 60*time.Second, kernel612)},
	{"6.12-btrfs-2dd-100M", goldenCaseConfig("thresh=100M/btrfs-2dd-4k-8p-4096M-100M:10-X", 60*time.Second, kernel612)},
}

func kernel612(c *engine.Config) { c.Kernel = "6.12" }

// goldenEntry is what testdata/golden.json keeps per case: the canonical hash of the
// full Result (JSON incl. time series, then trace lines) and headline numbers that
// say what moved when the hash changes.
type goldenEntry struct {
	Hash        string  `json:"hash"`
	Events      uint64  `json:"events"`
	WriteBWMBps float64 `json:"write_bw_MBps"`
	WrittenMB   float64 `json:"written_MB"`
	DirtiedMB   float64 `json:"dirtied_MB"`
	MaxPauseMs  float64 `json:"max_pause_ms"`
	DirtyAgeMax float64 `json:"dirty_age_max_s"`
	IostatAvgRq float64 `json:"avgrq_sz"`
}

func goldenOf(t *testing.T, r *engine.Result) goldenEntry {
	h, err := determinism.Hash(r)
	require.NoError(t, err)
	e := goldenEntry{Hash: h, Events: r.Events, WriteBWMBps: r.WriteBWMBps, WrittenMB: r.WrittenMB, DirtiedMB: r.DirtiedMB,
		DirtyAgeMax: r.DirtyAge.MaxS, IostatAvgRq: r.Iostat.AvgRqSz}
	for _, tk := range r.Tasks {
		e.MaxPauseMs = max(e.MaxPauseMs, tk.MaxPauseMs)
	}
	return e
}

// TestGolden fixes the Result of a few cases, so that an optimisation that changes
// behaviour is caught. It also runs under GOOS=js GOARCH=wasm (./build.sh test),
// which checks the same hashes there.
func TestGolden(t *testing.T) {
	got := map[string]goldenEntry{}
	for _, gc := range goldenCases {
		res, err := engine.Run(context.Background(), gc.Config())
		require.NoError(t, err, gc.Name)
		got[gc.Name] = goldenOf(t, res)
	}
	if *updateGolden {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(goldenFile), 0o755))
		require.NoError(t, os.WriteFile(goldenFile, append(b, '\n'), 0o644))
		t.Logf("wrote %s (%d cases)", goldenFile, len(got))
		return
	}
	raw, err := os.ReadFile(goldenFile)
	require.NoError(t, err, "no golden file; create it with: go test ./engine -run '^TestGolden$' -update")
	var want map[string]goldenEntry
	require.NoError(t, json.Unmarshal(raw, &want))
	var diffs []string
	for _, gc := range goldenCases {
		w, ok := want[gc.Name]
		g := got[gc.Name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: not in %s", gc.Name, goldenFile))
		case w != g:
			cfg, _ := json.Marshal(gc.Config())
			diffs = append(diffs, fmt.Sprintf("%s: Result changed\n    want %+v\n    got  %+v\n    config %s", gc.Name, w, g, cfg))
		}
	}
	if len(want) != len(goldenCases) {
		diffs = append(diffs, fmt.Sprintf("%s has %d cases, the test %d", goldenFile, len(want), len(goldenCases)))
	}
	if len(diffs) > 0 {
		t.Fatalf("the Result of %d golden case(s) changed:\n%s\n\n"+
			"If this change is an optimisation or refactoring, it changed behaviour: fix it.\n"+
			"Only for an intended model change (calibration, a new kernel switch, a fixed model bug),\n"+
			"regenerate the golden file and commit it with the change:\n"+
			"    go test ./engine -run '^TestGolden$' -update",
			len(diffs), strings.Join(diffs, "\n"))
	}
}
