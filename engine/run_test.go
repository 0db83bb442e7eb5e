package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCase runs the harness case thresh=100M/<fs>-<dd>dd-4k-8p-4096M-100M:10-X
// (DefaultConfig with that filesystem and dd count) with invariants checked after
// every event.
func runCase(t testing.TB, fs string, dd int, runtime time.Duration, mutate func(*Config)) *Result {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Disks[0].Filesystem, cfg.Disks[0].Workload.DD = fs, dd
	var err error
	// these tests' numbers are the simple device's (60 MiB/s fixed rate), not the
	// default wu2011-hdd's
	cfg.Disks[0].Device, err = devices.Preset("simple")
	require.NoError(t, err)
	cfg.Runtime = Duration(runtime)
	cfg.CheckInvariants = true
	if mutate != nil {
		mutate(&cfg)
	}
	r, err := Run(context.Background(), cfg)
	require.NoError(t, err)
	return r
}

func col(t *testing.T, r *Result, name string) []float64 {
	t.Helper()
	v, ok := r.Series.Column(name)
	require.True(t, ok, name)
	return v
}

// meanAfter averages a column over the rows with time ≥ from seconds.
func meanAfter(t *testing.T, r *Result, name string, from float64) float64 {
	ts, vs := col(t, r, "time_s"), col(t, r, name)
	sum, n := 0.0, 0
	for i := range ts {
		if ts[i] >= from {
			sum += vs[i]
			n++
		}
	}
	require.Positive(t, n)
	return sum / float64(n)
}

func TestDirtySettlesAroundSetpoint(t *testing.T) {
	r := runCase(t, "generic", 1, 120*time.Second, nil)
	setpoint := meanAfter(t, r, "setpoint_MB", 30)
	assert.InDelta(t, 87.5, setpoint, 0.5)
	total := meanAfter(t, r, "dirty_MB", 30) + meanAfter(t, r, "writeback_MB", 30)
	assert.InEpsilon(t, setpoint, total, 0.08, "dirty+writeback %.1f MB vs setpoint %.1f MB", total, setpoint)
	// never above the hard limit once settled
	ts, d, wb, lim := col(t, r, "time_s"), col(t, r, "dirty_MB"), col(t, r, "writeback_MB"), col(t, r, "limit_MB")
	for i := range ts {
		if ts[i] > 30 {
			assert.LessOrEqual(t, d[i]+wb[i], lim[i]*1.02, "t=%v", ts[i])
		}
	}
}

func TestDirtyRateConvergesToBandwidth(t *testing.T) {
	r := runCase(t, "generic", 1, 120*time.Second, nil)
	devMBps := float64(r.Iostat.WriteMBps)
	require.Greater(t, devMBps, 50.0)
	assert.InEpsilon(t, devMBps, r.Tasks[0].RateMBps, 0.05, "dd rate vs device write rate")
	assert.InEpsilon(t, devMBps, r.WriteBWMBps, 0.03, "harness write_bw vs device")
	assert.InEpsilon(t, devMBps, meanAfter(t, r, "dirty_ratelimit_MBps", 60), 0.10, "dirty_ratelimit → write bandwidth")
	assert.Equal(t, "harness", r.WriteBWMethod)
}

func TestTenDDFairness(t *testing.T) {
	r := runCase(t, "generic", 10, 120*time.Second, nil)
	require.Len(t, r.Tasks, 10)
	share := r.Iostat.WriteMBps / 10
	for _, task := range r.Tasks {
		assert.InEpsilon(t, share, task.RateMBps, 0.10, "%s-%d", task.Comm, task.PID)
	}
	assert.InEpsilon(t, share, meanAfter(t, r, "dirty_ratelimit_MBps", 60), 0.15, "dirty_ratelimit → bw/10")
}

func TestKupdateWritesSmallFileAfterExpiry(t *testing.T) {
	// 1 MB written once stays far below the background threshold: only kupdate
	// writes it, once dirty_expire (30 s) has passed, on a 5 s flusher period.
	r := runCase(t, "generic", 1, 45*time.Second, func(c *Config) {
		c.Disks[0].Workload.Count = 256
		c.SampleInterval = Duration(100 * time.Millisecond)
	})
	ts, written := col(t, r, "time_s"), col(t, r, "written_MB")
	first := -1.0
	for i := range ts {
		if written[i] > 0 {
			first = ts[i]
			break
		}
	}
	assert.GreaterOrEqual(t, first, 30.0)
	assert.LessOrEqual(t, first, 36.0)
	assert.Equal(t, 1.0, r.WrittenMB)
	assert.Positive(t, r.Flusher.Works["periodic"])
	assert.Zero(t, r.Flusher.Works["background"])
}

