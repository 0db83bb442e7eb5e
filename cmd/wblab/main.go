// Command wblab runs the writeback simulator from the command line. Its nine
// commands (run, presets and help are in main.go; the others register from their
// own files, bench.go ... validate.go):
//
//	wblab run [flags] [CASE]        simulate one case and print a summary (or JSON)
//	wblab presets [--json]          list kernels, kernel switches, devices, filesystems
//	wblab help [COMMAND]            print help; "help series" explains --series
//	wblab bench [--case NAME,...]   time the representative cases (PERFORMANCE.md)
//	wblab compare --base K1 --test K2 (--matrix NAME | CASE...)
//	                                compare two kernels over cases and seeds
//	wblab experiment NAME           run a named reproduction of a source thread
//	wblab fuzz [--configs N]        run random valid configs with invariants on
//	wblab sweep [--fs LIST] ...     write_bw by dirty threshold and writers
//	wblab validate [--dir DIR]      the 6.1 preset against measured Linux 6.1 (QEMU)
//
// "wblab help COMMAND" lists a command's flags. Exit status: 0 on success, 2 on
// bad input (flag, case name or config), 1 when a run fails or its output cannot be
// written.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/validate"
)

// Exit statuses.
const (
	exitOK     = 0
	exitFailed = 1 // the run failed, or writing its output did
	exitUsage  = 2 // bad input
)

// The run length range of Config.Validate, checked early for a message in seconds.
const (
	minRuntime = engine.Duration(time.Millisecond)
	maxRuntime = engine.Duration(24 * time.Hour)
)

