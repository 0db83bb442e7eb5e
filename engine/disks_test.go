package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/harness"
)

// TestOneDiskListIsTheSingleDiskMachine: a machine given as a one-entry disk list
// gives byte-identical Results to the Config it came from.
func TestOneDiskListIsTheSingleDiskMachine(t *testing.T) {
	cfg, err := harness.ConfigForCase("thresh=100M/ext4-2dd-4k-8p-4096M-100M:10-X")
	require.NoError(t, err)
	cfg.Runtime = engine.Duration(20 * time.Second)
	r1, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, cfg.Disks, 1)
	assert.Empty(t, r1.Disks)
}

// TestOldConfigJSON: a Config saved before the disk list held every disk (its
// first disk as the top-level device, fs, bdi and workload, "disks" the rest)
// loads as the same machine, and a top-level field set over a Config keeps the
// rest of its first disk.
func TestOldConfigJSON(t *testing.T) {
	old, err := os.ReadFile("testdata/old-config.json")
	require.NoError(t, err)
	var got engine.Config
	require.NoError(t, json.Unmarshal(old, &got))
	want := twoDiskConfig(t)
	want.Disks[0].Block = devices.BlockOverrides{"wbt": "off"}
	assert.Equal(t, want, got)

	over := engine.DefaultConfig()
	require.NoError(t, json.Unmarshal([]byte(`{"fs": "xfs", "workload": {"dd": 3}}`), &over))
	require.Len(t, over.Disks, 1)
	assert.Equal(t, "xfs", over.Disks[0].Filesystem)
	assert.Equal(t, engine.Workload{DD: 3, BS: 4096}, over.Disks[0].Workload)
	assert.Equal(t, engine.DefaultDisk().Device, over.Disks[0].Device)

	var fresh engine.Config
	require.NoError(t, json.Unmarshal([]byte(`{"disks": [{"device": {"name": "nvme"}, "fs": "ext4", "workload": {"dd": 1, "bs": 4096}}]}`), &fresh))
	require.Len(t, fresh.Disks, 1)
	assert.Equal(t, kernel.DefaultBdiKnobs(), fresh.Disks[0].BDI, "an absent bdi is the default knobs")
}

func twoDiskConfig(t *testing.T) engine.Config {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Kernel = "6.1"
	cfg.Runtime = engine.Duration(20 * time.Second)
	cfg.CheckInvariants = true
	fast, err := devices.Preset("nvme")
	require.NoError(t, err)
	slow, err := devices.Preset("simple")
	require.NoError(t, err)
	slow.BandwidthBps = 8 << 20
	cfg.Disks = []engine.DiskConfig{
		{Device: fast, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(), Workload: engine.Workload{Editors: 1, Readers: 1}},
		{Device: slow, Filesystem: "ext4", BDI: kernel.BdiKnobs{MaxRatio: 20}, Workload: engine.Workload{DD: 1, BS: 1 << 20}},
	}
	return cfg
}

// TestTwoDisks: a fast disk with an editor and a reader next to a slow disk with a
// dd: both bdis write, the slow one is capped by its max_ratio, the invariants hold
// after every event, and the per-disk results name each disk.
func TestTwoDisks(t *testing.T) {
	cfg := twoDiskConfig(t)
	require.NoError(t, cfg.Validate())
	r, err := engine.Run(context.Background(), cfg)
	require.NoError(t, err)
	require.Len(t, r.Disks, 2)
	assert.Equal(t, "8:0", r.Disks[0].BDI)
	assert.Equal(t, "8:16", r.Disks[1].BDI)
	assert.Positive(t, r.Disks[1].WrittenMB)
	assert.Positive(t, r.Disks[0].WrittenMB, "the editor's saves reach the fast disk")
	require.Len(t, r.Disks[0].Editors, 1)
	assert.Positive(t, r.Disks[0].Editors[0].N)
	require.Len(t, r.Disks[0].Readers, 1)
	assert.LessOrEqual(t, r.Disks[1].BdiThreshMB, 100*0.2+0.01, "max_ratio 20 of a 100 MB limit")
	assert.Equal(t, 1, r.Tasks[0].Disk)
	require.NotNil(t, r.Disks[1].Iostat)
	assert.Equal(t, r.Iostat, *r.Disks[0].Iostat, "Result.Iostat is the first disk's")
	assert.InDelta(t, r.Disks[1].WriteMBps, r.Disks[1].Iostat.WriteMBps, 0.5, "the dd's disk: its own iostat")
}

