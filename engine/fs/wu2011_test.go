package fs

import (
	"fmt"
	"os"
	"testing"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/sim"
)

// TestWu2011HDDRates runs 1/10/100 dd per filesystem on the wu2011-hdd preset and
// logs the harness write_bw next to the thread's baseline (table T1). It checks
// nothing: calibration is the fidelity test's job. Set WBLAB_FS_RATES=1 to run it.
func TestWu2011HDDRates(t *testing.T) {
	if os.Getenv("WBLAB_FS_RATES") == "" {
		t.Skip("set WBLAB_FS_RATES=1")
	}
	mk := map[string]func() kernel.Filesystem{
		"generic": func() kernel.Filesystem { return NewGeneric() },
		"ext3":    func() kernel.Filesystem { return NewExt3() },
		"ext4":    func() kernel.Filesystem { return NewExt4() },
		"xfs":     func() kernel.Filesystem { return NewXfs() },
		"btrfs":   func() kernel.Filesystem { return NewBtrfs() },
	}
	for _, th := range []int64{100 << 20, 1 << 30} {
		for _, name := range []string{"generic", "ext3", "ext4", "xfs", "btrfs"} {
			line := fmt.Sprintf("thresh=%4dM %-7s", th>>20, name)
			for _, n := range []int{1, 10, 100} {
				f := mk[name]()
				w, k := testKernel(t, "wu2011-hdd", f, th, nil)
				runDD(t, w, k, n, 120*sim.Second, false)
				bw, _, _ := k.HarnessWriteBW()
				epf, mean := LayoutStats(k)
				line += fmt.Sprintf("  %3ddd %5.1f MB/s (%4.0f ext/file, %6.1f MB/ext)", n, bw/256, epf, mean)
				switch f := f.(type) {
				case *Xfs:
					line += fmt.Sprintf(" [skipped %d, EAGAIN %d]", f.PagesSkipped, f.EAGAIN)
				case *Ext3:
					line += fmt.Sprintf(" [kjournald data %.0f%%]", 100*float64(f.CommitDataPages)/float64(max(k.G.NrWritten, 1)))
				}
			}
			t.Log(line)
		}
	}
}
