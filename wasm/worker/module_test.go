//go:build !(js && wasm)

package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/wblab/wblab/validate"
)

// TestModuleHasNoReferences builds worker.wasm as ./build.sh does and checks that no
// reference log's bytes are in it (the worker fetches validate.BundleName when the
// measured question first needs it), while the native build (this test's own binary,
// which links package validate) embeds them: the search finds what is there.
func TestModuleHasNoReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("builds worker.wasm")
	}
	var bundle bytes.Buffer
	require.NoError(t, validate.WriteBundle(&bundle))
	members := splitMembers(t, bundle.Bytes())
	require.NotEmpty(t, members)

	out := filepath.Join(t.TempDir(), "worker.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", b)
	module, err := os.ReadFile(out)
	require.NoError(t, err)
	self, err := os.Executable()
	require.NoError(t, err)
	native, err := os.ReadFile(self)
	require.NoError(t, err)
	for name, m := range members {
		// 64 bytes of deflate data from the member's middle (the wasm linker splits its
		// data segments at runs of zeros, which a member's header and trailer can have)
		probe := m[len(m)/2 : len(m)/2+64]
		assert.False(t, bytes.Contains(module, probe), "worker.wasm holds %s", name)
		assert.True(t, bytes.Contains(native, probe), "the native build embeds %s", name)
	}
}

// splitMembers cuts a bundle into its gzip members (each a committed NAME.log.gz), by
// the names they carry.
func splitMembers(t *testing.T, b []byte) map[string][]byte {
	out := map[string][]byte{}
	r := bytes.NewReader(b)
	for r.Len() > 0 {
		start := len(b) - r.Len()
		zr, err := gzip.NewReader(r)
		require.NoError(t, err)
		zr.Multistream(false)
		_, err = io.Copy(io.Discard, zr)
		require.NoError(t, err)
		out[zr.Name] = b[start : len(b)-r.Len()]
	}
	return out
}