// defaultTraceLines is the trace buffer size when --trace is given without --trace-lines.
const defaultTraceLines = 100_000

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the whole command: it parses args, writes to stdout/stderr and returns the
// exit status. It never panics (a bug is reported as an internal error, status 1).
func run(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

// runContext is run with a context that cancels a simulation in progress.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "wblab: internal error: %v (this is a bug in wblab; please report it with the command line)\n", r)
			code = exitFailed
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return exitUsage
	}
	switch args[0] {
	case "run":
		return runCmd(ctx, args[1:], stdout, stderr)
	case "presets":
		return presetsCmd(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		return helpCmd(args[1:], stdout, stderr)
	}
	if c, ok := commands[args[0]]; ok {
		return c.run(ctx, args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "wblab: unknown command %q (commands: %s)\n", args[0], strings.Join(commandNames(), ", "))
	return exitUsage
}

// command is a subcommand registered by its own file (experiment, compare, fuzz, bench ...).
type command struct {
	usage string // one line for the usage text: "wblab NAME ...   what it does"
	help  string // the text of "wblab help NAME"
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

// commands holds the registered subcommands; files add theirs in init().
var commands = map[string]command{}

func commandNames() []string {
	names := []string{"run", "presets", "help"}
	extra := make([]string, 0, len(commands))
	for n := range commands {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	return append(names, extra...)
}

func extraUsage() string {
	var b strings.Builder
	for _, n := range commandNames()[3:] {
		b.WriteString("  " + commands[n].usage + "\n")
	}
	return b.String()
}

func usage() string {
	return `wblab: a deterministic simulator of Linux dirty-page writeback

Usage:
  wblab run [flags] [CASE]   simulate one case (default ` + defaultCase() + `)
  wblab presets [--json]     list kernels, kernel switches, devices and filesystems
  wblab help [COMMAND]       show help for a command
  wblab help series          what each --series column and summary figure means
` + extraUsage() + `
CASE is a harness case name like thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X.
Run "wblab help run" for the flags.
`
}

// wrap breaks a comma-separated list into lines of at most width columns, indenting
// the continuation lines by indent spaces.
func wrap(s string, indent, width int) string {
	var b strings.Builder
	col := indent
	for i, w := range strings.Split(s, " ") {
		if i > 0 {
			if col+1+len(w) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			} else {
				b.WriteByte(' ')
				col++
			}
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// seconds formats a duration as the harness writes it: 600s.
func seconds(d engine.Duration) string {
	return strconv.FormatFloat(time.Duration(d).Seconds(), 'f', -1, 64) + "s"
}

func defaultCase() string { return harness.CaseOf(engine.DefaultConfig()).String() }

func helpCmd(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return exitOK
	}
	switch args[0] {
	case "run":
		fmt.Fprint(stdout, runHelp())
	case "presets":
		fmt.Fprint(stdout, presetsHelp)
	case "series":
		fmt.Fprint(stdout, seriesHelp())
	default:
		if c, ok := commands[args[0]]; ok {
			fmt.Fprint(stdout, c.help)
			return exitOK
		}
		fmt.Fprintf(stderr, "wblab help: unknown command %q (commands: %s)\n", args[0], strings.Join(commandNames(), ", "))
		return exitUsage
	}
	return exitOK
}

func runHelp() string {
	d := engine.DefaultConfig()
	dc := harness.CaseOf(d)
	var kernels []string
	for _, p := range engine.KernelPresets() {
		kernels = append(kernels, p.Name)
	}
	var devs []string
	for _, s := range engine.DevicePresets() {
		devs = append(devs, s.Name)
	}
	return fmt.Sprintf(`Usage: wblab run [flags] [CASE]

Simulates one case and prints a summary (or, with --json, the Result as JSON).

CASE is a case name in the Wu 2011 threads' form:
  [thresh=SIZE/]FS-<N>dd-BS-<N>p-MEMORY-DIRTY:BACKGROUND-KERNEL
  e.g. thresh=100M/generic-10dd-4k-8p-4096M-100M:10-X
DIRTY is vm.dirty_bytes when a size (100M) or vm.dirty_ratio when a bare number (20);
BACKGROUND is dirty_background_ratio (10) or dirty_background_bytes (50M). KERNEL is X
(use --kernel) or a kernel preset's release string. Sizes take k/M/G (binary) suffixes.
Default case: %s
Flags override the case's fields. Flags may come before or after CASE; -flag and --flag
are the same.

Case fields:
  --fs NAME          filesystem (default %s; runnable: %s)
  --dd N             number of dd writers, [1, %d] (default %d)
  --bs SIZE          dd block size, a multiple of 512 in [512, 64M] (default %s)
  --cpus N           CPUs, [1, %d] (default %d)
  --memory SIZE      memory, whole MiB in [%dM, %dM] (default %s)
  --dirty LIMIT      dirty threshold: bytes in [8k, memory] like 100M, or a ratio
                     in [1, 100] like 20 (default %s)
  --background LIMIT background threshold: a ratio in [1, 100] like 10, or bytes in
                     [4k, memory] like 50M (default %s)

Machine and kernel:
  --kernel K         kernel preset (default %s); presets:
                     %s
  --variants LIST    kernel switch overrides, name=true|false,... (default none: the
                     preset's switches); switches:
                     %s
  --device D         device preset NAME[,key=value...] (default %s); presets:
                     %s
                     keys (see wblab presets); the hardware's, then the block
                     layer's (max_sectors_kb ... wbt_draft), which override what the
                     kernel preset sets for this disk:
                     %s
  --disk SPEC        one disk of a multi-disk machine, repeatable; the first --disk
                     replaces --device/--fs/--dd (sda = 8:0, then 8:16 ...). SPEC is
                     DEVICE[,key=value...]: a device preset and its keys, plus
%s
                     e.g. --disk nvme,fs=ext4,editors=1,readers=1
                          --disk usb2-stick,fs=ext4,dd=1,bs=1M,count=4096,max_ratio=5%s

Workload and run (the first disk's keys of --disk, and the run):%s%s
  --seeds N          run seeds N, N+1 ... (N of them, [1, 100]) in parallel and print
                     each seed's write_bw with the mean, min-max, sd and 95%% CI
                     (--json: {"seeds","write_bw_MBps":{"n","mean","min","max","sd",
                     "ci95"},"results":[...]}; not with --series/--trace; default 1)
  --check            check the model's invariants after every event (slow; default off)
  --verbose          when an invariant fails, print after its short line the details:
                     the run's config as JSON (default off)

Output:
  --json             print the Result as JSON instead of the summary (default off)
  --series FILE      write the sampled time series as CSV, first column time_s
                     (default none)
  --trace FILE       write the trace in the kernel's text format, flusher comms
                     like flush-8:0 (default none; it keeps the newest %d lines
                     unless --trace-lines says otherwise)%s

Exit status: 0 ok, 1 the run failed or its output could not be written, 2 bad input.
`,
		dc, d.Disks[0].Filesystem, strings.Join(engine.Filesystems(), ", "),
		engine.MaxDD, d.Disks[0].Workload.DD, dc.BS, engine.MaxCPUs, d.CPUs,
		engine.MinMemoryMB, engine.MaxMemoryMB, dc.Memory, dc.Dirty, dc.Background,
		d.Kernel, wrap(strings.Join(kernels, ", "), 21, 88), wrap(strings.Join(engine.SwitchNames(), ", "), 21, 88),
		engine.DefaultDevice, wrap(strings.Join(devs, ", "), 21, 88), wrap(strings.Join(engine.DeviceKeys(), ", "), 21, 88),
		diskKeysHelp(), keyFlagsHelp(d, "sysctl", "machine"),
		diskFlagsHelp(d), keyFlagsHelp(d, "run"),
		defaultTraceLines, keyFlagsHelp(d, "output"))
}

// usageError is bad input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func badInput(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// runOpts are the parsed flags of "wblab run".
type runOpts struct {
	caseName   string
	caseParts  [][2]string            // case part, value, in flag order
	setters    []func(*engine.Config) // non-case settings, in flag order
	set        func(*engine.Config)   // applies setters and the boolean flags
	errs       []error                // bad flag values, all reported together
	check      bool
	disks      []engine.DiskConfig // --disk flags, in order
	kernelSet  bool
	traceLines bool
	json       bool
	verbose    bool
	seeds      int
	series     string
	trace      string
}

// parseRunArgs parses the flags and CASE of "wblab run". It returns flag.ErrHelp for
// -h/--help.
func parseRunArgs(args []string) (*runOpts, error) {
	o := &runOpts{}
	fs := newRunFlags(o)

	// Go's flag package stops at the first non-flag argument; CASE may come anywhere.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > 1 {
		return nil, badInput("want at most one CASE, got %d: %s", len(positional), strings.Join(positional, " "))
	}
	if len(positional) == 1 {
		o.caseName = positional[0]
	}
	o.traceLines = isSet(fs, "trace-lines")
	o.kernelSet = isSet(fs, "kernel")
	for _, name := range []string{"series", "trace"} {
		if isSet(fs, name) && strings.TrimSpace(fs.Lookup(name).Value.String()) == "" {
			return nil, badInput("--%s: want a file name", name)
		}
		if isSet(fs, name) && o.seeds > 1 {
			return nil, badInput("--%s: one run's output; not with --seeds %d", name, o.seeds)
		}
	}
	setters := o.setters
	check := isSet(fs, "check")
	o.set = func(c *engine.Config) {
		for _, s := range setters {
			s(c)
		}
		if check {
			c.CheckInvariants = o.check
		}
		if len(o.disks) > 0 {
			c.Disks = slices.Clone(o.disks)
		}
	}
	return o, nil
}

// newRunFlags defines the flags of "wblab run" (documented in runHelp), storing into o.
func newRunFlags(o *runOpts) *flag.FlagSet {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}

	for _, part := range harness.CaseParts {
		if part == "kernel" {
			continue // --kernel names a preset, not a release
		}
		fs.Func(part, "", func(v string) error {
			o.caseParts = append(o.caseParts, [2]string{part, v})
			return nil
		})
	}
	// setting registers a flag whose value is parsed now and applied to the config
	// later; a bad value is kept in o.errs, to be reported with every other.
	setting := func(name string, parse func(v string) (func(*engine.Config), error)) {
		fs.Func(name, "", func(v string) error {
			apply, err := parse(v)
			if err != nil {
				o.errs = append(o.errs, fmt.Errorf("--%s %q: %w", name, v, err))
				return nil
			}
			o.setters = append(o.setters, apply)
			return nil
		})
	}
	fs.Func("disk", "", func(v string) error {
		d, err := engine.ParseDisk(v)
		if err != nil {
			return err
		}
		o.disks = append(o.disks, d)
		return nil
	})
	for _, k := range engine.ConfigKeys { // one flag per row with one; ranges are Validate's
		if k.Flag == "" {
			continue // the case name sets it
		}
		setting(k.Flag, func(v string) (func(*engine.Config), error) {
			probe := engine.DefaultConfig()
			if err := k.Parse(&probe, v); err != nil {
				return nil, err
			}
			return func(c *engine.Config) { _ = k.Parse(c, v) }, nil
		})
	}
	for _, k := range engine.DiskKeys { // the first disk's keys with a flag
		if !k.Flag {
			continue
		}
		parse := func(v string) (func(*engine.Config), error) {
			var probe engine.DiskConfig
			if err := k.Parse(&probe, v); err != nil {
				return nil, errors.New(strings.TrimPrefix(err.Error(), k.Key+": "))
			}
			return func(c *engine.Config) { _ = k.Parse(&c.Disks[0], v) }, nil
		}
		if !k.IsBool() {
			setting(k.Key, parse)
			continue
		}
		fs.BoolFunc(k.Key, "", func(v string) error { // --fsync, --fsync=false
			apply, err := parse(v)
			if err != nil {
				o.errs = append(o.errs, fmt.Errorf("--%s %q: %w", k.Key, v, err))
				return nil
			}
			o.setters = append(o.setters, apply)
			return nil
		})
	}
	fs.BoolVar(&o.check, "check", false, "")
	fs.BoolVar(&o.json, "json", false, "")
	fs.BoolVar(&o.verbose, "verbose", false, "")
	fs.Func("seeds", "", func(v string) error {
		n, err := parseSeeds(strings.TrimSpace(v))
		if err != nil {
			return errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("--seeds %q: ", strings.TrimSpace(v))))
		}
		o.seeds = n
		return nil
	})
	fs.StringVar(&o.series, "series", "", "")
	fs.StringVar(&o.trace, "trace", "", "")
	return fs
}