// TestDisksJSON: the disk list survives JSON.
func TestDisksJSON(t *testing.T) {
	cfg := twoDiskConfig(t)
	b, err := json.Marshal(cfg)
	require.NoError(t, err)
	var back engine.Config
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, cfg, back)
}

// TestDisksValidate: errors name the field.
func TestDisksValidate(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(c *engine.Config)
	}{
		{"fs", "disks[1].fs", func(c *engine.Config) { c.Disks[1].Filesystem = "vfat" }},
		{"max_ratio", "disks[1].bdi.max_ratio", func(c *engine.Config) { c.Disks[1].BDI.MaxRatio = 0 }},
		{"dd", "disks[1].workload.dd", func(c *engine.Config) { c.Disks[1].Workload.DD = -1 }},
		{"editors", "workload.editors", func(c *engine.Config) { c.Disks[0].Workload.Editors = 1000 }},
		{"interval", "disks[1].workload.editor_interval", func(c *engine.Config) { c.Disks[1].Workload.EditorInterval = 1 }},
		{"min_ratio sum", "bdi.min_ratio", func(c *engine.Config) {
			c.Disks[0].BDI.MinRatio = 60
			c.Disks[1].BDI.MinRatio = 40
		}},
		{"strictlimit", "disks[1].bdi.strictlimit", func(c *engine.Config) {
			c.Kernel = "2.6.30-rc6"
			c.Disks[1].BDI.StrictLimit = true
		}},
		{"strictlimit before 6.2", "disks[1].bdi.strictlimit: before Linux 6.2", func(c *engine.Config) {
			c.Kernel = "6.1"
			c.Disks[1].BDI.StrictLimit = true
		}},
		{"max_bytes before 6.3", "disks[1].bdi.max_bytes: this kernel has no max_bytes knob", func(c *engine.Config) {
			c.Kernel = "6.1"
			c.Disks[1].BDI.MaxBytes = 16 << 20
		}},
		{"too many", "disks:", func(c *engine.Config) {
			for len(c.Disks) <= engine.MaxDisks {
				c.Disks = append(c.Disks, c.Disks[0])
			}
		}},
		{"no task", "no task", func(c *engine.Config) {
			c.Disks[0].Workload = engine.Workload{}
			c.Disks[1].Workload = engine.Workload{}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := twoDiskConfig(t)
			tc.edit(&cfg)
			require.ErrorContains(t, cfg.Validate(), tc.want)
		})
	}
}

// TestParseDiskRoundTrip: the --disk form parses and prints back.
func TestParseDiskRoundTrip(t *testing.T) {
	texts := []string{
		"usb2-stick,fs=ext4,dd=1,bs=1M,count=1024,max_ratio=5,fsync=on",
		"nvme,qd=32,fs=xfs,readers=2,read_bs=16k,read_random=on,editors=1,editor_bytes=64k,editor_interval=500ms,min_ratio=10,strictlimit=on,max_bytes=16M,min_bytes=1M",
	}
	for _, k := range engine.DiskKeys { // every key of the table is round-tripped
		assert.Contains(t, strings.Join(texts, ","), ","+k.Key+"=", k.Key)
	}
	for _, text := range texts {
		d, err := engine.ParseDisk(text)
		require.NoError(t, err, text)
		back, err := engine.ParseDisk(d.String())
		require.NoError(t, err, d.String())
		assert.Equal(t, d, back, d.String())
	}
	_, err := engine.ParseDisk("usb2-stick,max_ratio=x")
	require.ErrorContains(t, err, `disk: max_ratio: "x" is not a whole number`)
	d, err := engine.ParseDisk("usb2-stick,max_ratio=0,dd=1") // the range is Validate's
	require.NoError(t, err)
	cfg := engine.DefaultConfig()
	cfg.Disks = append(cfg.Disks, d)
	require.ErrorContains(t, cfg.Validate(), "disks[1].bdi.max_ratio: 0 % out of range")
	_, err = engine.ParseDisk("usb2-stick,bogus=1")
	require.ErrorContains(t, err, "bogus")
	_, err = engine.ParseDisk("nosuch,dd=1")
	require.ErrorContains(t, err, "nosuch")
}
