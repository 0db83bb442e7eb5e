package ui

import (
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
	a := &report.Result{Disks: []report.DiskResult{
		{BDI: "8:0", Device: "usb2-stick", Filesystem: "ext4", WriteMBps: 7.9, BdiThreshMB: 99.3, MaxDirtyMB: 120, DDExitS: 118.3},
		{BDI: "8:16", Device: "wu2011-hdd", Filesystem: "ext4", WriteMBps: 0.02,
			Editors: []report.LatencyResult{{N: 130, P50Ms: 32.2, P99Ms: 46, MaxMs: 52.3}},
			Readers: []report.LatencyResult{{N: 9000, P50Ms: 8, P99Ms: 10.5, MaxMs: 20, InFlightMs: 3}}},
	}}
	b := &report.Result{Disks: []report.DiskResult{{BDI: "8:0", WriteMBps: 7.8}, {BDI: "8:16"}}}
	for _, tc := range []struct {
		name  string
		b     *report.Result
		lines []int
		check func(t *testing.T, cs []DiskCard)
	}{
		{"A only", nil, []int{4, 5}, func(t *testing.T, cs []DiskCard) {
			assert.Equal(t, "disk 8:0: usb2-stick, ext4", cs[0].Title)
			assert.Equal(t, "118.3 s", cs[0].Lines[3].A)
			assert.Equal(t, "32.2 / 46.0 / 52.3 ms (130)", cs[1].Lines[3].A)
			assert.Equal(t, "8.0 / 10.5 / 20.0 ms (9000), one in flight 3 ms", cs[1].Lines[4].A)
			assert.Empty(t, cs[0].Lines[0].B)
		}},
		{"A/B", b, []int{4, 5}, func(t *testing.T, cs []DiskCard) {
			assert.Equal(t, "7.8 MB/s", cs[0].Lines[0].B)
			assert.Equal(t, "", cs[1].Lines[3].B, "B has no editor result")
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