func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// clampInt converts to int, saturating, so out-of-range values reach Validate's range
// check instead of wrapping.
func clampInt(n int64) int {
	const maxInt, minInt = int64(^uint(0) >> 1), -int64(^uint(0)>>1) - 1
	return int(min(max(n, minInt), maxInt))
}

// buildConfig turns the parsed flags into a validated Config. Every bad input is
// reported at once: the flags' values, the case parts and the engine's checks,
// one a line.
func buildConfig(o *runOpts) (engine.Config, error) {
	cfg := engine.DefaultConfig()
	c := harness.CaseOf(cfg)
	if o.caseName != "" {
		var err error
		if c, err = harness.ParseCase(o.caseName); err != nil {
			return cfg, usageError{err}
		}
	}
	errs := slices.Clone(o.errs)
	for _, pv := range o.caseParts {
		if err := c.Set(pv[0], pv[1]); err != nil {
			errs = append(errs, fmt.Errorf("--%s %q: %w", pv[0], pv[1], err))
		}
	}
	if len(errs) == len(o.errs) {
		// The parts checked together (dirty and background at most the memory).
		cc, err := harness.ParseCase(c.String())
		if err != nil {
			return cfg, usageError{err}
		}
		c = cc
	}
	if !o.kernelSet {
		if _, err := c.KernelPreset(); err != nil {
			errs = append(errs, err)
		}
	}
	c.Apply(&cfg)
	o.set(&cfg)
	if o.trace != "" && !o.traceLines {
		cfg.TraceLines = defaultTraceLines
	}
	if o.trace != "" && cfg.TraceLines == 0 {
		errs = append(errs, fmt.Errorf("--trace-lines: 0 with --trace %s; want 1-%d", o.trace, engine.MaxTraceLines))
	}
	cfg.Case = harness.CaseOf(cfg).String()
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return cfg, usageError{errors.Join(errs...)}
	}
	return cfg, nil
}

func runCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	o, err := parseRunArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, runHelp())
		return exitOK
	}
	if err != nil {
		return report(stderr, err)
	}
	cfg, err := buildConfig(o)
	if err != nil {
		return report(stderr, err)
	}
	// Open the output files before a long run, so a bad path fails at once.
	var series, trace *os.File
	for _, out := range []struct {
		flag, path string
		f          **os.File
	}{{"series", o.series, &series}, {"trace", o.trace, &trace}} {
		if out.path == "" {
			continue
		}
		f, err := os.Create(out.path)
		if err != nil {
			return report(stderr, badInput("--%s: %w", out.flag, err))
		}
		defer f.Close()
		*out.f = f
	}

	if o.seeds > 1 {
		return runSeedsCmd(ctx, cfg, o, stdout, stderr)
	}
	res, err := engine.Run(ctx, cfg)
	if err != nil {
		writeRunError(stderr, "wblab run: "+cfg.Case, err, o.verbose)
		return exitFailed
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(res)
	} else {
		var sum strings.Builder
		if err = res.WriteSummary(&sum); err == nil {
			acc, aerr := validate.Accuracy()
			if aerr != nil {
				err = aerr
			} else {
				_, err = io.WriteString(stdout, accuracyNotes(sum.String(), cfg, res, acc))
			}
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "wblab run: writing the result: %v\n", err)
		return exitFailed
	}
	for _, out := range []struct {
		flag  string
		f     *os.File
		write func(io.Writer) error
	}{{"series", series, res.WriteSeriesCSV}, {"trace", trace, res.WriteTrace}} {
		if out.f == nil {
			continue
		}
		if err := out.write(out.f); err != nil {
			fmt.Fprintf(stderr, "wblab run: --%s %s: %v\n", out.flag, out.f.Name(), err)
			return exitFailed
		}
		if err := out.f.Close(); err != nil {
			fmt.Fprintf(stderr, "wblab run: --%s %s: %v\n", out.flag, out.f.Name(), err)
			return exitFailed
		}
	}
	return exitOK
}

