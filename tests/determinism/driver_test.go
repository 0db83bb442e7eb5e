//go:build !js

package determinism

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// enabled skips the driver tests unless WBLAB_WASM_DETERMINISM=1 (./build.sh test
// sets it): they build for GOOS=js and run Node, which takes tens of seconds.
func enabled(t *testing.T) {
	t.Helper()
	if os.Getenv("WBLAB_WASM_DETERMINISM") != "1" {
		t.Skip("set WBLAB_WASM_DETERMINISM=1 to compare native and wasm (./build.sh test does)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node not found: %v (the wasm side runs in Node)", err)
	}
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func wasmExec(t *testing.T) string {
	return filepath.Join(goEnv(t, "GOROOT"), "lib", "wasm", "go_js_wasm_exec")
}

// crossHashes runs TestHashes of this package under goos/goarch (with exec as the
// test binary runner, if any) and returns its hashes.
func crossHashes(t *testing.T, goos, goarch, execPath string) map[string]string {
	t.Helper()
	out := filepath.Join(t.TempDir(), goos+"-"+goarch+".json")
	args := []string{"test", "-count=1", "-run", "^TestHashes$"}
	if execPath != "" {
		args = append(args, "-exec="+execPath)
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "WBLAB_DETERMINISM_OUT="+out)
	b, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test under %s/%s:\n%s", goos, goarch, b)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	var got struct {
		GOOS   string            `json:"goos"`
		GOARCH string            `json:"goarch"`
		Hashes map[string]string `json:"hashes"`
	}
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Equal(t, goos+"/"+goarch, got.GOOS+"/"+got.GOARCH)
	return got.Hashes
}

// compare requires identical hashes for every config, listing every mismatch.
func compare(t *testing.T, what string, native, other map[string]string) {
	t.Helper()
	var bad []string
	for _, n := range Configs() {
		if native[n.Name] != other[n.Name] {
			cfg, _ := json.Marshal(n.Config)
			bad = append(bad, n.Name+": native "+native[n.Name]+" "+what+" "+other[n.Name]+"\n    config "+string(cfg))
		}
	}
	sort.Strings(bad)
	require.Empty(t, bad, "%d of %d configs differ between native and %s:\n%s", len(bad), len(native), what, strings.Join(bad, "\n"))
	t.Logf("%d configs: identical Result hashes natively and under %s", len(native), what)
}

// TestNativeMatchesWasm requires the same Result hash for every config natively and
// under GOOS=js GOARCH=wasm in Node.
func TestNativeMatchesWasm(t *testing.T) {
	enabled(t)
	native, err := Hashes(context.Background())
	require.NoError(t, err)
	compare(t, "js/wasm", native, crossHashes(t, "js", "wasm", wasmExec(t)))
}

// TestNativeMatches386 does the same for GOARCH=386 (a 32-bit build this amd64
// machine runs), when the machine can run it.
func TestNativeMatches386(t *testing.T) {
	enabled(t)
	if goEnv(t, "GOHOSTARCH") != "amd64" || goEnv(t, "GOHOSTOS") != "linux" {
		t.Skip("386 binaries run only on linux/amd64 here")
	}
	if err := run386Probe(t); err != nil {
		t.Skipf("this host cannot run linux/386 binaries (a kernel without CONFIG_IA32_EMULATION): %v", err)
	}
	native, err := Hashes(context.Background())
	require.NoError(t, err)
	compare(t, "linux/386", native, crossHashes(t, "linux", "386", ""))
}

// run386Probe builds and runs a trivial linux/386 program: whether the host kernel
// executes 32-bit binaries at all, which the comparison needs.
func run386Probe(t *testing.T) error {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
		return err
	}
	bin := filepath.Join(dir, "probe386")
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "GOOS=linux", "GOARCH=386", "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building a linux/386 probe: %v\n%s", err, b)
	}
	return exec.Command(bin).Run()
}

// cliCases are `wblab run` argument lists compared byte for byte.
var cliCases = [][]string{
	{"run", "--json", "--runtime", "20s", "thresh=100M/generic-1dd-4k-8p-4096M-100M:10-X"},
	{"run", "--json", "--runtime", "10s", "--check", "thresh=8M/ext4-10dd-4k-8p-4096M-8M:10-X"},
	{"run", "--json", "--runtime", "10s", "--device", "kara2016-qd1", "--bs", "1M", "--count", "200", "--fsync", "--fs", "ext3"},
}

// TestCLIWasmMatchesNative builds the wblab CLI natively and for GOOS=js GOARCH=wasm
// and requires byte-identical `wblab run --json` output from both (the wasm one run
// in Node through go_js_wasm_exec), as anyone can check by hand.
func TestCLIWasmMatchesNative(t *testing.T) {
	enabled(t)
	dir := t.TempDir()
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	build := func(goos, goarch, out string) {
		cmd := exec.Command("go", "build", "-o", out, "./cmd/wblab")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch)
		b, err := cmd.CombinedOutput()
		require.NoError(t, err, "go build %s/%s:\n%s", goos, goarch, b)
	}
	native, wasm := filepath.Join(dir, "wblab"), filepath.Join(dir, "wblab.wasm")
	build(goEnv(t, "GOHOSTOS"), goEnv(t, "GOHOSTARCH"), native)
	build("js", "wasm", wasm)
	runOut := func(name string, args ...string) []byte {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(name, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "%s %v: %s", name, args, stderr.String())
		return stdout.Bytes()
	}
	for _, args := range cliCases {
		t.Run(strings.Join(args[2:], " "), func(t *testing.T) {
			n := runOut(native, args...)
			w := runOut(wasmExec(t), append([]string{wasm}, args...)...)
			require.Greater(t, len(n), 1000)
			if !bytes.Equal(n, w) {
				t.Fatalf("wblab %s: native and wasm output differ (%d vs %d bytes); first difference at byte %d",
					strings.Join(args, " "), len(n), len(w), firstDiff(n, w))
			}
		})
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
