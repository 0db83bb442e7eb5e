package fs

import (
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
	"github.com/wblab/wblab/engine/workload"
)

// testKernel builds a kernel on device dev with filesystem f and the Wu 2011 box
// (8 CPUs, 4 GB, dirty_bytes as given).
func testKernel(t testing.TB, dev string, f kernel.Filesystem, dirtyBytes int64, mutate func(*kernel.Params)) (*sim.World, *kernel.Kernel) {
	t.Helper()
	spec, err := devices.Preset(dev)
	require.NoError(t, err)
	return testKernelOn(t, spec, devices.LegacyBlock(spec, 512), f, dirtyBytes, mutate)
}

// testKernelOn is testKernel on a device of its own: spec with block layer blk.
func testKernelOn(t testing.TB, spec devices.Spec, blk devices.Block, f kernel.Filesystem, dirtyBytes int64, mutate func(*kernel.Params)) (*sim.World, *kernel.Kernel) {
	t.Helper()
	w := sim.NewWorld(1000, 1)
	q, err := devices.New(w, spec, blk)
	require.NoError(t, err)
	p := kernel.Params{CPUs: 8, MemoryMB: 4096, Sysctls: kernel.Sysctls{DirtyBytes: dirtyBytes, DirtyBackgroundRatio: 10,
		DirtyExpireCs: 3000, DirtyWritebackCs: 500}, Costs: kernel.DefaultCosts(),
		Variants: kernel.Variants{}.With(kernel.SwWCPTerminateLE0, ksw("scaled_chunk"), swExt4WritebackBump, swXFSWriteInodeFlush)}
	if mutate != nil {
		mutate(&p)
	}
	k, err := kernel.New(w, p)
	require.NoError(t, err)
	_, err = k.AddDisk("8:0", q, f, kernel.DefaultBdiKnobs())
	require.NoError(t, err)
	return w, k
}

// runDD runs n dd writers (bs 4k, unlimited) for d, checking invariants every
// event when check is set, and returns the MB/s written to disk (NR_WRITTEN).
func runDD(t testing.TB, w *sim.World, k *kernel.Kernel, n int, d sim.Time, check bool) float64 {
	t.Helper()
	for i := 0; i < n; i++ {
		workload.NewDD(k, 4096, 0, false).Start(0)
	}
	var ierr error
	if check {
		w.AfterEvent = func() {
			if ierr == nil {
				ierr = k.CheckInvariants()
			}
		}
	}
	require.NoError(t, w.Run(d))
	require.NoError(t, ierr)
	require.NoError(t, k.CheckInvariants())
	return float64(k.G.NrWritten) / 256 / d.Seconds()
}

// ksw is the kernel switch named name.
func ksw(name string) kernel.SwitchID {
	sw, ok := kernel.LookupSwitch(name)
	if !ok {
		panic("no kernel switch " + name)
	}
	return sw.ID
}
