package harness

import (
	"fmt"
	"strings"
	"time"

	"github.com/wblab/wblab/engine"
)

// BenchCase is one representative case of the speed benchmarks (PERFORMANCE.md):
// "wblab bench" and "go test -bench ./engine" both run this list.
type BenchCase struct {
	Name   string
	Config func() (engine.Config, error)
}

func benchCaseFor(name string, runtime time.Duration) func() (engine.Config, error) {
	return func() (engine.Config, error) {
		c, err := ConfigForCase(name)
		c.Runtime = engine.Duration(runtime)
		return c, err
	}
}

// benchRepro is a reproduction's machine (kernel, device, filesystem, dd) at the
// threads' 20 % dirty ratio.
func benchRepro(kernelName, device, fs string, w engine.Workload, runtime time.Duration) func() (engine.Config, error) {
	return func() (engine.Config, error) {
		c := engine.DefaultConfig()
		dev, err := engine.DevicePreset(device)
		c.Disks[0].Device, c.Kernel, c.Disks[0].Filesystem = dev, kernelName, fs
		c.DirtyBytes, c.DirtyRatio, c.DirtyBackgroundRatio = 0, 20, 10
		c.Disks[0].Workload = w
		c.Runtime = engine.Duration(runtime)
		return c, err
	}
}

// BenchCases are the threads' representative cases (issue 7); with scale, also the
// scaling series (dd count, simulated time, threshold), named scale-dd/…,
// scale-time/… and scale-thresh/….
func BenchCases(scale bool) []BenchCase {
	cs := []BenchCase{
		{"generic-1dd-100M-600s", benchCaseFor("thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X", 600*time.Second)},
		{"xfs-100dd-1G-600s", benchCaseFor("thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", 600*time.Second)},
		{"ext4-10dd-8M-600s", benchCaseFor("thresh=8M/ext4-10dd-4k-8p-4096M-8M:10-X", 600*time.Second)},
		{"ext3-10dd-100M-600s", benchCaseFor("thresh=100M/ext3-10dd-4k-8p-4096M-100M:10-X", 600*time.Second)},
		{"kara-qd1-ext3-10000M-fsync", benchRepro("4.6+wbt", "kara2016-qd1", "ext3",
			engine.Workload{DD: 1, BS: 1 << 20, Count: 10000, Fsync: true}, 1000*time.Second)},
		{"chinner-xfs-100G", benchRepro("2.6.36-rc1", "chinner2010-vm", "xfs",
			engine.Workload{DD: 1, BS: 1 << 20, Count: 100 << 10}, 1000*time.Second)},
	}
	if !scale {
		return cs
	}
	for _, n := range []int{1, 10, 100, 1000} {
		cs = append(cs, BenchCase{fmt.Sprintf("scale-dd/generic-%ddd-1G-60s", n),
			benchCaseFor(fmt.Sprintf("thresh=1G/generic-%ddd-4k-8p-4096M-1024M:10-X", n), 60*time.Second)})
	}
	for _, s := range []int{60, 600, 3600} {
		cs = append(cs, BenchCase{fmt.Sprintf("scale-time/xfs-100dd-1G-%ds", s),
			benchCaseFor("thresh=1G/xfs-100dd-4k-8p-4096M-1024M:10-X", time.Duration(s)*time.Second)})
	}
	for _, th := range []string{"1M", "8M", "100M", "1G", "4G"} {
		mb := map[string]string{"1M": "1M", "8M": "8M", "100M": "100M", "1G": "1024M", "4G": "4096M"}[th]
		cs = append(cs, BenchCase{fmt.Sprintf("scale-thresh/ext4-10dd-%s-600s", th),
			benchCaseFor(fmt.Sprintf("thresh=%s/ext4-10dd-4k-8p-8192M-%s:10-X", th, mb), 600*time.Second)})
	}
	return cs
}

// BenchCasesWithPrefix are the cases (scaling series included) whose name starts
// with prefix.
func BenchCasesWithPrefix(prefix string) []BenchCase {
	var out []BenchCase
	for _, c := range BenchCases(true) {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}
