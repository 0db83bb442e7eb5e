package ui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/wblab/wblab/engine/report"
)

func TestDiskSpecs(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"usb2-stick,fs=ext4,dd=1", []string{"usb2-stick,fs=ext4,dd=1"}},
		{" a ; ;b", []string{"a", "b"}},
	} {
		assert.Equal(t, tc.want, DiskSpecs(tc.in), tc.in)
	}
}

func TestDiskCards(t *testing.T) {
	a := &report.Result{RuntimeS: 600, Disks: []report.DiskResult{
		{BDI: "8:0", Device: "usb2-stick", Filesystem: "ext4", WrittenMB: 1024, WriteMBps: 1.71, BdiThreshMB: 99.3, MaxDirtyMB: 120, DDExitS: 102.5},
		{BDI: "8:16", Device: "wu2011-hdd", Filesystem: "ext4", WrittenMB: 9.3, WriteMBps: 0.02,
			Editors: []report.LatencyResult{{N: 130, P50Ms: 32.2, P90Ms: 40, P99Ms: 46, MaxMs: 52.3, TimeIn: []report.WaitShare{
				{Cause: "cpu", TotalMs: 400, SharePct: 10, P99Ms: 4}, {Cause: "journal_commit", TotalMs: 2400, SharePct: 60, P99Ms: 30},
				{Cause: "page_writeback", TotalMs: 1200, SharePct: 30, P99Ms: 20.5}}}},
			Readers: []report.LatencyResult{{N: 9000, P50Ms: 8, P99Ms: 10.5, MaxMs: 20, InFlightMs: 3}}},
	}}
	// the stick dirty from t = 1 s to 137 s (1-s samples), the HDD never at a sample
	names := []string{"time_s", "disk1_dirty_MB", "disk1_writeback_MB", "disk2_dirty_MB", "disk2_writeback_MB"}
	data := make([][]float64, len(names))
	for i := 0; i <= 600; i++ {
		v := 0.0
		if i >= 1 && i <= 137 {
			v = 50
		}
		data[0] = append(data[0], float64(i))
		data[1], data[2] = append(data[1], v), append(data[2], v/10)
		data[3], data[4] = append(data[3], 0), append(data[4], 0)
	}
	a.Series = &report.Series{IntervalS: 1, Names: names, Data: data}
	b := &report.Result{RuntimeS: 600, Disks: []report.DiskResult{{BDI: "8:0", WrittenMB: 1024, DDExitS: 117.9}, {BDI: "8:16"}}}
	for _, tc := range []struct {
		name  string
		b     *report.Result
		lines []int
		check func(t *testing.T, cs []DiskCard)
	}{
		{"A only", nil, []int{5, 8}, func(t *testing.T, cs []DiskCard) {
			assert.Equal(t, "disk 8:0: usb2-stick, ext4", cs[0].Title)
			assert.Equal(t, "1024.0 MiB, 7.42 MiB/s over 0-138 s (while it had dirty pages)", cs[0].Lines[0].A)
			assert.Equal(t, "99.3 MiB", cs[0].Lines[1].A)
			assert.Equal(t, "102.5 s", cs[0].Lines[3].A)
			assert.Equal(t, "138 s (36 s after the copier exited)", cs[0].Lines[4].A)
			assert.Equal(t, "9.3 MiB, 0.02 MiB/s over the run (600 s)", cs[1].Lines[0].A)
			assert.Equal(t, "32.2 / 40.0 / 46.0 / 52.3 ms (130)", cs[1].Lines[3].A)
			// the time per wait cause, the largest share first, each explained
			for i, want := range []struct{ label, a, help string }{
				{"editor 1 time in journal_commit", "60 % (p99 30.0 ms)", "wait:journal_commit"},
				{"editor 1 time in page_writeback", "30 % (p99 20.5 ms)", "wait:page_writeback"},
				{"editor 1 time in cpu", "10 % (p99 4.0 ms)", "wait:cpu"},
			} {
				l := cs[1].Lines[4+i]
				assert.Equal(t, want.label, l.Label)
				assert.Equal(t, want.a, l.A)
				assert.Equal(t, want.help, l.Help)
				d, ok := waitDoc(strings.TrimPrefix(want.help, "wait:"))
				assert.True(t, ok)
				assert.Equal(t, d.Text(), l.Title)
			}
			assert.Contains(t, cs[1].Lines[4].Title, "jbd2_log_wait_commit", "the hover names the kernel function")
			assert.Equal(t, "8.0 / 10.5 / 20.0 ms (9000), one in flight 3 ms", cs[1].Lines[7].A)
			assert.Empty(t, cs[0].Lines[0].B)
		}},
		{"A/B: B without series", b, []int{5, 8}, func(t *testing.T, cs []DiskCard) {
			assert.Equal(t, "1024.0 MiB, 1.71 MiB/s over the run (600 s)", cs[0].Lines[0].B)
			assert.Equal(t, "–", cs[0].Lines[4].B)
			assert.Equal(t, "", cs[1].Lines[3].B, "B has no editor result")
		}},
		{"A/B: B's editor waited elsewhere", &report.Result{RuntimeS: 600, Disks: []report.DiskResult{{BDI: "8:0"}, {BDI: "8:16",
			Editors: []report.LatencyResult{{N: 90, P50Ms: 50, P90Ms: 70, P99Ms: 90, MaxMs: 95,
				TimeIn: []report.WaitShare{{Cause: "journal_commit", SharePct: 80, P99Ms: 70}, {Cause: "wbt", SharePct: 20, P99Ms: 9}}}}}}},
			[]int{5, 9}, func(t *testing.T, cs []DiskCard) {
				assert.Equal(t, "50.0 / 70.0 / 90.0 / 95.0 ms (90)", cs[1].Lines[3].B)
				assert.Equal(t, "80 % (p99 70.0 ms)", cs[1].Lines[4].B)
				assert.Equal(t, "–", cs[1].Lines[5].B, "B spent no time in page_writeback")
				assert.Equal(t, "editor 1 time in wbt", cs[1].Lines[7].Label, "B's cause A lacks comes after A's")
				assert.Equal(t, "–", cs[1].Lines[7].A)
				assert.Equal(t, "20 % (p99 9.0 ms)", cs[1].Lines[7].B)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := DiskCards(a, tc.b)
			assert.Len(t, cs, 2)
			for i, n := range tc.lines {
				assert.Len(t, cs[i].Lines, n)
			}
			tc.check(t, cs)
		})
	}
	assert.Nil(t, DiskCards(nil, nil))
}

