package validate

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// console is a small log in run-case.sh's format: the host header, SeaBIOS's escapes
// and a guest line glued to "Booting from ROM..", two samples, events and END.
const console = "H harness=wblab-validate/1 date=2026-12-02T18:57:57Z\n" +
	"H qemu=7.2.22 accel=tcg smp=1 mem_MiB=4096 host_cpu=AMD_EPYC host_cpus=2 host_kernel=6.18\n" +
	"H debian_kernel=6.1.0-57-amd64 cache=direct,no-flush throttle_bps_write_vda=8388608 throttle_bps_write_vdb=none\n" +
	"\x1bc\x1b[?7l\x1b[2J\x1b[0mSeaBIOS (version 1.16.2)\n" +
	"Booting from ROM..\x1bc\x1b[?7l\x1b[2JH disk=vda dev=254:0 sched=mq-deadline wbt_lat_usec=75000 rotational=1 write_cache=write_back nr_requests=256 max_sectors_kb=1280 nr_hw_queues=1\n" +
	"H fs_bdi=254:0\n" +
	"H kernel=6.1.0-57-amd64 cpus=1 mem_total_kB=4007368 dirty_bytes=104857600 dirty_ratio=0 dirty_background_bytes=0 dirty_background_ratio=10 dirty_expire_centisecs=3000 dirty_writeback_centisecs=500\n" +
	"H fs=ext4 mount=ext4,rw,relatime work=dd dd=2 bs=4k run_s=2 copy_MB=0\n" +
	"[    9.1] random kernel message\n" +
	"E start t=10.00\n" +
	"S t=10.00 nr_dirty=0 nr_writeback=0 nr_dirtied=1000 nr_written=1000 nr_dirty_threshold=25600 nr_dirty_background_threshold=12800 | bdi 254:0 BdiWriteback=0 BdiReclaimable=0 BdiDirtyThresh=0 DirtyThresh=102400 BackgroundThresh=51200 BdiWriteBandwidth=102400 | blk vda r=1 rsect=8 w=2 wmerge=0 wsect=16 wticks=1 inflight=0 ioticks=5\n" +
	"S t=11.00 nr_dirty=2560 nr_writeback=512 nr_dirtied=4840 nr_written=2024 nr_dirty_threshold=25600 nr_dirty_background_threshold=12800 | bdi 254:0 BdiWriteback=2048 BdiReclaimable=10240 BdiDirtyThresh=51200 DirtyThresh=102400 BackgroundThresh=51200 BdiWriteBandwidth=8192 | blk vda r=1 rsect=8 w=10 wmerge=0 wsect=16400 wticks=9 inflight=3 ioticks=505\n" +
	"S t=12.00 nr_dirty=5120 nr_writeback=1024 nr_dirtied=8680 nr_written=3048 nr_dirty_threshold=25600 nr_dirty_background_threshold=12800 | bdi 254:0 BdiWriteback=4096 BdiReclaimable=20480 BdiDirtyThresh=102400 DirtyThresh=102400 BackgroundThresh=51200 BdiWriteBandwidth=8192 | blk vda r=1 rsect=8 w=18 wmerge=0 wsect=32784 wticks=17 inflight=1 ioticks=1505\n" +
	"E dd_killed t=12.01\n" +
	"E file /mnt/a/dd1 bytes=16777216\n" +
	"END t=12.05\n" +
	"[   13.0] reboot: Power down\n" +
	"H host_wall_s=30.0\n"

