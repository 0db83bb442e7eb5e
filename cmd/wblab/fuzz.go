package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
)

func init() {
	commands["fuzz"] = command{
		usage: "wblab fuzz [--configs N] [--seed S]   run random valid configs with invariants on (VOPR-lite)",
		help:  fuzzHelp,
		run:   fuzzCmd,
	}
}

const fuzzHelp = `Usage: wblab fuzz [flags]

Draws random valid configs (every filesystem, 1-200 dd, dirty thresholds 1M-4G,
memory 256M-64G, 1-64 CPUs, every device preset with queue depth 1-256 and, on
a disk, either destage_age, every combination of the kernel switches, short
runs; a quarter of the disks shrunk to 1-16 GiB so they fill, a third of those
with a long run of 180-720 times --max-runtime and at most 4 dd) and runs each
with the model's
invariants checked after every event. A run also fails when its Result does not
encode (NaN, Inf), when a series column is short, when it wrote more than it
dirtied, or (every --recheck'th config) when a second run gives another Result.
Config I of seed S is the same on every machine, so a failure replays with
"wblab fuzz --seed S --index I"; it also prints "wblab run ... --check" when the
run flags express the config, and the config as JSON for --replay.

  --configs N        number of configs (default 200)
  --seed S           generator seed, an unsigned 64-bit integer (default 1)
  --index I          run only config I of --seed (replay)
  --replay FILE      run the config in FILE (JSON, as printed on a failure; - for
                     stdin) with invariants on
  --max-runtime DUR  longest simulated run drawn, [1ms, 1h] (default 10s)
  --parallel P       configs run at once (default: the number of CPUs)
  --recheck K        rerun every K-th config and require the same Result hash;
                     0 never (default 25)
  -v                 print every config's line, not only failures

Exit status: 0 no violations, 1 violations, 2 bad flags.
`

// fuzzOpts are the parsed flags of "wblab fuzz".
type fuzzOpts struct {
	configs, parallel, recheck int
	index                      int
	seed                       uint64
	replay                     string
	maxRuntime                 engine.Duration
	verbose                    bool
}

func parseFuzzArgs(args []string) (*fuzzOpts, error) {
	o := &fuzzOpts{configs: 200, seed: 1, maxRuntime: engine.Duration(10 * time.Second), parallel: runtime.GOMAXPROCS(0), recheck: 25, index: -1}
	fs := flag.NewFlagSet("fuzz", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&o.configs, "configs", o.configs, "")
	fs.Uint64Var(&o.seed, "seed", o.seed, "")
	fs.IntVar(&o.index, "index", o.index, "")
	fs.StringVar(&o.replay, "replay", "", "")
	fs.IntVar(&o.parallel, "parallel", o.parallel, "")
	fs.IntVar(&o.recheck, "recheck", o.recheck, "")
	fs.BoolVar(&o.verbose, "v", false, "")
	fs.Func("max-runtime", "", func(v string) error {
		d, err := engine.ParseDuration(v)
		if err != nil {
			return err
		}
		if d < engine.Duration(time.Millisecond) || d > engine.Duration(time.Hour) {
			return fmt.Errorf("%v out of range [1ms, 1h]", d)
		}
		o.maxRuntime = d
		return nil
	})
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch {
	case o.configs < 1:
		return nil, fmt.Errorf("--configs: %d; want at least 1", o.configs)
	case o.parallel < 1 || o.parallel > 1024:
		return nil, fmt.Errorf("--parallel: %d out of range [1, 1024]", o.parallel)
	case o.recheck < 0:
		return nil, fmt.Errorf("--recheck: %d; want 0 or more", o.recheck)
	case o.index < -1:
		return nil, fmt.Errorf("--index: %d; want 0 or more", o.index)
	}
	if isSet(fs, "index") && o.replay != "" {
		return nil, errors.New("--index and --replay: give one")
	}
	return o, nil
}

