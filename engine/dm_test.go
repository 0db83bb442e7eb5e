package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
)

// TestDMLayer: a disk with dm=on is written through the dm device: the flusher is
// the dm bdi's (flush-253:0) and every bio the filesystem submits costs its
// submitter the clone's submission besides its own (devices.DMSubmitBio), which on
// 2.6.36-rc1 XFS is one bio per two-page ->writepage call. The disk's queue and the
// run's invariants are as without dm.
func TestDMLayer(t *testing.T) {
	base := kernel.DefaultCosts().SubmitBio
	extra := devices.DMSubmitBio(base) - base
	require.Positive(t, extra)
	for _, tc := range []struct{ kernel, fs string }{
		{"2.6.36-rc1", "xfs"}, {"2.6.36-rc1+fix", "xfs"}, {"2.6.36-rc1", "ext4"}, {"3.1.0-rc9-ioless-full", "generic"},
	} {
		t.Run(tc.kernel+"/"+tc.fs, func(t *testing.T) {
			perCall := map[bool]float64{}
			for _, dm := range []bool{false, true} {
				c := DefaultConfig()
				dev, err := devices.Preset("chinner2010-vm")
				require.NoError(t, err)
				dev.DM = dm
				c.Disks[0].Device, c.Kernel, c.Disks[0].Filesystem = dev, tc.kernel, tc.fs
				c.Disks[0].Workload.BS = 1 << 20
				c.Runtime, c.CheckInvariants = Duration(2*time.Second), true
				r, err := Run(context.Background(), c)
				require.NoError(t, err)
				var flusher string
				var cpu float64
				for _, a := range r.CPUByActor {
					if strings.HasPrefix(a.Actor, "flush-") {
						flusher, cpu = a.Actor, a.CPUS
					}
				}
				want := "flush-8:0"
				if dm {
					want = "flush-" + devices.DMName(0)
				}
				assert.Equal(t, want, flusher, "dm=%v: the flusher is the bdi's the filesystem writes to", dm)
				assert.Positive(t, r.WriteBWMBps)
				for _, st := range r.FSStats {
					if st.Name == "writepage_calls" && st.Value > 0 {
						perCall[dm] = cpu / float64(st.Value)
					}
				}
			}
			if tc.fs == "xfs" && tc.kernel == "2.6.36-rc1" {
				// one bio per call: the flusher's CPU per call rises by the clone's submission
				d := (perCall[true] - perCall[false]) * 1e9
				t.Logf("flusher CPU per ->writepage call: %.2f -> %.2f µs", perCall[false]*1e6, perCall[true]*1e6)
				assert.InEpsilon(t, float64(extra), d, 0.3, "per-call increase %.0f ns, the clone's submission %d ns", d, extra)
			}
		})
	}
}

// TestDMFirstDiskOnly: dm's per-bio cost is the kernel's submit_bio cost, one per
// machine, so a further disk cannot have dm.
func TestDMFirstDiskOnly(t *testing.T) {
	c := DefaultConfig()
	dev, _, err := devices.ParseSpec("nvme,dm=on")
	require.NoError(t, err)
	c.Disks = append(c.Disks, DiskConfig{Device: dev, Filesystem: "ext4", BDI: kernel.DefaultBdiKnobs(), Workload: Workload{DD: 1, BS: 4096}})
	err = c.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disks[1].device.dm")
}
