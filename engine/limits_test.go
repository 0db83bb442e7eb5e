package engine

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
)

// TestLimits tries absurd requests. Each is either refused up front by Validate
// (and so by Run) with an error naming the field and the limit, or runs with its
// result bounded: series rows, trace lines, tasks. Nothing here asserts wall time.
func TestLimits(t *testing.T) {
	dev := func(name string, kv ...string) devices.Spec {
		s, err := devices.Preset(name)
		require.NoError(t, err)
		for i := 0; i+1 < len(kv); i += 2 {
			if err := s.Set(kv[i], kv[i+1]); err != nil {
				// the setter may refuse on its own; put the raw value in place
				t.Logf("device %s: %s=%s: %v", name, kv[i], kv[i+1], err)
			}
		}
		return s
	}
	const year = 365 * 24 * time.Hour
	cases := []struct {
		name string
		edit func(*Config)
		// refused: every substring must be in the error (field name and the limit)
		refused []string
		// else the run's bounds
		maxRows, maxTrace int
		early             bool // the run ends once the count-limited dd is done
	}{
		{name: "100000 dd", edit: func(c *Config) { c.Disks[0].Workload.DD = 100_000 },
			refused: []string{"workload.dd", strconv.Itoa(MaxDD)}},
		{name: "1 TB memory", edit: func(c *Config) { c.MemoryMB = 1 << 20 },
			refused: []string{"memory_MB", "256 GiB"}},
		{name: "1 ns run", edit: func(c *Config) { c.Runtime = 1 },
			refused: []string{"runtime", "1 ms-24 h"}},
		{name: "a year of runtime", edit: func(c *Config) { c.Runtime = Duration(year) },
			refused: []string{"runtime", "24 h"}},
		{name: "queue depth 0", edit: func(c *Config) { c.Disks[0].Device.QueueDepth = 0 },
			refused: []string{"device.qd", "out of range"}},
		{name: "queue depth 100000", edit: func(c *Config) { c.Disks[0].Device.QueueDepth = 100_000 },
			refused: []string{"device.qd", "out of range"}},
		{name: "a billion trace lines", edit: func(c *Config) { c.TraceLines = 1_000_000_000 },
			refused: []string{"trace_lines", strconv.Itoa(MaxTraceLines)}},
		{name: "sample_interval 1us", edit: func(c *Config) { c.SampleInterval = Duration(time.Microsecond) },
			refused: []string{"sample_interval", "1 ms-"}},
		{name: "sample_interval 1ms over 24h", edit: func(c *Config) {
			c.Runtime, c.SampleInterval = Duration(24*time.Hour), Duration(time.Millisecond)
		}, refused: []string{"sample_interval", strconv.Itoa(MaxSamples * 50)}},
		{name: "0 CPUs", edit: func(c *Config) { c.CPUs = 0 }, refused: []string{"cpus", strconv.Itoa(MaxCPUs)}},
		{name: "100000 CPUs", edit: func(c *Config) { c.CPUs = 100_000 }, refused: []string{"cpus", strconv.Itoa(MaxCPUs)}},
		{name: "1 GiB dd blocks", edit: func(c *Config) { c.Disks[0].Workload.BS = 1 << 30 },
			refused: []string{"workload.bs", HumanBytes(MaxBS)}},
		{name: "count beyond 1 TiB", edit: func(c *Config) { c.Disks[0].Workload.BS, c.Disks[0].Workload.Count = 1<<20, 1<<20+1 },
			refused: []string{"workload.count", "0-1048576"}},
		{name: "dirty_bytes above memory", edit: func(c *Config) { c.DirtyBytes = (c.MemoryMB + 1) << 20 },
			refused: []string{"dirty_bytes", "4 GiB"}},
		{name: "1000 readers", edit: func(c *Config) { c.Disks[0].Workload.Readers = 1000 },
			refused: []string{"workload.readers", strconv.Itoa(MaxReaders)}},
		{name: "HZ 0", edit: func(c *Config) { c.HZ = 0 }, refused: []string{"hz", "100, 250, 300, 1000"}},
		{name: "expire 0", edit: func(c *Config) { c.DirtyExpireCs = 0 }, refused: []string{"dirty_expire_centisecs", "360000"}},

		// Accepted extremes: they run, and what they keep is bounded.
		{name: "MaxDD dd for 100ms", edit: func(c *Config) {
			c.Disks[0].Workload.DD, c.Runtime, c.DirtyBytes = MaxDD, Duration(100*time.Millisecond), 4<<30
		}, maxRows: 601},
		{name: "256 GiB memory, dirty_bytes = memory", edit: func(c *Config) {
			c.MemoryMB, c.DirtyBytes, c.Runtime = MaxMemoryMB, MaxMemoryMB<<20, Duration(5*time.Second)
		}, maxRows: 601},
		{name: "1 ms run", edit: func(c *Config) { c.Runtime = minRuntime }, maxRows: 2},
		{name: "MaxCPUs", edit: func(c *Config) { c.CPUs, c.Runtime = MaxCPUs, Duration(2*time.Second) }, maxRows: 601},
		{name: "24h run, dd done after 100 MB", edit: func(c *Config) {
			c.Runtime, c.Disks[0].Workload.BS, c.Disks[0].Workload.Count = maxRuntime, 1<<20, 100
		}, maxRows: 601, early: true},
		{name: "queue depth 1", edit: func(c *Config) { c.Disks[0].Device = dev("simple", "qd", "1"); c.Runtime = Duration(5 * time.Second) },
			maxRows: 601},
		{name: "nvme queue depth 1023", edit: func(c *Config) { c.Disks[0].Device = dev("nvme", "qd", "1023"); c.Runtime = Duration(2 * time.Second) },
			maxRows: 601},
		{name: "MaxTraceLines", edit: func(c *Config) { c.TraceLines, c.Runtime = MaxTraceLines, Duration(2*time.Second) },
			maxRows: 601, maxTrace: MaxTraceLines},
		{name: "trace ring smaller than the trace", edit: func(c *Config) { c.TraceLines, c.Runtime = 10, Duration(2*time.Second) },
			maxRows: 601, maxTrace: 10},
		{name: "sample_interval 1ms, the most rows", edit: func(c *Config) {
			c.Runtime, c.SampleInterval = Duration(MaxSamples*50*time.Millisecond), Duration(time.Millisecond)
		}, maxRows: MaxSamples*50 + 1},
		{name: "count 2^40/bs with fsync", edit: func(c *Config) {
			c.Disks[0].Workload.BS, c.Disks[0].Workload.Count, c.Disks[0].Workload.Fsync, c.Runtime = MaxBS, 1<<40/MaxBS, true, Duration(2*time.Second)
		}, maxRows: 601},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			// The invariant check walks every inode after every event: not with 10000 dd.
			c.CheckInvariants = tc.maxRows > 0 && tc.maxRows <= 601 && c.Disks[0].Workload.DD <= 100
			verr := c.Validate()
			res, err := Run(context.Background(), c)
			if tc.refused != nil {
				require.Error(t, verr, "Validate accepted it")
				require.Error(t, err, "Run accepted it")
				require.Nil(t, res)
				require.Equal(t, verr.Error(), err.Error(), "Run refuses with Validate's error")
				for _, s := range tc.refused {
					require.Contains(t, err.Error(), s)
				}
				t.Logf("refused: %v", err)
				return
			}
			require.NoError(t, verr)
			require.NoError(t, err)
			if tc.early {
				require.Less(t, res.RuntimeS, time.Duration(c.Runtime).Seconds())
				require.True(t, res.Tasks[0].Done)
			} else {
				require.InDelta(t, time.Duration(c.Runtime).Seconds(), res.RuntimeS, 1e-9)
			}
			require.Len(t, res.Tasks, c.Disks[0].Workload.DD)
			rows := len(res.Series.Data[0])
			require.LessOrEqual(t, rows, tc.maxRows, "series rows")
			for i, col := range res.Series.Data {
				require.Len(t, col, rows, "column %s", res.Series.Names[i])
			}
			require.LessOrEqual(t, len(res.Trace), max(tc.maxTrace, 0))
			if tc.maxTrace > 0 && len(res.Trace) == tc.maxTrace {
				require.Positive(t, res.TraceDropped)
			}
			t.Logf("ran: %d events, %d rows, %d trace lines (%d dropped), written %.0f MB",
				res.Events, rows, len(res.Trace), res.TraceDropped, res.WrittenMB)
		})
	}
}

const c4096MB = 4096 << 20