// report prints an error and returns its exit status.
func report(stderr io.Writer, err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "wblab run: %v\n(see wblab help run)\n", err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "wblab run: %v\n", err)
	return exitFailed
}

const presetsHelp = `Usage: wblab presets [--json]

Lists the kernel presets, the kernel switches (--variants), the device presets and
their override keys (--device NAME,key=value), the filesystems and the time-series
columns (--series).
  --json   print the lists as JSON (default off)
`

// presetList is what "wblab presets" prints.
type presetList struct {
	Kernels     []namedDoc          `json:"kernels"`
	Switches    []namedDoc          `json:"switches"`
	Devices     []engine.DeviceSpec `json:"devices"`
	DeviceKeys  []string            `json:"device_keys"`
	Filesystems []string            `json:"filesystems"`
	FSModels    []namedDoc          `json:"filesystem_models"` // the same, with their docs
	Series      []namedDoc          `json:"series"`
}

type namedDoc struct {
	Name    string `json:"name"`
	Doc     string `json:"doc"`
	Default bool   `json:"default,omitempty"`
	Models  string `json:"models,omitempty"` // switches: the kernel function and version
	Source  string `json:"source,omitempty"` // switches: the commit or thread
	Unit    string `json:"unit,omitempty"`   // series: the column's unit
	Kernel  string `json:"kernel,omitempty"` // series: the kernel variable or tracepoint it mirrors
}

func presets() presetList {
	d := engine.DefaultConfig()
	var l presetList
	for _, p := range engine.KernelPresets() {
		l.Kernels = append(l.Kernels, namedDoc{Name: p.Name, Doc: p.Doc, Default: p.Name == d.Kernel})
	}
	for _, sw := range engine.Switches() {
		l.Switches = append(l.Switches, namedDoc{Name: sw.Name, Doc: sw.Doc, Models: sw.Models, Source: sw.Source})
	}
	l.Devices = engine.DevicePresets()
	l.DeviceKeys = engine.DeviceKeys()
	for _, m := range engine.FilesystemDocs() {
		l.Filesystems = append(l.Filesystems, m.Name)
		l.FSModels = append(l.FSModels, namedDoc{Name: m.Name, Doc: m.Doc})
	}
	for _, c := range engine.Columns {
		l.Series = append(l.Series, namedDoc{Name: c.Name, Doc: c.Doc, Unit: c.Unit, Kernel: c.Kernel})
	}
	return l
}

func presetsCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("presets", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, presetsHelp)
			return exitOK
		}
		fmt.Fprintf(stderr, "wblab presets: %v\n(see wblab help presets)\n", err)
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "wblab presets: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	l := presets()
	if *asJSON {
		return writeJSON("presets", stdout, stderr, l)
	}
	fmt.Fprintln(stdout, "Kernels (--kernel, or the release at the end of a case name):")
	for _, k := range l.Kernels {
		mark := ""
		if k.Default {
			mark = " (default)"
		}
		fmt.Fprintf(stdout, "  %-28s %s%s\n", k.Name, k.Doc, mark)
	}
	fmt.Fprintln(stdout, "\nKernel switches (--variants name=true|false,...):")
	for _, s := range l.Switches {
		fmt.Fprintf(stdout, "  %-28s %s\n", s.Name, s.Doc)
	}
	fmt.Fprintln(stdout, "\nDevices (--device NAME[,key=value...]):")
	for _, s := range l.Devices {
		mark := ""
		if s.Name == engine.DefaultDevice {
			mark = " (default)"
		}
		fmt.Fprintf(stdout, "  %-28s %s%s\n", s.Name, s.Doc, mark)
	}
	fmt.Fprintf(stdout, "  device keys: %s\n", wrap(strings.Join(l.DeviceKeys, ", "), 2+len("device keys: "), 88))
	fmt.Fprintln(stdout, "\nFilesystems (--fs, or the first field of a case name):")
	for _, f := range l.FSModels {
		fmt.Fprintf(stdout, "  %-28s %s\n", f.Name, f.Doc)
	}
	fmt.Fprintln(stdout, "\nTime series (--series FILE columns, the page's charts):")
	for _, c := range l.Series {
		fmt.Fprintf(stdout, "  %-28s %-9s %s\n", c.Name, c.Unit, c.Doc)
	}
	return exitOK
}

// keyFlagsHelp lists the flags of engine.ConfigKeys, one a line, each with its
// range and default.
func keyFlagsHelp(d engine.Config, groups ...string) string {
	var b strings.Builder
	for _, k := range engine.ConfigKeys {
		if k.Flag == "" || !slices.Contains(groups, k.Group) {
			continue
		}
		text := k.Help
		if k.Ranged() {
			text += ", " + strings.ReplaceAll(k.RangeText(&d), " ", "\x00") // the range on one line
		}
		if def := k.Text(&d); def != "" {
			text += " (default " + def + ")"
		}
		arg := k.Arg
		if arg == "" {
			arg = "N"
		}
		flagLine(&b, k.Flag+" "+arg, text)
	}
	return b.String()
}

// diskFlagsHelp lists the flags of the first disk's DiskKeys.
func diskFlagsHelp(d engine.Config) string {
	var b strings.Builder
	for _, k := range engine.DiskKeys {
		if !k.Flag {
			continue
		}
		name := k.Key + " N"
		if k.IsBool() {
			name = k.Key
		}
		flagLine(&b, name, k.Doc+" (default "+k.Text(d.Disks[0])+")")
	}
	return b.String()
}

// flagLine writes one flag and its text, wrapped to the help's column.
func flagLine(b *strings.Builder, name, text string) {
	text = wrap(text, 21, 88)
	if len(name) > 16 { // the text below the flag, in its column
		name += "\n" + strings.Repeat(" ", 20)
	}
	fmt.Fprintf(b, "\n  --%-16s %s", name, strings.ReplaceAll(text, "\x00", " "))
}

// diskKeysHelp lists the --disk keys, one a line, indented to the help's column.
func diskKeysHelp() string {
	var b strings.Builder
	for i, k := range engine.DiskKeys {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "                       %-16s %s", k.Key, k.Doc)
	}
	return b.String()
}
