package validate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQEMUBoot boots one 10 s case in QEMU and compares it. It needs qemu-system-x86_64
// and about two minutes of two busy cores, so it runs only when asked:
// WBLAB_QEMU=1 go test ./validate -run TestQEMUBoot (it runs qemu/setup.sh first, which
// may apt-get). -short skips it too. CI (./build.sh test) does not set WBLAB_QEMU.
func TestQEMUBoot(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the QEMU boot takes minutes")
	}
	if os.Getenv("WBLAB_QEMU") != "1" {
		t.Skip("set WBLAB_QEMU=1 to boot a 10 s case in QEMU (needs qemu-system-x86_64; see validate/README.md)")
	}
	for _, s := range []string{"qemu/setup.sh", "qemu/initramfs.sh"} {
		out, err := exec.Command(s).CombinedOutput()
		require.NoError(t, err, "%s: %s", s, out)
	}
	log := filepath.Join(t.TempDir(), "boot.log")
	out, err := exec.Command("qemu/run-case.sh", "--out", log, "--fs", "ext4", "--dd", "1", "--run", "10",
		"--dirty-bytes", "52428800", "--bw", "4194304").CombinedOutput()
	require.NoError(t, err, "%s", out)
	f, err := os.Open(log)
	require.NoError(t, err)
	defer f.Close()
	l, err := ReadLog("boot", f)
	require.NoError(t, err)
	c, err := Compare(context.Background(), l)
	require.NoError(t, err)
	assert.Equal(t, int64(50<<20), c.Case.DirtyBytes)
	assert.Zero(t, c.Case.DirtyRatio, "writing dirty_bytes zeroes dirty_ratio")
	assert.GreaterOrEqual(t, len(l.Samples), 8)
	assert.InDelta(t, 50.0, c.Measured.ThreshMB, 0.5)
	require.NotNil(t, c.Model)
	t.Logf("measured write_bw %.2f MB/s, wblab %.2f MB/s; disk got %.2f MB/s", c.Measured.WriteBWMBps, c.Model.WriteBWMBps, c.DiskRateBps/(1<<20))
}