// TestDiskCardsFull: a disk that filled has its full time on its card ("–" on B's
// disk that did not), and the results' line says who got ENOSPC.
func TestDiskCardsFull(t *testing.T) {
	a := &report.Result{RuntimeS: 60, Disks: []report.DiskResult{{BDI: "8:0", FullAtS: 1768.25}, {BDI: "8:16"}}}
	b := &report.Result{RuntimeS: 60, Disks: []report.DiskResult{{BDI: "8:0"}, {BDI: "8:16"}}}
	line := func(cd DiskCard, label string) *DiskLine {
		for i := range cd.Lines {
			if cd.Lines[i].Label == label {
				return &cd.Lines[i]
			}
		}
		return nil
	}
	cards := DiskCards(a, b)
	l := line(cards[0], "full (ENOSPC) at")
	if assert.NotNil(t, l) {
		assert.Equal(t, "1768.2 s", l.A)
		assert.Equal(t, "–", l.B)
	}
	assert.Nil(t, line(cards[1], "full (ENOSPC) at"), "a disk that never filled has no full line")
	assert.Equal(t, "Disk 8:0 full at 1768.3 s: 1 dd exited with ENOSPC, 2 editor saves failed with ENOSPC",
		FullLine(report.DiskFull{BDI: "8:0", FullAtS: 1768.3, DDEnospc: 1, EditorEnospc: 2}))
	assert.Equal(t, "Disk 8:16 full at 5.0 s: 2 dd exited with ENOSPC", FullLine(report.DiskFull{BDI: "8:16", FullAtS: 5, DDEnospc: 2}))
}