// logUniform draws from [lo, hi] with a uniform logarithm (each decade alike).
func logUniform(r *rand.Rand, lo, hi int64) int64 {
	v := int64(math.Exp(math.Log(float64(lo)) + r.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
	return min(max(v, lo), hi)
}

// fuzzConfig is config index of seed: the same on every machine and Go version
// (math/rand/v2's PCG is specified).
func fuzzConfig(seed uint64, index int, maxRuntime engine.Duration) engine.Config {
	r := rand.New(rand.NewPCG(seed, uint64(index)))
	c := engine.DefaultConfig()
	fss := engine.Filesystems()
	c.Disks[0].Filesystem = fss[r.IntN(len(fss))]
	c.Seed = r.Uint64()
	c.CPUs = 1 + r.IntN(64)
	c.MemoryMB = logUniform(r, 256, 64<<10)
	c.Disks[0].Workload.DD = int(logUniform(r, 1, 200))
	c.Disks[0].Workload.BS = []int64{512, 1024, 2048, 4096, 8192, 65536, 1 << 20, 4 << 20}[r.IntN(8)]
	if r.IntN(4) == 0 {
		c.Disks[0].Workload.Count = logUniform(r, 1, max(1, (256<<20)/c.Disks[0].Workload.BS))
		c.Disks[0].Workload.Fsync = r.IntN(2) == 0
	}
	mem := c.MemoryMB << 20
	if r.IntN(4) == 0 {
		c.DirtyBytes, c.DirtyRatio = 0, 1+r.IntN(100)
	} else {
		c.DirtyBytes = logUniform(r, 1<<10, min(4<<20, mem>>10)) << 10 // 1M..4G, whole KiB
	}
	if r.IntN(3) == 0 {
		c.DirtyBackgroundBytes, c.DirtyBackgroundRatio = logUniform(r, 1<<10, min(4<<20, mem>>10))<<10, 0
	} else {
		c.DirtyBackgroundRatio = 1 + r.IntN(100)
	}
	if r.IntN(5) == 0 {
		c.Disks[0].Workload.Readers = 1 + r.IntN(4)
		c.Disks[0].Workload.ReadRandom = r.IntN(2) == 0
		c.Disks[0].Workload.ReadBS = int64(4096 << r.IntN(6))
	}
	c.HZ = []int{100, 250, 300, 1000}[r.IntN(4)]
	c.DirtyExpireCs = int(logUniform(r, 1, 6000))
	c.DirtyWritebackCs = []int{0, 1, 10, 100, 500, 1000}[r.IntN(6)]
	presets := engine.DevicePresets()
	c.Disks[0].Device = presets[r.IntN(len(presets))]
	if r.IntN(2) == 0 {
		_ = c.Disks[0].Device.Set("qd", strconv.Itoa(int(logUniform(r, 1, 256))))
	}
	if r.IntN(2) == 0 {
		_ = c.Disks[0].Device.Set("destage_age", "write") // a disk's key: other models refuse it and stay as they are
	}
	kernels := engine.KernelPresets()
	c.Kernel = kernels[r.IntN(len(kernels))].Name
	// Usually every switch set (a uniform draw over all combinations), sometimes
	// the preset's own.
	if r.IntN(5) > 0 {
		c.Variants = engine.Overrides{}
		for _, n := range engine.SwitchNames() {
			c.Variants[n] = r.IntN(2) == 0
		}
	}
	if r.IntN(2) == 0 { // as many short as long runs
		c.Runtime = engine.Duration(logUniform(r, int64(time.Millisecond), int64(maxRuntime)))
	} else {
		c.Runtime = engine.Duration(int64(maxRuntime)/10 + r.Int64N(int64(maxRuntime)-int64(maxRuntime)/10+1))
	}
	c.CheckInvariants = true
	if r.IntN(4) == 0 { // page reclaim (drawn last: the earlier draws stay as they were)
		c.Reclaim = &engine.ReclaimConfig{AnonMB: r.Int64N(c.MemoryMB*7/8 + 1), Swap: r.IntN(2) == 0}
	}
	fuzzFullDisk(r, &c, maxRuntime)
	return c
}

// fuzzFullDisk sometimes shrinks a disk's partition to 1-16 GiB, which a run of
// seconds to minutes fills (ENOSPC), and then sometimes makes the run long (180 to
// 720 times --max-runtime, at most 24 h: 30 min to 2 h by default) with at most 4
// dd, so the run goes on long after the disk filled. Drawn after every other
// field: those stay as they were.
func fuzzFullDisk(r *rand.Rand, c *engine.Config, maxRuntime engine.Duration) {
	small := r.IntN(4) == 0
	capMiB := logUniform(r, 1<<10, 16<<10)
	long := r.IntN(3) == 0
	longRuntime := logUniform(r, 180*int64(maxRuntime), 720*int64(maxRuntime))
	// a disk's key: other models refuse it and stay as they are
	if !small || c.Disks[0].Device.Set("capacity", strconv.FormatInt(capMiB, 10)+"M") != nil {
		return
	}
	if long {
		c.Disks[0].Workload.DD = min(c.Disks[0].Workload.DD, 4)
		c.Runtime = engine.Duration(min(longRuntime, int64(24*time.Hour)))
	}
}

// runFlags returns the "wblab run" arguments giving cfg exactly, or false when the
// run flags cannot express it (readers, trace lines).
func runFlags(cfg engine.Config) ([]string, bool) {
	if cfg.Disks[0].Workload.Readers > 0 || cfg.Disks[0].Workload.ReadBS != 0 || cfg.Disks[0].Workload.ReadRandom || cfg.TraceLines != 0 {
		return nil, false
	}
	args := []string{"run", harness.CaseOf(cfg).String(), "--kernel", cfg.Kernel}
	if len(cfg.Variants) > 0 {
		var kv []string
		for _, n := range sortedKeys(cfg.Variants) {
			kv = append(kv, n+"="+strconv.FormatBool(cfg.Variants[n]))
		}
		args = append(args, "--variants", strings.Join(kv, ","))
	}
	args = append(args, "--device", cfg.Disks[0].Device.String(),
		"--hz", strconv.Itoa(cfg.HZ), "--expire-cs", strconv.Itoa(cfg.DirtyExpireCs),
		"--writeback-cs", strconv.Itoa(cfg.DirtyWritebackCs), "--count", strconv.FormatInt(cfg.Disks[0].Workload.Count, 10))
	if cfg.Disks[0].Workload.Fsync {
		args = append(args, "--fsync")
	}
	args = append(args, "--runtime", time.Duration(cfg.Runtime).String(), "--seed", strconv.FormatUint(cfg.Seed, 10))
	if cfg.SampleInterval != 0 {
		args = append(args, "--sample", time.Duration(cfg.SampleInterval).String())
	}
	if r := cfg.Reclaim; r != nil {
		v := strconv.FormatInt(r.AnonMB, 10)
		if r.Swap {
			v += ",swap"
		}
		args = append(args, "--reclaim", v)
	}
	if cfg.CheckInvariants {
		args = append(args, "--check")
	}
	return args, true
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shellQuote quotes an argument for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=/.,:+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return "wblab " + strings.Join(q, " ")
}

// endedEarly reports a run that legitimately stopped before its runtime: every dd
// exited and every dirtied page was written.
func endedEarly(res *engine.Result) bool {
	if len(res.Tasks) == 0 || res.Reads.Count > 0 || res.WrittenMB != res.DirtiedMB {
		return false
	}
	for _, t := range res.Tasks {
		if !t.Done {
			return false
		}
	}
	return true
}

// checkRun runs cfg and checks what the engine's invariants do not: the Result
// encodes (no NaN/Inf), its series columns are complete, written <= dirtied, the
// run reached its end. It returns the Result's hash.
func checkRun(ctx context.Context, cfg engine.Config) (string, error) {
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(res)
	if err != nil {
		return "", fmt.Errorf("result-encodes: %v", err)
	}
	if res.WrittenMB > res.DirtiedMB {
		return "", fmt.Errorf("written-le-dirtied: written %v MB > dirtied %v MB", res.WrittenMB, res.DirtiedMB)
	}
	if want := time.Duration(cfg.Runtime).Seconds(); math.Abs(res.RuntimeS-want) > 1e-9 && !endedEarly(res) {
		return "", fmt.Errorf("runtime-reached: ran %v s of %v s", res.RuntimeS, want)
	}
	if res.Series == nil || len(res.Series.Data) != len(res.Series.Names) {
		return "", errors.New("series-complete: names and columns differ")
	}
	for i, col := range res.Series.Data {
		if len(col) != len(res.Series.Data[0]) {
			return "", fmt.Errorf("series-complete: column %s has %d rows, time_s %d", res.Series.Names[i], len(col), len(res.Series.Data[0]))
		}
	}
	if len(res.Tasks) != cfg.Disks[0].Workload.DD {
		return "", fmt.Errorf("tasks-reported: %d tasks for %d dd", len(res.Tasks), cfg.Disks[0].Workload.DD)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// fuzzOne runs one config (and a recheck run) and returns an error on a violation.
func fuzzOne(ctx context.Context, cfg engine.Config, recheck bool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v [%s]", r, panicSite(debug.Stack()))
		}
	}()
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("generator drew an invalid config: %w", err)
	}
	h, err := checkRun(ctx, cfg)
	if err != nil || !recheck {
		return err
	}
	h2, err := checkRun(ctx, cfg)
	if err != nil {
		return fmt.Errorf("second run: %w", err)
	}
	if h != h2 {
		return fmt.Errorf("deterministic: two runs of the same config gave Results %s and %s", h[:12], h2[:12])
	}
	return nil
}

// panicSite returns the innermost wblab frames of a panic's stack as
// "func file:line; ..." (at most four).
func panicSite(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	var out []string
	for i := 0; i+1 < len(lines) && len(out) < 4; i++ {
		fn := lines[i]
		if !strings.HasPrefix(fn, "github.com/wblab/wblab/") || strings.Contains(fn, "cmd/wblab.") {
			continue
		}
		loc := strings.TrimSpace(lines[i+1])
		if parts := strings.Split(loc, "/"); len(parts) > 2 {
			loc = strings.Join(parts[len(parts)-2:], "/")
		}
		if j := strings.LastIndex(loc, " +0x"); j >= 0 {
			loc = loc[:j]
		}
		if j := strings.LastIndex(fn, "("); j >= 0 {
			fn = fn[:j]
		}
		out = append(out, strings.TrimPrefix(fn, "github.com/wblab/wblab/")+" "+loc)
	}
	return strings.Join(out, "; ")
}

// reportFailure prints a violation with everything to replay it.
func reportFailure(w io.Writer, label string, cfg engine.Config, err error, replay string) {
	cj, _ := json.Marshal(cfg)
	fmt.Fprintf(w, "FAIL %s: %v\n", label, err)
	if replay != "" {
		fmt.Fprintf(w, "  replay: %s\n", replay)
	}
	if args, ok := runFlags(cfg); ok {
		fmt.Fprintf(w, "  replay: %s\n", commandLine(args))
	}
	fmt.Fprintf(w, "  config (save as FILE.json, replay with wblab fuzz --replay FILE.json): %s\n", cj)
}

func fuzzCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseFuzzArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, fuzzHelp)
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "wblab fuzz: %v\n(see wblab help fuzz)\n", err)
		return exitUsage
	}
	if o.replay != "" {
		return fuzzReplay(ctx, o.replay, stdout, stderr)
	}
	first, n := 0, o.configs
	if o.index >= 0 {
		first, n = o.index, 1
	}
	start := time.Now()
	type outcome struct {
		i   int
		cfg engine.Config
		err error
	}
	jobs := make(chan int)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for range min(o.parallel, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				cfg := fuzzConfig(o.seed, i, o.maxRuntime)
				err := fuzzOne(ctx, cfg, o.recheck > 0 && i%o.recheck == o.recheck-1)
				results <- outcome{i, cfg, err}
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := first; i < first+n; i++ {
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	ran, failed := 0, 0
	var simulated float64
	for res := range results {
		if ctx.Err() != nil && errors.Is(res.err, ctx.Err()) {
			continue
		}
		ran++
		simulated += time.Duration(res.cfg.Runtime).Seconds()
		label := fmt.Sprintf("config %d of seed %d (%s, %s, %d dd)", res.i, o.seed, res.cfg.Disks[0].Filesystem, res.cfg.Disks[0].Device.Name, res.cfg.Disks[0].Workload.DD)
		if res.err != nil {
			failed++
			reportFailure(stdout, label, res.cfg, res.err, fmt.Sprintf("wblab fuzz --seed %d --index %d", o.seed, res.i))
		} else if o.verbose {
			fmt.Fprintf(stdout, "ok   %s, %v\n", label, time.Duration(res.cfg.Runtime))
		}
	}
	fmt.Fprintf(stdout, "wblab fuzz: %d configs (seed %d, first %d), %.0f s simulated, %d violations, %.1f s wall\n",
		ran, o.seed, first, simulated, failed, time.Since(start).Seconds())
	switch {
	case failed > 0:
		return exitFailed
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "wblab fuzz: interrupted after %d configs\n", ran)
		return exitFailed
	}
	return exitOK
}

// fuzzReplay runs the config in path (JSON) with invariants on.
func fuzzReplay(ctx context.Context, path string, stdout, stderr io.Writer) int {
	var raw []byte
	var err error
	if path == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "wblab fuzz: --replay: %v\n", err)
		return exitUsage
	}
	var cfg engine.Config
	if err := json.Unmarshal(raw, &cfg); err != nil {
		fmt.Fprintf(stderr, "wblab fuzz: --replay %s: %v\n", path, err)
		return exitUsage
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "wblab fuzz: --replay %s: %v\n", path, err)
		return exitUsage
	}
	cfg.CheckInvariants = true
	if err := fuzzOne(ctx, cfg, true); err != nil {
		reportFailure(stdout, "replay of "+path, cfg, err, "")
		return exitFailed
	}
	fmt.Fprintf(stdout, "wblab fuzz: replay of %s: ok (invariants held, same Result twice)\n", path)
	return exitOK
}
