// Package layout checks the import direction README's Layout states.
package layout

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/wblab/wblab/"

// rules: a package (by path prefix, longest first) and the module packages it
// must not import (by prefix).
var rules = []struct {
	pkg    string
	forbid []string
}{
	{"devices", []string{"engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/stats", "harness", "repro", "validate", "ui", "cmd", "wasm"}},
	{"engine/sim", []string{"engine/kernel", "engine/fs", "engine/workload", "devices", "harness", "repro", "validate", "ui", "cmd", "wasm"}},
	{"engine", []string{"harness", "repro", "validate", "ui", "cmd", "wasm"}},
	{"harness", []string{"repro", "validate", "ui", "cmd", "wasm"}},
	{"repro", []string{"validate", "ui", "cmd", "wasm"}},
	{"validate", []string{"repro", "ui", "cmd", "wasm"}},
	{"ui", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "devices", "cmd", "wasm"}},
	{"cmd", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "devices", "ui", "wasm"}},
	{"wasm/worker", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "devices", "cmd"}},
}

func under(path, prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }

// TestImportDirection: nothing in engine/... or devices imports upward, and ui,
// cmd and the wasm worker reach the model only through engine, harness, repro,
// validate and engine/stats (non-test files, native and js/wasm builds).
func TestImportDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	checked := 0
	for _, goos := range []string{"linux", "js"} {
		ctx := build.Default
		ctx.GOOS = goos
		if goos == "js" {
			ctx.GOARCH = "wasm"
		}
		err := filepath.WalkDir(root, func(dir string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if n := d.Name(); dir != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "static" || n == "tests") {
				return filepath.SkipDir
			}
			p, err := ctx.ImportDir(dir, 0)
			if err != nil {
				return nil // no Go files for this platform
			}
			rel, _ := filepath.Rel(root, dir)
			rel = filepath.ToSlash(rel)
			for _, r := range rules {
				if !under(rel, r.pkg) {
					continue
				}
				checked++
				for _, imp := range p.Imports {
					if !strings.HasPrefix(imp, module) {
						continue
					}
					dep := strings.TrimPrefix(imp, module)
					for _, f := range r.forbid {
						assert.False(t, under(dep, f), "%s (%s) imports %s", rel, goos, dep)
					}
				}
				break
			}
			return nil
		})
		require.NoError(t, err)
	}
	assert.Greater(t, checked, 20, "packages checked")
}
