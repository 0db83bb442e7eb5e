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
	// the plain data the page's UI module reads: no model, nothing above
	{"engine/report", []string{"engine/sim", "engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/stats", "devices", "harness", "repro", "validate", "lab", "ui", "cmd", "wasm"}},
	{"engine/stats", []string{"engine/sim", "engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/report", "devices", "harness", "repro", "validate", "lab", "ui", "cmd", "wasm"}},
	{"devices", []string{"engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/stats", "harness", "repro", "validate", "ui", "cmd", "wasm"}},
	// the typed trace events: a leaf above the clock, so devices and the kernel can emit them
	{"engine/tracepoint", []string{"engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/stats", "engine/report", "devices", "harness", "repro", "validate", "lab", "ui", "cmd", "wasm"}},
	{"engine/sim", []string{"engine/tracepoint", "engine/kernel", "engine/fs", "engine/workload", "devices", "harness", "repro", "validate", "ui", "cmd", "wasm"}},
	{"engine", []string{"harness", "repro", "validate", "lab", "ui", "cmd", "wasm"}},
	{"harness", []string{"repro", "validate", "lab", "ui", "cmd", "wasm"}},
	{"repro", []string{"validate", "lab", "ui", "cmd", "wasm"}},
	{"validate", []string{"repro", "lab", "ui", "cmd", "wasm"}},
	// the page's answers from the engine (in the worker): below the UI
	{"lab", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "engine/tracepoint", "devices", "cmd", "wasm"}},
	// the UI (main.wasm) reaches the engine only through the worker (ui/wire, lab);
	// TestUIModuleLinksNoModel checks the whole import graph
	{"ui", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "engine/tracepoint", "devices", "harness", "repro", "validate", "lab", "cmd", "wasm"}},
	{"cmd", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "engine/tracepoint", "devices", "ui", "wasm"}},
	{"wasm/worker", []string{"engine/kernel", "engine/sim", "engine/fs", "engine/workload", "engine/trace", "engine/tracepoint", "devices", "cmd"}},
	{"wasm/serve", []string{"engine", "devices", "harness", "repro", "validate", "lab", "ui", "cmd"}},
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

// modelPackages are the simulator and what runs it: the page's UI module (main.wasm)
// must link none of them, directly or through another package.
var modelPackages = []string{"engine", "engine/sim", "engine/kernel", "engine/fs", "engine/workload", "engine/trace", "engine/tracepoint",
	"devices", "harness", "repro", "validate", "lab", "cmd"}

// TestUIModuleLinksNoModel: the UI's entry (wasm, built as main.wasm) and package ui
// import no model package anywhere in their import graph (js/wasm build, non-test
// files): the engine's registries, validation and case parsing are the worker's
// answers (lab), and results are engine/report's plain types.
func TestUIModuleLinksNoModel(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	ctx := build.Default
	ctx.GOOS, ctx.GOARCH = "js", "wasm"
	for _, entry := range []string{"wasm", "ui"} {
		seen := map[string][]string{} // package -> the import chain that reached it
		var walk func(rel string, chain []string)
		walk = func(rel string, chain []string) {
			if _, ok := seen[rel]; ok {
				return
			}
			chain = append(append([]string(nil), chain...), rel)
			seen[rel] = chain
			p, err := ctx.ImportDir(filepath.Join(root, rel), 0)
			require.NoError(t, err, rel)
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module) {
					walk(strings.TrimPrefix(imp, module), chain)
				}
			}
		}
		walk(entry, nil)
		assert.Contains(t, seen, "ui/wire", "%s reaches the wire types", entry)
		for pkg, chain := range seen {
			for _, m := range modelPackages {
				assert.False(t, pkg == m || (m != "engine" && under(pkg, m)),
					"%s links the model package %s: %s", entry, pkg, strings.Join(chain, " -> "))
			}
		}
	}
}
