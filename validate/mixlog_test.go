package validate

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smokeLog is a real harness 2 console: scenario 2 (a writer to the 5 MiB/s stick,
// the editor on the 100 MiB/s disk) shortened to 25 s with 15 s controls, measured
// while the host was busy (load 27-29 on 2 cores). It is not a reference: its editor
// alone took 0.18 s a save, so the check marks it not held (guest CPU).
const smokeLog = "testdata/notheld-s2-stick-smoke.log.gz"

func readSmoke(t *testing.T, name string) *Log {
	f, err := os.Open(smokeLog)
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLog(name, f)
	require.NoError(t, err)
	return l
}

func TestMixLog(t *testing.T) {
	l := readSmoke(t, "s2-stick-smoke")
	assert.Equal(t, "wblab-validate/2", l.Header["harness"])
	assert.Equal(t, "linux-image-6.1.0-57-amd64", l.Header["debian_kernel_package"])
	assert.Equal(t, "6.1.192-3", l.Header["debian_kernel_version"])
	assert.Equal(t, "6.1.0-57-amd64", l.Header["kernel"], "the guest's uname -r")
	assert.NotEmpty(t, l.Header["host_load_start"])
	assert.NotEmpty(t, l.Header["host_load_end"])
	require.Len(t, l.Disks, 2)
	assert.Equal(t, int64(100<<20), l.Disks[0].ThrottleBps)
	assert.Equal(t, int64(5<<20), l.Disks[1].ThrottleBps)
	assert.Equal(t, []Writer{{Name: "w1", Disk: "vdb", BS: 1 << 20}}, l.Writers)
	grew := false
	for _, sm := range l.Samples {
		require.Contains(t, sm.BDI, "vda", "t=%v", sm.T)
		require.Contains(t, sm.BDI, "vdb", "t=%v", sm.T)
		for _, k := range []string{"BdiReclaimable", "BdiWriteback", "BdiDirtyThresh", "DirtyThresh", "BackgroundThresh", "BdiWritten"} {
			require.Contains(t, sm.BDI["vdb"], k, "t=%v", sm.T)
		}
		for _, k := range []string{"nr_dirty", "nr_writeback", "nr_dirtied", "nr_written"} {
			require.Contains(t, sm.VM, k, "t=%v", sm.T)
		}
		grew = grew || sm.DD["w1"] > 0
	}
	assert.True(t, grew, "the writer's bytes are sampled")

	m, err := MixOf(l)
	require.NoError(t, err)
	assert.False(t, m.Held)
	assert.Contains(t, m.Reason, "not held: guest CPU: the editor alone took")
	require.Len(t, m.Controls, 1)
	k := m.Controls[0]
	assert.True(t, k.ReachedDisk, "the stick writer alone outran its 5 MiB/s disk: %.2f MB/s", k.MBps)
	assert.Equal(t, 5.0, k.DiskThrottleMBps)
	require.NotNil(t, m.EditorAlone)
	assert.Greater(t, m.EditorAlone.MeanS, EditorAloneMaxS)
	assert.Equal(t, 29.08, m.SyncS, "E sync sync_s")
	require.Len(t, m.ExitS, 1)
	assert.InDelta(t, 44.98-44.72, m.ExitS[0], 1e-9, "dd_exit after the kill")
	assert.Equal(t, 17, m.Fsyncs, "saves started before the kill")
	assert.Positive(t, m.FsyncSyncMax, "saves started during the final sync")
	assert.Positive(t, m.WriterMBps[0])
	assert.Equal(t, Window{FromS: 8, ToS: 25}, m.Window)

	row, err := SummaryRow(l)
	require.NoError(t, err)
	require.Len(t, row, len(SummaryHeader))
	col := map[string]string{}
	for i, n := range SummaryHeader {
		col[n] = row[i]
	}
	assert.Equal(t, "false", col["held"])
	assert.Equal(t, m.Reason, col["held_reason"])
	assert.Equal(t, "mix", col["work"])
	assert.Equal(t, "29.080", col["sync_s"])
	assert.Equal(t, "5.000", col["stick_throttle_MBps"])
	assert.Equal(t, "w1:vdb:1M", col["writers"])
	assert.Empty(t, col["w2_MBps"])

	s := l.MixSeries()
	for _, n := range []string{"vdb_bdi_dirty_MB", "vdb_bdi_thresh_MB", "vdb_bdi_written_MB", "vdb_wMBps", "w1_MB", "editor_latency_s"} {
		c, ok := s.Column(n)
		require.True(t, ok, n)
		assert.Len(t, c, len(l.Samples), n)
	}
	var b bytes.Buffer
	require.NoError(t, WriteSeriesCSV(&b, l))
	assert.Contains(t, b.String(), "w1_MB,editor_latency_s\n")
}

// TestMixScenarios: a scenario's reference is its runs' mean and range.
func TestMixScenarios(t *testing.T) {
	a, b := readSmoke(t, "s2.r1"), readSmoke(t, "s2.r2")
	b.Events = append([]Event(nil), b.Events...)
	for i, e := range b.Events { // the second run's sync took 10 s longer
		if e.Kind == "sync" {
			b.Events[i] = Event{Kind: e.Kind, T: e.T, Fields: map[string]string{"sync_s": "39.08"}}
		}
	}
	rs, err := Scenarios([]*Log{a, b})
	require.NoError(t, err)
	got := map[string]ScenarioRow{}
	for _, r := range rs {
		assert.Equal(t, "s2", r.Scenario)
		got[r.Figure] = r
	}
	assert.Equal(t, ScenarioRow{Scenario: "s2", Figure: "sync_s", Runs: 2, Held: 0, Mean: 34.08, Min: 29.08, Max: 39.08}, got["sync_s"])
	assert.NotContains(t, got, "w2_MBps", "no second writer")
	var out bytes.Buffer
	require.NoError(t, WriteScenariosCSV(&out, []*Log{a, b}))
	assert.Contains(t, out.String(), "s2,sync_s,2,0,34.080,29.080,39.080\n")

	var cs []Comparison
	for _, l := range []*Log{a, b} {
		c, err := Compare(context.Background(), l)
		require.NoError(t, err)
		require.NotNil(t, c.Mix)
		assert.False(t, c.Held)
		assert.Nil(t, c.Model)
		assert.Len(t, c.MixModels, MixSeeds, "a wblab run per seed")
		cs = append(cs, c)
	}
	var rep bytes.Buffer
	require.NoError(t, WriteReport(&rep, cs))
	for _, want := range []string{"not held: guest CPU: the editor alone took", "control: w1 alone", "s2 (0 of 2 runs held: NOT HELD",
		"final sync [s]                          34.1 [29.1, 39.1]", "(no held harness 2 scenario)", "kernel package linux-image-6.1.0-57-amd64 6.1.192-3"} {
		assert.Contains(t, rep.String(), want)
	}
}

// TestMixLogTwoWriters: a real two-writer run (scenario 4's max_ratio remedy, 20 s
// with 10 s controls, load 21-27): the fast disk's writer alone dirtied 22 MB/s of
// its 100, so the guest's CPU was the limit.
func TestMixLogTwoWriters(t *testing.T) {
	f, err := os.Open("testdata/notheld-s3-maxratio-smoke.log.gz")
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLog("s4-max-ratio-smoke", f)
	require.NoError(t, err)
	assert.Equal(t, "1", l.Header["max_ratio_vdb"], "the stick's max_ratio as read back")
	require.Len(t, l.Writers, 2)
	assert.Equal(t, Writer{Name: "w2", Disk: "vdb", BS: 1 << 20}, l.Writers[1])
	m, err := MixOf(l)
	require.NoError(t, err)
	assert.False(t, m.Held)
	assert.Contains(t, m.Reason, "not held: guest CPU: w1 alone dirtied 22.0 MB/s, below 90% of vda's 100.0 MB/s")
	require.Len(t, m.Controls, 2)
	assert.False(t, m.Controls[0].ReachedDisk)
	assert.False(t, m.Controls[0].ReachedKernel)
	assert.True(t, m.Controls[1].ReachedDisk, "the stick's writer alone outran 5 MiB/s")
	assert.False(t, m.Controls[1].ReachedKernel, "over its bdi's 1 % share but below the global freerun point")
	assert.Greater(t, m.Controls[1].BdiDirtyMB, m.Controls[1].BdiThreshMB)
	assert.InDelta(t, 44.16-43.33, m.ExitS[0], 1e-9)
	assert.InDelta(t, 44.23-43.33, m.ExitS[1], 1e-9)
	assert.Equal(t, 20.62, m.SyncS)

	row, err := SummaryRow(l)
	require.NoError(t, err)
	col := map[string]string{}
	for i, n := range SummaryHeader {
		col[n] = row[i]
	}
	assert.Equal(t, "w1:vda:1M;w2:vdb:1M", col["writers"])
	assert.Equal(t, "0.900", col["dd_exit_max_s"])
	assert.Equal(t, "22.033", col["w1_alone_MBps"])
	assert.NotEmpty(t, col["w2_MBps"])
	assert.NotEmpty(t, col["disk2_bdi_thresh_MB"])
}