func TestFsyncReturnsAfterPagesWritten(t *testing.T) {
	r := runCase(t, "generic", 1, 60*time.Second, func(c *Config) {
		c.Disks[0].Workload.Count = 50 * 256 // 50 MB, below the threshold: only fsync writes it out
		c.Disks[0].Workload.Fsync = true
	})
	task := r.Tasks[0]
	require.True(t, task.Done, "dd finished")
	require.Len(t, r.Inodes, 1)
	assert.Equal(t, 50.0, r.Inodes[0].WrittenMB, "all pages written")
	// 50 MB at the simple device's 60 MiB/s: the dd cannot return before ~0.83 s
	assert.Greater(t, task.RuntimeS, 0.8)
	assert.Less(t, task.RuntimeS, 5.0)
	// nothing is written after the dd returned
	ts, written := col(t, r, "time_s"), col(t, r, "written_MB")
	for i := range ts {
		if ts[i] >= task.RuntimeS+0.1 {
			assert.Equal(t, 50.0, written[i])
		}
	}
}

func TestDeterministic(t *testing.T) {
	run := func() []byte {
		r := runCase(t, "generic", 10, 30*time.Second, func(c *Config) { c.TraceLines = 1000 })
		b, err := json.Marshal(r)
		require.NoError(t, err)
		return append(b, []byte(r.Trace[len(r.Trace)-1])...)
	}
	assert.Equal(t, run(), run())
}

// TestSeedVariesEveryFilesystem: the machine variation (sim.MachineVariation) makes
// every filesystem's run depend on the seed, within a real machine's spread.
func TestSeedVariesEveryFilesystem(t *testing.T) {
	for _, fsName := range []string{"generic", "ext4", "btrfs", "xfs", "ext3"} {
		t.Run(fsName, func(t *testing.T) {
			a := runCase(t, fsName, 2, 30*time.Second, nil)
			b := runCase(t, fsName, 2, 30*time.Second, func(c *Config) { c.Seed = 7 })
			assert.Equal(t, uint64(7), b.Seed)
			ja, err := json.Marshal(a)
			require.NoError(t, err)
			jb, err := json.Marshal(b)
			require.NoError(t, err)
			assert.NotEqual(t, string(ja), strings.Replace(string(jb), `"seed":7`, `"seed":1`, 1), "another seed gives another run")
			assert.InDelta(t, a.WriteBWMBps, b.WriteBWMBps, 0.03*a.WriteBWMBps, "within a real machine's spread")
		})
	}
}

// TestSwitchActivityListsPathsThatRan: the Result counts the switch-guarded paths
// that ran, each a declared one (a path it does not list ran zero times, so a
// path declared later leaves other Results byte-identical), and a dd workload
// reaches balance_dirty_pages of its throttling design.
func TestSwitchActivityListsPathsThatRan(t *testing.T) {
	r := runCase(t, "ext4", 2, 20*time.Second, nil)
	declared := map[string]bool{}
	for _, p := range kernel.ActivityPaths() {
		declared[p.Name] = true
	}
	for name, n := range r.SwitchActivity {
		assert.True(t, declared[name], name)
		assert.Positive(t, n, name)
	}
	assert.Positive(t, r.SwitchActivity["balance_dirty_pages.io_less"])
	assert.Zero(t, r.SwitchActivity["balance_dirty_pages.io_full"])
	assert.Zero(t, r.SwitchActivity["grab_super_failed"])
	var sum strings.Builder
	require.NoError(t, r.WriteSummary(&sum))
	assert.Contains(t, sum.String(), "balance_dirty_pages.io_less")
}

