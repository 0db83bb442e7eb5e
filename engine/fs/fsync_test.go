package fs

import (
	"github.com/wblab/wblab/devices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// TestFsyncBesideBulkWriter runs an editor (4 KiB + fsync every second) beside a
// dd on the 6.1 preset, with its filesystem's fsync switches on and off: on, the
// save's wait is in the mechanism's cause (ext4: the jbd2 commit, which waited for
// writeback's open handles; xfs: the log force) and its paths ran; off, they did not.
func TestFsyncBesideBulkWriter(t *testing.T) {
	p61, err := kernel.LookupPreset("6.1")
	require.NoError(t, err)
	for _, tc := range []struct {
		fs       func() kernel.Filesystem
		switches []string
		cause    kernel.WaitCause
		paths    []string
	}{
		{func() kernel.Filesystem { return NewExt4() }, []string{"jbd2_complete_transaction", "jbd2_wait_updates", "jbd2_req_idle"},
			kernel.WaitJournal, []string{"jbd2_journal_wait_updates.handle_open"}},
		{func() kernel.Filesystem { return NewXfs() }, []string{"xfs_fsync_log_force"},
			kernel.WaitLogForce, []string{"xfs_fsync.cil_push"}},
	} {
		for _, on := range []bool{true, false} {
			f := tc.fs()
			t.Run(f.Name()+map[bool]string{true: "/on", false: "/off"}[on], func(t *testing.T) {
				w, k := testKernel(t, "capped", f, 100<<20, func(p *kernel.Params) {
					p.Variants = p61.Variants
					for _, s := range tc.switches {
						p.Variants.Set(ksw(s), on)
					}
				})
				ed := workload.NewEditorOn(k, k.BDI, 4096, sim.Second)
				ed.Start(2 * sim.Second)
				runDD(t, w, k, 1, 20*sim.Second, true)
				require.Greater(t, ed.Saves().N, int64(3))
				var inCause sim.Time
				for _, ws := range ed.Waits() {
					if ws.Cause == tc.cause {
						inCause = ws.Total
					}
				}
				act := k.SwitchActivity()
				if on {
					assert.Positive(t, inCause, "time in %v", tc.cause)
					for _, p := range tc.paths {
						assert.Positive(t, act[p], p)
					}
				} else {
					if tc.cause == kernel.WaitLogForce {
						assert.Zero(t, inCause)
					}
					for _, p := range tc.paths {
						assert.Zero(t, act[p], p)
					}
				}
			})
		}
	}
}

// TestExt4LockedCommitStopsNewHandles: in 6.1 a commit locks its transaction
// (T_LOCKED) until the open handles close, and start_this_handle lets no new one
// join it (add_transaction_credits → wait_transaction_locked), the flusher's
// ext4_writepages handle included: the flusher sleeps there instead of opening
// handle after handle while the commit waits. An editor's saves beside a bulk
// writer on a 50 MiB/s virtio-like disk with a deep queue and blk-wbt (the QEMU
// references' s1-ext4-50), where the flusher's handles sleep in wbt.
func TestExt4LockedCommitStopsNewHandles(t *testing.T) {
	p61, err := kernel.LookupPreset("6.1")
	require.NoError(t, err)
	spec, err := devices.Preset("capped")
	require.NoError(t, err)
	spec.BandwidthBps, spec.QueueDepth, spec.Rotational, spec.WriteCacheBytes = 50<<20, 256, true, 1
	blk := devices.MQBlock(spec)
	blk.NrRequests, blk.WBT = 256, true
	e := NewExt4()
	w, k := testKernelOn(t, spec, blk, e, 0, func(p *kernel.Params) {
		p.Variants = p61.Variants
		p.CPUs, p.Sysctls.DirtyBytes, p.Sysctls.DirtyRatio = 2, 0, 20
	})
	ed := workload.NewEditorOn(k, k.BDI, 4096, sim.Second)
	ed.Start(2 * sim.Second)
	runDD(t, w, k, 1, 30*sim.Second, true)
	require.Positive(t, ed.Saves().N)
	act := k.SwitchActivity()
	assert.Positive(t, act["start_this_handle.writeback_wait_locked"], "the flusher's handle start waited behind the locked transaction")
	assert.Positive(t, act["jbd2_journal_wait_updates.handle_open"], "a commit waited for an open handle")
}
