// Package determinism checks that the engine gives the same Result natively and
// under GOOS=js GOARCH=wasm (Node), and that the wblab CLI built for wasm prints the
// same bytes as the native one.
//
// Configs returns a fixed set of configs (drawn deterministically from a seeded
// generator, plus the threads' cases on every filesystem); Hash is a canonical
// SHA-256 of a Result's full JSON (time series included) and its trace lines.
// TestHashes computes the hashes in whatever GOOS/GOARCH it runs under and writes
// them to $WBLAB_DETERMINISM_OUT; TestNativeMatchesWasm (run with
// WBLAB_WASM_DETERMINISM=1, as ./build.sh test does) runs TestHashes under
// GOOS=js GOARCH=wasm in Node and compares with the native hashes.
package determinism

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/wblab/wblab/devices"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/harness"
)

// Named is one config of the set.
type Named struct {
	Name   string
	Config engine.Config
}

// threadCases are the source threads' cases, run on every filesystem (FS is
// substituted), for a short simulated time.
var threadCases = []string{
	"thresh=100M/FS-1dd-4k-8p-4096M-100M:10-X",
	"thresh=1G/FS-100dd-4k-8p-4096M-1024M:10-X",
	"thresh=8M/FS-10dd-4k-8p-4096M-8M:10-X",
	"thresh=1M/FS-2dd-4k-8p-4096M-1M:10-X",
}

// Configs is the determinism set: len(threadCases)*5 thread cases plus random draws,
// at least 50 in all, each a few simulated seconds.
func Configs() []Named {
	var out []Named
	for _, fs := range engine.Filesystems() {
		for i, tc := range threadCases {
			name := replaceFS(tc, fs)
			c, err := harness.ConfigForCase(name)
			if err != nil {
				panic(fmt.Sprintf("determinism: %s: %v", name, err))
			}
			c.Runtime = engine.Duration(time.Duration(30+10*i) * time.Second)
			out = append(out, Named{Name: name, Config: c})
		}
	}
	// The Kara QD=1 fsync case and a traced run.
	kara, _ := harness.ConfigForCase("thresh=100M/ext3-1dd-1M-8p-4096M-100M:10-X")
	kara.Disks[0].Device, _ = devices.Preset("kara2016-qd1")
	kara.Disks[0].Workload.Count, kara.Disks[0].Workload.Fsync = 300, true
	kara.Runtime = engine.Duration(10 * time.Second)
	out = append(out, Named{Name: "kara-qd1-fsync-ext3", Config: kara})
	traced := engine.DefaultConfig()
	traced.Disks[0].Workload.DD = 3
	traced.Runtime = engine.Duration(5 * time.Second)
	traced.TraceLines = 5000
	out = append(out, Named{Name: "traced-generic-3dd", Config: traced})
	// Two disks: an editor on the HDD, a 64 MB copy to the USB stick (6.1).
	two := engine.DefaultConfig()
	two.Kernel, two.Runtime = "6.1", engine.Duration(20*time.Second)
	stick, _ := devices.Preset("usb2-stick")
	two.Disks[0].Workload = engine.Workload{Editors: 1, Readers: 1}
	two.Disks[0].Filesystem = "ext4"
	two.Disks = append(two.Disks, engine.DiskConfig{Device: stick, Filesystem: "ext4", BDI: kernel.BdiKnobs{MaxRatio: 10},
		Workload: engine.Workload{DD: 1, BS: 1 << 20, Count: 64}})
	out = append(out, Named{Name: "two-disk-usb-stick", Config: two})

	r := rand.New(rand.NewPCG(8, 2026))
	for i := 0; len(out) < 64; i++ {
		c := RandomConfig(r)
		if c.Validate() != nil {
			continue
		}
		out = append(out, Named{Name: fmt.Sprintf("random-%02d-%s", i, c.Disks[0].Filesystem), Config: c})
	}
	return out
}

func replaceFS(s, fs string) string {
	for i := 0; i+2 <= len(s); i++ {
		if s[i:i+2] == "FS" {
			return s[:i] + fs + s[i+2:]
		}
	}
	return s
}