func TestValidateRejectsBadFields(t *testing.T) {
	tests := []struct {
		field  string
		mutate func(*Config)
		want   string
	}{
		{"fs", func(c *Config) { c.Disks[0].Filesystem = "ntfs" }, `fs: "ntfs" is not a filesystem`},
		{"kernel", func(c *Config) { c.Kernel = "9.9" }, `kernel: "9.9" is not a kernel preset`},
		{"variants", func(c *Config) { c.Variants = map[string]bool{"nope": true} }, `variants: "nope" is not a kernel switch`},
		{"cpus", func(c *Config) { c.CPUs = 0 }, "cpus: 0 is out of range 1-256"},
		{"memory", func(c *Config) { c.MemoryMB = 1 << 30 }, "memory_MB: 1024 TiB is out of range 64 MiB-256 GiB"},
		{"dd", func(c *Config) { c.Disks[0].Workload.DD = 100000 }, "workload.dd: 100000 is out of range 1-10000"},
		{"bs", func(c *Config) { c.Disks[0].Workload.BS = 100 }, "workload.bs: 100 bytes is out of range 512 bytes-64 MiB"},
		{"bs shape", func(c *Config) { c.Disks[0].Workload.BS = 6144 }, "workload.bs: 6144"},
		{"runtime", func(c *Config) { c.Runtime = Duration(365 * 24 * time.Hour) }, "runtime: 8760 h is out of range 1 ms-24 h"},
		{"runtime tiny", func(c *Config) { c.Runtime = 1 }, "runtime: 1 ns is out of range 1 ms-24 h"},
		{"hz", func(c *Config) { c.HZ = 99 }, "hz: 99 is not a kernel HZ"},
		{"work budget", func(c *Config) { c.Disks[0].Workload.DD, c.Runtime = 10000, Duration(24*time.Hour) }, "workload.dd × runtime: 10000 dd for 24h0m0s"},
		{"dirty both zero", func(c *Config) { c.DirtyBytes, c.DirtyRatio = 0, 0 }, "dirty_bytes/dirty_ratio: both 0"},
		{"dirty bytes > memory", func(c *Config) { c.DirtyBytes = 8 << 30 }, "dirty_bytes: 8 GiB is out of range 8 KiB-4 GiB"},
		{"ratio", func(c *Config) { c.DirtyBackgroundRatio = 101 }, "dirty_background_ratio: 101 % is out of range 0-100 %"},
		{"expire", func(c *Config) { c.DirtyExpireCs = 0 }, "dirty_expire_centisecs: 0 centisecs is out of range"},
		{"fsync needs count", func(c *Config) { c.Disks[0].Workload.Fsync = true }, "workload.fsync"},
		{"device", func(c *Config) { c.Disks[0].Device.QueueDepth = 0 }, "device.qd"},
		{"trace", func(c *Config) { c.TraceLines = -1 }, "trace_lines: -1 is out of range 0-500000"},
	}
	for _, tc := range tests {
		c := DefaultConfig()
		tc.mutate(&c)
		err := c.Validate()
		require.Error(t, err, tc.field)
		assert.Contains(t, err.Error(), tc.want, tc.field)
		_, err = Run(context.Background(), c)
		require.Error(t, err, tc.field)
	}
	c := DefaultConfig()
	require.NoError(t, c.Validate())
}

func TestConfigJSONRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Variants = map[string]bool{"scaled_chunk": false}
	b, err := json.Marshal(c)
	require.NoError(t, err)
	var d Config
	require.NoError(t, json.Unmarshal(b, &d))
	assert.Equal(t, c, d)
	assert.Contains(t, string(b), `"runtime":"10m0s"`)
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := DefaultConfig()
	n := 0
	var at Time
	res, err := RunWith(ctx, cfg, RunOptions{Progress: func(done, total Time) {
		n++
		if n == 5 {
			at = done
			cancel()
		}
	}})
	require.ErrorIs(t, err, context.Canceled)
	// what it measured up to the cancel (the page shows it as the cancelled run's)
	require.NotNil(t, res)
	assert.Greater(t, res.RuntimeS, 0.0)
	assert.Less(t, res.RuntimeS, time.Duration(cfg.Runtime).Seconds())
	assert.InDelta(t, float64(at)/1e9, res.RuntimeS, 1, "stopped near where it was cancelled")
	assert.Positive(t, res.WrittenMB)
}

func TestReadersGiveWBTItsLatencySignal(t *testing.T) {
	r := runCase(t, "generic", 2, 4*time.Second, func(c *Config) {
		dev, blk, err := devices.ParseSpec("nvme,wbt=on") // the case's 3.1 kernel has no wbt: switch it on for this disk
		require.NoError(t, err)
		c.Disks[0].Device, c.Disks[0].Block = dev, blk
		c.Disks[0].Workload.Readers = 2
		c.Disks[0].Workload.ReadRandom = true
		c.TraceLines = 50000
	})
	assert.Positive(t, r.Reads.Count)
	assert.Positive(t, r.Iostat.ReadIOPS)
	assert.True(t, r.WBT.Enabled)
	assert.Positive(t, r.WBT.Scales, "wbt scaled on the read latency window")
	seen := map[string]bool{}
	for _, l := range r.Trace {
		for _, ev := range []string{"wbt_timer", "block_rq_issue", "block_rq_complete", "global_dirty_state"} {
			if strings.Contains(l, ": "+ev+": ") {
				seen[ev] = true
			}
		}
	}
	assert.Len(t, seen, 4, "%v", seen)
	mx := col(t, r, "wbt_max")
	assert.Positive(t, mx[len(mx)-1])
}

func TestSeriesColumnsComplete(t *testing.T) {
	r := runCase(t, "generic", 2, 10*time.Second, nil)
	require.Len(t, r.Series.Data, len(r.Series.Names))
	seen := map[string]bool{}
	for i, name := range r.Series.Names {
		assert.False(t, seen[name], "duplicate column %s", name)
		seen[name] = true
		assert.Len(t, r.Series.Data[i], len(r.Series.Data[0]), name)
	}
	assert.Positive(t, meanAfter(t, r, "wsi_wrote_MB", 2), "pages written per writeback_single_inode call")
	assert.Positive(t, meanAfter(t, r, "wsi_nr_to_write_MB", 2))
	assert.Positive(t, meanAfter(t, r, "bdp_pause_ms", 2))
	assert.Positive(t, meanAfter(t, r, "inode_dirty_age_max_s", 2))
}

