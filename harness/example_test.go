package harness_test

import (
	"fmt"

	"github.com/wblab/wblab/harness"
)

// A case name of the Wu 2011 harness, DIR/FS-NNdd-BS-CPUSp-MEM-DIRTY:BG-KERNEL,
// becomes a validated engine.Config: the filesystem, the dd writers and their
// block size, the machine, the dirty thresholds and the kernel (a release string
// names a preset; "X" keeps the default kernel, the thread's baseline), on the
// thread's disk.
func ExampleConfigForCase() {
	cfg, err := harness.ConfigForCase("thresh=1G/xfs-10dd-4k-8p-4096M-1024M:10-3.1.0-rc9-ioless-full-more_io_wait-5-next-20111014+")
	if err != nil {
		panic(err)
	}
	fmt.Println("fs:", cfg.Disks[0].Filesystem, "| dd:", cfg.Disks[0].Workload.DD, "of bs", cfg.Disks[0].Workload.BS)
	fmt.Println("cpus:", cfg.CPUs, "| memory:", cfg.MemoryMB, "MB")
	fmt.Println("dirty_bytes:", cfg.DirtyBytes>>20, "MB | dirty_background_ratio:", cfg.DirtyBackgroundRatio, "%")
	fmt.Println("kernel:", cfg.Kernel, "| device:", cfg.Disks[0].Device.Name)

	// A part out of its range is an error naming the part.
	_, err = harness.ConfigForCase("thresh=100M/ext4-0dd-4k-8p-4096M-100M:10-X")
	fmt.Println(err)
	// Output:
	// fs: xfs | dd: 10 of bs 4096
	// cpus: 8 | memory: 4096 MB
	// dirty_bytes: 1024 MB | dirty_background_ratio: 10 %
	// kernel: 3.1.0-rc9-ioless-full-more_io_wait-5 | device: wu2011-hdd
	// case.dd: "0dd": N=0 out of range; want <N>dd with N in [1, 10000]
}