// RandomConfig draws a random valid config (also used by the engine's invariants test): every
// filesystem and device preset, random queue depth, thresholds, memory, CPUs, dd
// count, kernel switches, readers; 2-15 simulated seconds.
func RandomConfig(r *rand.Rand) engine.Config {
	c := engine.DefaultConfig()
	fss := engine.Filesystems()
	c.Disks[0].Filesystem = fss[r.IntN(len(fss))]
	c.Seed = r.Uint64()
	c.CPUs = 1 + r.IntN(16)
	c.MemoryMB = int64(256 << r.IntN(7))
	c.Disks[0].Workload.DD = 1 + r.IntN(30)
	c.Disks[0].Workload.BS = []int64{512, 1024, 4096, 65536, 1 << 20}[r.IntN(5)]
	if r.IntN(4) == 0 {
		c.Disks[0].Workload.Count = int64(1 + r.IntN(20000))
		c.Disks[0].Workload.Fsync = r.IntN(2) == 0
	}
	if r.IntN(3) == 0 {
		c.DirtyBytes, c.DirtyRatio = 0, 1+r.IntN(60)
	} else {
		c.DirtyBytes = int64(1+r.IntN(int(c.MemoryMB/4))) << 20
	}
	if r.IntN(3) == 0 {
		c.DirtyBackgroundBytes, c.DirtyBackgroundRatio = int64(1+r.IntN(int(c.MemoryMB/8)))<<20, 0
	} else {
		c.DirtyBackgroundRatio = 1 + r.IntN(50)
	}
	if r.IntN(3) == 0 {
		c.Disks[0].Workload.Readers = 1 + r.IntN(4)
		c.Disks[0].Workload.ReadRandom = r.IntN(2) == 0
		c.Disks[0].Workload.ReadBS = int64(4096 << r.IntN(6))
	}
	c.DirtyExpireCs = 100 + r.IntN(3000)
	c.DirtyWritebackCs = r.IntN(600)
	c.HZ = []int{100, 250, 300, 1000}[r.IntN(4)]
	presets := devices.Presets()
	c.Disks[0].Device = presets[r.IntN(len(presets))]
	if r.IntN(2) == 0 {
		_ = c.Disks[0].Device.Set("qd", strconv.Itoa(1+r.IntN(64)))
	}
	c.Variants = kernel.Overrides{}
	for _, name := range kernel.VariantNames() {
		if r.IntN(3) == 0 {
			c.Variants[name] = r.IntN(2) == 0
		}
	}
	c.Runtime = engine.Duration(time.Duration(2+r.IntN(14)) * time.Second)
	if r.IntN(3) == 0 { // a multi-disk machine: 1-3 more disks with their own tasks and knobs
		for n := 1 + r.IntN(3); n > 0; n-- {
			d := engine.DiskConfig{Device: presets[r.IntN(len(presets))], Filesystem: fss[r.IntN(len(fss))],
				BDI: kernel.DefaultBdiKnobs()}
			d.Workload.DD = r.IntN(4)
			d.Workload.BS = []int64{4096, 65536, 1 << 20}[r.IntN(3)]
			d.Workload.Readers = r.IntN(2)
			d.Workload.Editors = r.IntN(2)
			if r.IntN(3) == 0 {
				d.BDI.MaxRatio = 1 + r.IntN(100)
				d.BDI.MinRatio = r.IntN(d.BDI.MaxRatio) / 4
			}
			d.BDI.StrictLimit = r.IntN(4) == 0 // refused by kernels without it
			c.Disks = append(c.Disks, d)
		}
		c.Disks[0].Workload.Editors = r.IntN(2)
	}
	return c
}

// Hash is the canonical hash of a Result: SHA-256 over its JSON (encoding/json:
// struct fields in declaration order, map keys sorted, floats in shortest
// round-trip form, so equal Results give equal bytes), then each trace line.
func Hash(r *engine.Result) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(b)
	for _, l := range r.Trace {
		h.Write([]byte{'\n'})
		h.Write([]byte(l))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Hashes runs every config of Configs and returns name -> hash.
func Hashes(ctx context.Context) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range Configs() {
		res, err := engine.Run(ctx, n.Config)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n.Name, err)
		}
		h, err := Hash(res)
		if err != nil {
			return nil, fmt.Errorf("%s: hash: %w", n.Name, err)
		}
		if _, dup := out[n.Name]; dup {
			return nil, fmt.Errorf("%s: duplicate config name", n.Name)
		}
		out[n.Name] = h
	}
	return out, nil
}
