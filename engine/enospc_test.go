package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongRunFillsTheDisk: an hour on wu2011-hdd (its partition shrunk to 4 GiB so
// the test stays small) fills the disk on every filesystem: the dd exit with
// ENOSPC, the run goes on to its runtime, the flusher writes every dirtied page,
// and the Result and summary say when the disk filled.
func TestLongRunFillsTheDisk(t *testing.T) {
	for _, c := range []struct {
		fs    string
		dd    int
		minMB float64 // the free blocks: btrfs's metadata chunk is 2 × 256 MiB
	}{{"generic", 1, 4096}, {"ext3", 1, 3800}, {"ext4", 1, 3800}, {"ext4", 3, 3800}, {"xfs", 2, 3900}, {"btrfs", 1, 3500}} {
		t.Run(fmt.Sprintf("%s-%ddd", c.fs, c.dd), func(t *testing.T) {
			cfg := DefaultConfig()
			require.Equal(t, "wu2011-hdd", cfg.Disks[0].Device.Name)
			require.NoError(t, cfg.Disks[0].Device.Set("capacity", "4G"))
			cfg.Disks[0].Filesystem, cfg.Disks[0].Workload.DD = c.fs, c.dd
			cfg.Runtime = Duration(time.Hour)
			r, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			assert.InDelta(t, 3600.0, r.RuntimeS, 1e-9, "the run reached its runtime")
			require.Len(t, r.Full, 1)
			f := r.Full[0]
			assert.Equal(t, "8:0", f.BDI)
			assert.Equal(t, c.dd, f.DDEnospc)
			assert.Greater(t, f.FullAtS, 30.0, "4 GiB at ~60 MB/s")
			assert.Less(t, f.FullAtS, 300.0)
			for _, tr := range r.Tasks {
				assert.Equal(t, ExitENOSPC, tr.Exit)
				assert.True(t, tr.Done)
				assert.GreaterOrEqual(t, tr.RuntimeS, f.FullAtS-1)
			}
			assert.Equal(t, r.DirtiedMB, r.WrittenMB, "the flusher finished")
			assert.LessOrEqual(t, r.WrittenMB, 4096.0)
			assert.GreaterOrEqual(t, r.WrittenMB, c.minMB, "the free blocks were used")
			var b strings.Builder
			require.NoError(t, r.WriteSummary(&b))
			assert.Contains(t, b.String(), fmt.Sprintf("disk 8:0 full at %.1f s: %d dd exited with ENOSPC", f.FullAtS, c.dd))
			assert.Contains(t, b.String(), "exited with ENOSPC after")
			j, err := json.Marshal(r)
			require.NoError(t, err)
			assert.Contains(t, string(j), `"full":[{"bdi":"8:0","full_at_s":`)
			assert.Contains(t, string(j), `"exit":"enospc"`)
		})
	}
}

// TestWu2011Runs35Minutes is issue 35's report: 35 minutes of
// thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X on the full 100 GB partition failed
// at the end with bio-inside-device; the dd now exits with ENOSPC when the
// filesystem's free blocks are used (~1770 s) and the run completes.
func TestWu2011Runs35Minutes(t *testing.T) {
	if testing.Short() {
		t.Skip("fills 100 GB (about a second)")
	}
	cfg := DefaultConfig()
	cfg.Disks[0].Filesystem, cfg.Disks[0].Workload.DD = "ext4", 1
	cfg.Runtime = Duration(35 * time.Minute)
	r, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	assert.InDelta(t, 2100.0, r.RuntimeS, 1e-9)
	require.Len(t, r.Full, 1)
	assert.InDelta(t, 1770.0, r.Full[0].FullAtS, 60.0)
	assert.Equal(t, ExitENOSPC, r.Tasks[0].Exit)
	assert.InDelta(t, 93_680.0, r.WrittenMB, 100.0, "ext4's free blocks on 100 GB")
}

// TestRunsWithoutAFullDiskReportNone: a run that never fills its disk has no
// Full, no task exit cause and no full_at_s in its JSON.
func TestRunsWithoutAFullDiskReportNone(t *testing.T) {
	r := runCase(t, "ext4", 2, 5*time.Second, func(c *Config) { c.Disks[0].Workload.Editors = 1 })
	assert.Empty(t, r.Full)
	for _, tr := range r.Tasks {
		assert.Empty(t, tr.Exit)
	}
	j, err := json.Marshal(r)
	require.NoError(t, err)
	for _, k := range []string{`"full"`, `"exit"`, `"full_at_s"`} {
		assert.NotContains(t, string(j), k)
	}
}

// TestFailureErrorIsShort: an invariant failure's message is the invariant and
// its numbers, the time and the seed; the config JSON is its Details, reached
// through wrapping (ErrorDetails), and errors.Is still finds the invariant error.
func TestFailureErrorIsShort(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Runtime = Duration(time.Second)
	m, err := Build(cfg, BuildOptions{})
	require.NoError(t, err)
	inv := errors.New("invariant bio-inside-device: device sda (wu2011-hdd): W bio of sectors [195312496, 195328880) outside its capacity of 195312500 sectors (100GB)")
	m.fail(inv)
	err = m.Run(context.Background())
	require.Error(t, err)
	msg := err.Error()
	assert.True(t, strings.HasPrefix(msg, inv.Error()), msg)
	assert.Contains(t, msg, "(at t=0.000000s, seed 1)")
	assert.NotContains(t, msg, "config")
	assert.Less(t, len(msg), 250, "one short line")
	assert.ErrorIs(t, err, inv)
	var fe *FailureError
	require.ErrorAs(t, err, &fe)
	d := ErrorDetails(fmt.Errorf("run: %w", err))
	require.True(t, strings.HasPrefix(d, "config {"), d)
	var back Config
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(d, "config ")), &back))
	assert.Equal(t, cfg.Disks[0].Device.Name, back.Disks[0].Device.Name)
	assert.Empty(t, ErrorDetails(errors.New("plain")))
}
