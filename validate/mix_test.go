package validate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHeldCheck: a run is held only when every writer alone reached its disk's rate or
// the kernel's limit, the lone editor saved fast, and no bulk writer ended early.
func TestHeldCheck(t *testing.T) {
	fast := Writer{Name: "w1", Disk: "vda", BS: 1 << 20}
	stick := Writer{Name: "w2", Disk: "vdb", BS: 1 << 20}
	atDisk := Control{Writer: fast, MBps: 98, DiskThrottleMBps: 100, ReachedDisk: true}
	slow := Control{Writer: fast, MBps: 41.5, DiskThrottleMBps: 100, DirtyWritebackMB: 120, FreerunMB: 585}
	atKernel := Control{Writer: stick, MBps: 3, DiskThrottleMBps: 5, DirtyWritebackMB: 7, FreerunMB: 585,
		BdiDirtyMB: 7, BdiThreshMB: 7.6, ReachedKernel: true}
	busyCPU := slow
	busyCPU.CPUShare, busyCPU.CPURecorded = 0.97, true
	kernelHeld := slow
	kernelHeld.CPUShare, kernelHeld.CPURecorded = 0.2, true
	quick := &EditorControl{Saves: 15, MeanS: 0.02, MaxS: 0.05}
	for _, tc := range []struct {
		name   string
		m      Mix
		held   bool
		reason string
	}{
		{"writer at its disk's rate", Mix{Writers: []Writer{fast}, ExitS: []float64{0.1}, Controls: []Control{atDisk}},
			true, "held: w1 alone dirtied 98.0 MB/s, vda's rate 100.0"},
		{"writer at the kernel's limit", Mix{Writers: []Writer{stick}, ExitS: []float64{0.1}, Controls: []Control{atKernel}},
			true, "held: w2 alone reached the kernel's limit"},
		{"guest CPU", Mix{Writers: []Writer{fast}, ExitS: []float64{0.1}, Controls: []Control{slow}},
			false, "not held: guest CPU: w1 alone dirtied 41.5 MB/s, below 90% of vda's 100.0 MB/s"},
		{"one of two writers slow", Mix{Writers: []Writer{fast, stick}, ExitS: []float64{0.1, 0.2}, Controls: []Control{slow, atKernel}},
			false, "not held: guest CPU: w1 alone"},
		{"guest CPU, its dd busy", Mix{Writers: []Writer{fast}, ExitS: []float64{0.1}, Controls: []Control{busyCPU}},
			false, "not held: guest CPU: w1 alone dirtied 41.5 MB/s, below 90% of vda's 100.0 MB/s, and dirty+writeback 120 MB stayed below the kernel's limit (freerun 585 MB), its dd at 97% of a vCPU"},
		{"slow but its dd mostly idle: the kernel held it", Mix{Writers: []Writer{fast}, ExitS: []float64{0.1}, Controls: []Control{kernelHeld}},
			true, "held: w1 alone dirtied 41.5 MB/s with its dd at 20% of a vCPU: the kernel held it (bdi 0 of 0 MB)"},
		{"no control", Mix{Writers: []Writer{fast, stick}, ExitS: []float64{0.1, 0.2}, Controls: []Control{atDisk}},
			false, "not held: 1 of 2 writers have a control"},
		{"ended before the kill", Mix{Writers: []Writer{fast}, ExitS: []float64{-1}, Controls: []Control{atDisk}},
			false, "not held: w1 ended before the kill"},
		{"editor fast", Mix{Writers: []Writer{fast}, Editor: "a", ExitS: []float64{0.1}, Controls: []Control{atDisk}, EditorAlone: quick},
			true, "held: w1 alone dirtied 98.0 MB/s, vda's rate 100.0; the editor alone took 0.020 s a save"},
		{"editor slow", Mix{Writers: []Writer{fast}, Editor: "a", ExitS: []float64{0.1}, Controls: []Control{atDisk},
			EditorAlone: &EditorControl{Saves: 9, MeanS: 0.31, MaxS: 0.66}},
			false, "not held: guest CPU: the editor alone took 0.310 s a save (mean of 9, max 0.660), above 0.10 s"},
		{"editor without control", Mix{Writers: []Writer{fast}, Editor: "a", ExitS: []float64{0.1}, Controls: []Control{atDisk}},
			false, "not held: the editor has no control"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			held, reason := heldCheck(tc.m)
			assert.Equal(t, tc.held, held, reason)
			assert.Contains(t, reason, tc.reason)
		})
	}
}

func TestScenarioOf(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"s1-ext4.r1", "s1-ext4"},
		{"s2-stick.r12", "s2-stick"},
		{"ext4-1dd-4k-100M", "ext4-1dd-4k-100M"},
		{"s1-ext4.rx", "s1-ext4.rx"},
	} {
		assert.Equal(t, tc.want, ScenarioOf(tc.name), tc.name)
	}
}

// TestCPUShare: a writer's dd CPU share is its cpu_ticks (USER_HZ) over the time
// between the first and last samples recording them; a log without them says so.
func TestCPUShare(t *testing.T) {
	at := func(t float64, c map[string]int64) Sample { return Sample{T: t, DDCPU: c} }
	for _, tc := range []struct {
		name  string
		s     []Sample
		share float64
		ok    bool
	}{
		{"busy", []Sample{at(1, map[string]int64{"w1": 100}), at(2, map[string]int64{"w1": 197}), at(3, map[string]int64{"w1": 294})}, 0.97, true},
		{"mostly asleep", []Sample{at(10, map[string]int64{"w1": 5}), at(20, map[string]int64{"w1": 205})}, 0.2, true},
		{"another writer's ticks only", []Sample{at(1, map[string]int64{"w2": 1}), at(2, map[string]int64{"w2": 2})}, 0, false},
		{"not recorded", []Sample{at(1, nil), at(2, nil)}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			share, ok := cpuShare(tc.s, "w1")
			assert.Equal(t, tc.ok, ok)
			assert.InDelta(t, tc.share, share, 1e-9)
		})
	}
}