func TestReadLogConsole(t *testing.T) {
	l, err := ReadLog("small", strings.NewReader(console))
	require.NoError(t, err)
	require.Len(t, l.Disks, 1)
	assert.Equal(t, Disk{Name: "vda", Dev: "254:0", Sched: "mq-deadline", WBTLatUs: 75000, Rotational: true,
		WriteCache: "write_back", NrRequests: 256, MaxSectorsKB: 1280, HWQueues: 1, ThrottleBps: 8388608}, l.Disks[0])
	assert.Len(t, l.Samples, 3)
	assert.Equal(t, 10.0, l.StartT)
	assert.Equal(t, 12.05, l.EndT)
	assert.Equal(t, "0", l.Header["dirty_ratio"], "writing dirty_bytes zeroes dirty_ratio")
	assert.Equal(t, "30.0", l.Header["host_wall_s"])

	c, err := CaseOf(l)
	require.NoError(t, err)
	assert.Equal(t, int64(4096), c.BS)
	assert.Equal(t, 2, c.DD)
	assert.Equal(t, int64(100<<20), c.DirtyBytes)

	s := l.Series()
	for _, tc := range []struct {
		col  string
		want []float64
	}{
		{"time_s", []float64{0, 1, 2}},
		{"dirty_MB", []float64{0, 10, 20}},      // pages / 256
		{"writeback_MB", []float64{0, 2, 4}},    // pages / 256
		{"thresh_MB", []float64{100, 100, 100}}, // nr_dirty_threshold pages / 256
		{"bg_thresh_MB", []float64{50, 50, 50}},
		{"write_bw_MBps", []float64{100, 8, 8}}, // BdiWriteBandwidth kB/s / 1024
		{"iostat_wMBps", []float64{0, 8, 8}},    // 16384 sectors of 512 B in 1 s
		{"iostat_w_s", []float64{0, 8, 8}},
		{"iostat_util_pct", []float64{0, 50, 100}}, // io_ticks ms per 10 ms
		{"dirtied_MB", []float64{0, 15, 30}},
		{"written_MB", []float64{0, 4, 8}},
	} {
		got, ok := s.Column(tc.col)
		require.True(t, ok, tc.col)
		assert.InDeltaSlice(t, tc.want, got, 1e-9, tc.col)
	}

	f, err := FiguresOf(s, Window{FromS: 1, ToS: 2}, l.BdiThresh())
	require.NoError(t, err)
	assert.InDelta(t, 4.0, f.WriteBWMBps, 1e-9)
	assert.InDelta(t, 15.0, f.DirtiedMBps, 1e-9)
	assert.InDelta(t, 15.0, f.DirtyMB, 1e-9)
	assert.InDelta(t, 18.0, f.DirtyWritebackMB, 1e-9)
	assert.InDelta(t, 75.0, f.BdiThreshMB, 1e-9) // (50 + 100) / 2
	assert.Equal(t, 2, f.Rows)
	rate, util, err := l.DiskRate(Window{FromS: 1, ToS: 2})
	require.NoError(t, err)
	assert.InDelta(t, 8<<20, rate, 1e-6) // 8 MiB in 1 s, busy all of it
	assert.InDelta(t, 1.0, util, 1e-9)
	rate, util, err = l.DiskRate(Window{FromS: 0, ToS: 1})
	require.NoError(t, err)
	assert.InDelta(t, 8<<20/0.5, rate, 1e-6) // 8 MiB in the 0.5 s it was busy
	assert.InDelta(t, 0.5, util, 1e-9)
}

func TestReadLogCRLF(t *testing.T) {
	// the serial console ends lines with \r\n; run-case.sh keeps them
	a, err := ReadLog("small", strings.NewReader(console))
	require.NoError(t, err)
	b, err := ReadLog("small", strings.NewReader(strings.ReplaceAll(console, "\n", "\r\n")))
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

func TestReadLogErrors(t *testing.T) {
	cut := func(s, line string) string {
		i := strings.Index(s, line)
		j := i + strings.Index(s[i:], "\n") + 1
		return s[:i] + s[j:]
	}
	for _, tc := range []struct {
		name, log, want string
	}{
		{"no END", cut(console, "END t="), "no END line"},
		{"no disk", cut(console, "Booting from ROM"), "small:10: no H disk= line before the first sample"},
		{"no samples", cut(cut(cut(console, "S t=10.00"), "S t=11.00"), "S t=12.00"), "0 samples, want at least 2"},
		{"bad sample", strings.Replace(console, "nr_dirty=2560", "nr_dirty=x", 1), `small:12: vmstat nr_dirty="x" is not an integer`},
		{"bad part", strings.Replace(console, "| blk vda r=1 rsect=8 w=10", "| disk vda r=1 rsect=8 w=10", 1), `unknown sample part "disk"`},
		{"guest error", strings.Replace(console, "H fs_bdi=254:0", "H error=mount_vda", 1), "guest error mount_vda"},
		{"one sample", cut(cut(console, "S t=11.00"), "S t=12.00"), "1 samples, want at least 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadLog("small", strings.NewReader(tc.log))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestFiguresWindowErrors(t *testing.T) {
	l, err := ReadLog("small", strings.NewReader(console))
	require.NoError(t, err)
	_, err = FiguresOf(l.Series(), Window{FromS: 5, ToS: 9}, nil)
	assert.ErrorContains(t, err, "window 5-9 s holds 0 samples")
	_, _, err = l.DiskRate(Window{FromS: 2, ToS: 2})
	assert.ErrorContains(t, err, "fewer than 2 samples")
}

func TestBtrfsBdi(t *testing.T) {
	// btrfs writes back through its own bdi: its stats are the disk's, the block
	// device's bdi is left out whatever the order.
	log := strings.Replace(console, "H fs_bdi=254:0", "H fs_bdi=btrfs-1", 1)
	log = strings.ReplaceAll(log, "| blk vda", "| bdi btrfs-1 BdiDirtyThresh=40960 BdiWriteBandwidth=4096 | blk vda")
	l, err := ReadLog("small", strings.NewReader(log))
	require.NoError(t, err)
	assert.Equal(t, []float64{40, 40, 40}, l.BdiThresh())
}

func TestClean(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"\x1bc\x1b[?7l\x1b[2J\x1b[0mSeaBIOS (version 1.16.2)", "SeaBIOS (version 1.16.2)"},
		{"Booting from ROM..\x1bc\x1b[?7l\x1b[2JH disk=vda", "H disk=vda"},
		{"Booting from ROM...", ""},
		{"S t=1.00 nr_dirty=3", "S t=1.00 nr_dirty=3"},
		{"a\x1b[12;", "a\x1b[12;"}, // an unfinished escape stays
		{"  E start t=2  ", "E start t=2"},
	} {
		assert.Equal(t, tc.want, clean(tc.in), "%q", tc.in)
	}
}