// TestFSStatsInResult: each filesystem with counters reports them in the Result
// and the summary; the generic filesystem has none.
func TestFSStatsInResult(t *testing.T) {
	for _, c := range []struct {
		fs      string
		nonzero []string
	}{
		{"generic", nil},
		{"ext3", []string{"commits", "journal_pages"}},
		{"ext4", []string{"commits", "journal_pages"}},
		{"xfs", []string{"writepage_calls", "max_cluster_pages", "xfsdatad_ioends"}},
		{"btrfs", []string{"transaction_commits", "metadata_pages"}},
	} {
		t.Run(c.fs, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Disks[0].Filesystem, cfg.Runtime = c.fs, Duration(35*time.Second) // btrfs commits every 30 s
			r, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			got := map[string]int64{}
			for _, st := range r.FSStats {
				assert.NotEmpty(t, st.Doc, st.Name)
				got[st.Name] = st.Value
			}
			if c.nonzero == nil {
				assert.Empty(t, r.FSStats)
				return
			}
			for _, name := range c.nonzero {
				assert.Positive(t, got[name], name)
			}
			var b strings.Builder
			require.NoError(t, r.WriteSummary(&b))
			assert.Contains(t, b.String(), c.nonzero[0]+" ")
		})
	}
}

// TestRunEndsWhenCountLimitedDDsAreDone: a dd with count and conv=fsync ends the
// run once it exited and everything is clean; a reader keeps it going.
func TestRunEndsWhenCountLimitedDDsAreDone(t *testing.T) {
	for _, c := range []struct {
		name    string
		readers int
		early   bool
	}{{"dd only", 0, true}, {"with a reader", 1, false}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Disks[0].Workload = Workload{DD: 1, BS: 1 << 20, Count: 200, Fsync: true, Readers: c.readers}
			cfg.Runtime = Duration(60 * time.Second)
			r, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.True(t, r.Tasks[0].Done)
			if c.early {
				assert.Less(t, r.RuntimeS, 30.0)
				assert.GreaterOrEqual(t, r.RuntimeS, r.Tasks[0].RuntimeS)
				assert.InDelta(t, 200, r.WrittenMB, 0.01)
			} else {
				assert.InDelta(t, 60, r.RuntimeS, 1e-9)
			}
		})
	}
}

func TestSampleRowsAreTheSeries(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Runtime = Duration(20 * time.Second)
	var rows [][]float64
	r, err := RunWith(context.Background(), cfg, RunOptions{Sample: func(row []float64) { rows = append(rows, row) }})
	require.NoError(t, err)
	require.Equal(t, SeriesNames(), r.Series.Names)
	require.Len(t, rows, len(r.Series.Data[0]))
	for i, row := range rows {
		require.Len(t, row, len(r.Series.Names))
		for j, v := range row {
			require.Equal(t, r.Series.Data[j][i], v, "row %d, %s", i, r.Series.Names[j])
		}
	}
}

// TestWCPNrToWriteLE0CountsEveryFilesystem: write_cache_pages' nr_to_write <= 0
// check is counted on the generic walk and on XFS's batched 2.6.36-rc1 steady
// state (which once counted nothing: Chinner's switch looked as if it never ran).
func TestWCPNrToWriteLE0CountsEveryFilesystem(t *testing.T) {
	for _, kernelName := range []string{"2.6.36-rc1", "2.6.36-rc1+fix"} {
		for _, fs := range []string{"xfs", "generic"} {
			t.Run(kernelName+"/"+fs, func(t *testing.T) {
				c := DefaultConfig()
				c.Kernel, c.Disks[0].Filesystem, c.Runtime = kernelName, fs, Duration(5*time.Second)
				dev, err := devices.Preset("chinner2010-vm")
				require.NoError(t, err)
				c.Disks[0].Device = dev
				r, err := Run(context.Background(), c)
				require.NoError(t, err)
				n := r.SwitchActivity["write_cache_pages.nr_to_write_le0"]
				t.Logf("%.1f MB/s, %d checks found nr_to_write <= 0", r.WriteBWMBps, n)
				if fs == "xfs" {
					assert.Positive(t, n, "XFS clusters nr_to_write below 0")
				}
				if fs == "xfs" && kernelName == "2.6.36-rc1" {
					// every one-page call of the old rule's steady state is one check
					assert.Greater(t, n, 100*r.SwitchActivity["writeback_chunk_size.scaled"]+1000)
				}
			})
		}
	}
}
