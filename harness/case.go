package harness

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine"
)

// Case is a harness case name in the threads' (pre-release) form, parsed
// (kernel-notes §5.2, DESIGN §6):
//
//	thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X
//	[DIR/]FS-<N>dd-BS-<N>p-MEMORY-DIRTY:BACKGROUND-KERNEL
//
// DIR is optional and, when present, must be thresh=SIZE or thresh=SIZE:BG agreeing
// with the body's DIRTY (and BACKGROUND). DIRTY is vm.dirty_bytes when it is a size
// (100M) or vm.dirty_ratio when it is a bare number (20); BACKGROUND likewise is
// dirty_background_bytes (50M) or dirty_background_ratio (10). KERNEL is X (the kernel
// is selected elsewhere, as in the harness's compare tables) or a release string such
// as 3.1.0-rc9-ioless-full+. Sizes take K, M or G suffixes (binary, any case).
//
// ParseCase(s).String() == s for every case name ParseCase accepts whose numbers are
// written without leading zeros (the parsed Size and Limit keep their text).
type Case struct {
	Dir        string // the directory part as written ("thresh=100M"), "" if absent
	FS         string // filesystem name, a lowercase word
	DD         int    // number of dd writers
	BS         Size   // dd block size
	CPUs       int    // number of CPUs
	Memory     Size   // memory size (a whole number of MiB)
	Dirty      Limit  // vm.dirty_bytes or vm.dirty_ratio
	Background Limit  // vm.dirty_background_bytes or vm.dirty_background_ratio
	Kernel     string // "X" or a kernel release string
}

// Size is a byte count with the text it was written as ("4k", "1G"). String uses
// Text when it denotes Bytes, otherwise a canonical form.
type Size struct {
	Bytes int64
	Text  string
}

// Limit is a dirty threshold in either form: exactly one of Bytes (a _bytes sysctl)
// and Ratio (a _ratio sysctl, percent) is non-zero. Text is the text as written.
type Limit struct {
	Bytes int64
	Ratio int
	Text  string
}

// The parts of a case name, as named in ParseCase's errors.
const (
	partDir        = "case.dir"
	partFS         = "case.fs"
	partDD         = "case.dd"
	partBS         = "case.bs"
	partCPUs       = "case.cpus"
	partMemory     = "case.memory"
	partDirty      = "case.dirty"
	partBackground = "case.background"
	partKernel     = "case.kernel"
)

const (
	caseForm      = "[thresh=SIZE/]FS-<N>dd-BS-<N>p-MEMORY-DIRTY:BACKGROUND-KERNEL, e.g. thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X"
	maxFSLen      = 32
	maxKernelLen  = 64
	minDirtyBytes = 2 * 4096 // Validate: dirty_bytes >= 2 pages
	minBgBytes    = 4096     // Validate: dirty_background_bytes >= 1 page
)

func caseErr(part, format string, args ...any) error {
	return fmt.Errorf(part+": "+format, args...)
}

// ParseCase parses a case name. Every error names the part (case.fs, case.dd, …),
// the value found and the allowed form or range.
func ParseCase(s string) (Case, error) {
	var c Case
	s = strings.TrimSpace(s)
	if s == "" {
		return c, caseErr(partFS, "empty case name; want %s", caseForm)
	}
	body := s
	if dir, rest, ok := strings.Cut(s, "/"); ok {
		c.Dir, body = dir, rest
	}
	if body == "" {
		return Case{}, caseErr(partFS, "missing: nothing after the directory %q; want %s", c.Dir, caseForm)
	}
	parts := strings.SplitN(body, "-", 7)
	order := []string{partFS, partDD, partBS, partCPUs, partMemory, partDirty, partKernel}
	if len(parts) < len(order) {
		missing := order[len(parts)]
		return Case{}, caseErr(missing, "missing in %q; want %s", body, caseForm)
	}
	var err error
	if c.FS, err = parseFS(parts[0]); err != nil {
		return Case{}, err
	}
	if c.DD, err = parseCount(partDD, parts[1], "dd", engine.MaxDD); err != nil {
		return Case{}, err
	}
	if c.BS, err = parseBS(parts[2]); err != nil {
		return Case{}, err
	}
	if c.CPUs, err = parseCount(partCPUs, parts[3], "p", engine.MaxCPUs); err != nil {
		return Case{}, err
	}
	if c.Memory, err = parseMemory(parts[4]); err != nil {
		return Case{}, err
	}
	dirty, bg, ok := strings.Cut(parts[5], ":")
	if !ok {
		return Case{}, caseErr(partBackground, "missing in %q; want DIRTY:BACKGROUND like 100M:10 (dirty_bytes:dirty_background_ratio) or 20:10 (ratios)", parts[5])
	}
	if c.Dirty, err = parseDirty(dirty, c.Memory.Bytes); err != nil {
		return Case{}, err
	}
	if c.Background, err = parseBackground(bg, c.Memory.Bytes); err != nil {
		return Case{}, err
	}
	if c.Kernel, err = parseKernel(parts[6]); err != nil {
		return Case{}, err
	}
	if c.Dir != "" || strings.HasPrefix(s, "/") {
		if err := checkDir(c.Dir, c.Dirty, c.Background, c.Memory.Bytes); err != nil {
			return Case{}, err
		}
	}
	return c, nil
}

func isLower(b byte) bool { return b >= 'a' && b <= 'z' }
func isDigit(b byte) bool { return b >= '0' && b <= '9' }
func isAlpha(b byte) bool { return isLower(b) || b >= 'A' && b <= 'Z' }

func parseFS(v string) (string, error) {
	ok := v != "" && len(v) <= maxFSLen && isLower(v[0])
	for i := 0; ok && i < len(v); i++ {
		ok = isLower(v[i]) || isDigit(v[i])
	}
	if !ok {
		return "", caseErr(partFS, "%q is not a filesystem name; want a lowercase word of at most %d letters and digits like ext4, xfs or generic", v, maxFSLen)
	}
	return v, nil
}

// parseDigits reads a decimal number without sign or leading zeros ("0" excepted).
func parseDigits(v string) (int64, bool) {
	if v == "" || len(v) > 18 || (len(v) > 1 && v[0] == '0') {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return 0, false
		}
		n = n*10 + int64(v[i]-'0')
	}
	return n, true
}

// parseCount reads "<N>dd" or "<N>p" with N in [1, hi].
func parseCount(part, v, suffix string, hi int) (int, error) {
	num, ok := strings.CutSuffix(v, suffix)
	n, isNum := parseDigits(num)
	if !ok || !isNum {
		return 0, caseErr(part, "%q is not <N>%s; want <N>%s with N in [1, %d] (no sign or leading zeros)", v, suffix, suffix, hi)
	}
	if n < 1 || n > int64(hi) {
		return 0, caseErr(part, "%q: N=%d out of range; want <N>%s with N in [1, %d]", v, n, suffix, hi)
	}
	return int(n), nil
}

// parseSizeText reads digits with an optional K/M/G suffix (binary, any case). It
// reports whether a suffix was present; ok is false on syntax error or overflow.
func parseSizeText(v string) (n int64, suffixed, ok bool) {
	mult := int64(1)
	if l := len(v); l > 0 {
		switch v[l-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		}
		if mult > 1 {
			v = v[:l-1]
		}
	}
	n, ok = parseDigits(v)
	if !ok || n > (1<<62)/mult {
		return 0, false, false
	}
	return n * mult, mult > 1, true
}

// tooLarge reports whether v is digits with an optional suffix that overflow.
func tooLarge(v string) bool {
	d := strings.TrimRight(v, "kKmMgG")
	if len(v)-len(d) > 1 || d == "" || (len(d) > 1 && d[0] == '0') {
		return false
	}
	for i := 0; i < len(d); i++ {
		if !isDigit(d[i]) {
			return false
		}
	}
	_, _, ok := parseSizeText(v)
	return !ok
}

func parseBS(v string) (Size, error) {
	n, _, ok := parseSizeText(v)
	if tooLarge(v) {
		return Size{}, caseErr(partBS, "%q is too large; want a multiple of 512 in [512, %d] (512 to 64M)", v, engine.MaxBS)
	}
	if !ok {
		return Size{}, caseErr(partBS, "%q is not a block size; want bytes with an optional k/M suffix like 512, 4k, 64k or 1M", v)
	}
	if n < 512 || n > engine.MaxBS || n%512 != 0 {
		return Size{}, caseErr(partBS, "%q = %d bytes; want a multiple of 512 in [512, %d] (512 to 64M)", v, n, engine.MaxBS)
	}
	return Size{Bytes: n, Text: v}, nil
}

func parseMemory(v string) (Size, error) {
	n, suffixed, ok := parseSizeText(v)
	if tooLarge(v) {
		return Size{}, caseErr(partMemory, "%q is too large; want a whole number of MiB in [%dM, %dM]", v, engine.MinMemoryMB, engine.MaxMemoryMB)
	}
	if !ok || !suffixed {
		return Size{}, caseErr(partMemory, "%q is not a memory size; want a size with an M or G suffix like 4096M or 4G", v)
	}
	if n%(1<<20) != 0 || n < engine.MinMemoryMB<<20 || n > engine.MaxMemoryMB<<20 {
		return Size{}, caseErr(partMemory, "%q = %d bytes; want a whole number of MiB in [%dM, %dM]", v, n, engine.MinMemoryMB, engine.MaxMemoryMB)
	}
	return Size{Bytes: n, Text: v}, nil
}

// parseLimit reads a size (bytes) or a bare number (ratio, percent).
func parseLimit(part, v, what string, minBytes, memBytes int64) (Limit, error) {
	n, suffixed, ok := parseSizeText(v)
	if tooLarge(v) {
		return Limit{}, caseErr(part, "%q is too large; want a size like 100M (bytes, in [%d, memory]) or a bare percentage in [1, 100]", v, minBytes)
	}
	if !ok {
		return Limit{}, caseErr(part, "%q is not a %s; want a size like 100M (bytes, in [%d, memory]) or a bare percentage in [1, 100]", v, what, minBytes)
	}
	if !suffixed {
		if n < 1 || n > 100 {
			return Limit{}, caseErr(part, "ratio %q out of range; want a percentage in [1, 100] (or a size like 100M for bytes)", v)
		}
		return Limit{Ratio: int(n), Text: v}, nil
	}
	if n < minBytes || n > memBytes {
		return Limit{}, caseErr(part, "%q = %d bytes out of range; want bytes in [%d, %d] (at least %s, at most the memory size)", v, n, minBytes, memBytes, fmtSize(minBytes))
	}
	return Limit{Bytes: n, Text: v}, nil
}

func parseDirty(v string, memBytes int64) (Limit, error) {
	return parseLimit(partDirty, v, "dirty threshold", minDirtyBytes, memBytes)
}

func parseBackground(v string, memBytes int64) (Limit, error) {
	return parseLimit(partBackground, v, "background threshold", minBgBytes, memBytes)
}

func parseKernel(v string) (string, error) {
	ok := v != "" && len(v) <= maxKernelLen && (isAlpha(v[0]) || isDigit(v[0]))
	for i := 0; ok && i < len(v); i++ {
		b := v[i]
		ok = isDigit(b) || isAlpha(b) || strings.IndexByte("._+~-", b) >= 0
	}
	if !ok {
		return "", caseErr(partKernel, "%q is not a kernel release; want X or a release of at most %d letters, digits and ._+~- starting with a letter or digit, like 3.1.0-rc9-ioless-full+", v, maxKernelLen)
	}
	return v, nil
}

// checkDir checks the directory part: thresh=SIZE or thresh=SIZE:BG, agreeing with the
// body's thresholds (1G == 1024M).
func checkDir(dir string, dirty, bg Limit, memBytes int64) error {
	for _, p := range []string{"JBOD", "RAID", "UKEY"} {
		if strings.HasPrefix(strings.ToUpper(dir), p) {
			return caseErr(partDir, "%q is not supported: multi-disk (JBOD-, RAID0-) and USB-key (UKEY-) directories are not modelled; want thresh=SIZE or thresh=SIZE:BACKGROUND, or no directory", dir)
		}
	}
	val, ok := strings.CutPrefix(dir, "thresh=")
	if !ok {
		return caseErr(partDir, "%q is not a thresh= directory; want thresh=SIZE or thresh=SIZE:BACKGROUND like thresh=100M, or no directory", dir)
	}
	dv, bv, hasBg := strings.Cut(val, ":")
	n, suffixed, ok := parseSizeText(dv)
	if !ok || !suffixed {
		return caseErr(partDir, "%q: threshold %q is not a size; want thresh=SIZE like thresh=100M or thresh=1G", dir, dv)
	}
	if dirty.Bytes == 0 || n != dirty.Bytes {
		return caseErr(partDir, "%q disagrees with the dirty threshold %q (%d bytes != %s); want the same threshold in both", dir, dirty.Text, n, limitDesc(dirty))
	}
	if hasBg {
		b, err := parseBackground(bv, memBytes)
		if err != nil {
			return caseErr(partDir, "%q: background %q is not a size or a ratio; want thresh=SIZE:SIZE or thresh=SIZE:RATIO like thresh=1000M:999M", dir, bv)
		}
		if b.Bytes != bg.Bytes || b.Ratio != bg.Ratio {
			return caseErr(partDir, "%q disagrees with the background threshold %q (%s != %s); want the same in both", dir, bg.Text, limitDesc(b), limitDesc(bg))
		}
	}
	return nil
}

func limitDesc(l Limit) string {
	if l.Ratio != 0 {
		return fmt.Sprintf("ratio %d%%", l.Ratio)
	}
	return fmt.Sprintf("%d bytes", l.Bytes)
}

// fmtSize formats bytes with the largest of G, M, k that divides them exactly, else bare.
func fmtSize(n int64) string {
	switch {
	case n != 0 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "G"
	case n != 0 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n != 0 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// fmtBS formats a block size as dd does in the harness: 4k, 64k, 1M.
func fmtBS(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + "M"
	}
	if n%(1<<10) == 0 && n != 0 {
		return strconv.FormatInt(n>>10, 10) + "k"
	}
	return strconv.FormatInt(n, 10)
}

// fmtMB formats a memory size or threshold in M units like the harness (4096M, 1024M),
// falling back to k (rounded up to whole KiB, as the kernel rounds up to pages anyway).
func fmtMB(n int64) string {
	if n%(1<<20) == 0 {
		return strconv.FormatInt(n>>20, 10) + "M"
	}
	return strconv.FormatInt((n+1023)>>10, 10) + "k"
}

// fmtDir formats a threshold for the directory part: G when whole GiB (thresh=1G).
func fmtDir(n int64) string {
	if n != 0 && n%(1<<30) == 0 {
		return strconv.FormatInt(n>>30, 10) + "G"
	}
	return fmtMB(n)
}

// String returns Text when it denotes Bytes, else a canonical form (bare bytes for
// block sizes under 1k).
func (s Size) String() string {
	if n, _, ok := parseSizeText(s.Text); ok && n == s.Bytes {
		return s.Text
	}
	return fmtSize(s.Bytes)
}

// String returns Text when it denotes the limit, else the ratio as a bare number or the
// bytes in M units (100M, 1024M).
func (l Limit) String() string {
	if n, suffixed, ok := parseSizeText(l.Text); ok {
		if l.Ratio != 0 && !suffixed && n == int64(l.Ratio) {
			return l.Text
		}
		if l.Ratio == 0 && suffixed && n == l.Bytes {
			return l.Text
		}
	}
	if l.Ratio != 0 {
		return strconv.Itoa(l.Ratio)
	}
	return fmtMB(l.Bytes)
}

// String formats the case name. A Case from ParseCase gives back the parsed text; one
// built from numbers (empty Text fields) is formatted canonically: bs as 4k/64k/1M,
// memory and thresholds in M (4096M, 100M, 1024M), an empty Kernel as X.
func (c Case) String() string {
	var b strings.Builder
	if c.Dir != "" {
		b.WriteString(c.Dir)
		b.WriteByte('/')
	}
	bs := c.BS.Text
	if n, _, ok := parseSizeText(bs); !ok || n != c.BS.Bytes {
		bs = fmtBS(c.BS.Bytes)
	}
	mem := c.Memory.Text
	if n, suffixed, ok := parseSizeText(mem); !ok || !suffixed || n != c.Memory.Bytes {
		mem = fmtMB(c.Memory.Bytes)
	}
	kern := c.Kernel
	if kern == "" {
		kern = "X"
	}
	fmt.Fprintf(&b, "%s-%ddd-%s-%dp-%s-%s:%s-%s", c.FS, c.DD, bs, c.CPUs, mem, c.Dirty, c.Background, kern)
	return b.String()
}

// KernelPreset returns the kernel preset named by the case's release: "" for X, else
// the preset whose name is the release (a trailing '+', the harness's mark for a
// locally built kernel, is optional).
func (c Case) KernelPreset() (string, error) {
	if c.Kernel == "" || c.Kernel == "X" {
		return "", nil
	}
	if name, ok := kernelFromRelease(c.Kernel); ok {
		return name, nil
	}
	return "", caseErr(partKernel, "release %q names no kernel preset; use X and select the kernel separately, or one of the presets: %s", c.Kernel, strings.Join(kernelPresetNames(), ", "))
}

// kernelFromRelease maps a release string (uname -r) to a kernel preset name.
func kernelFromRelease(rel string) (string, bool) {
	for _, cand := range []string{rel, strings.TrimSuffix(rel, "+")} {
		if cand == "" {
			continue
		}
		if p, err := engine.LookupKernel(cand); err == nil {
			return p.Name, true
		}
	}
	return "", false
}

// Apply sets the config fields the case names: filesystem, dd count and block size,
// CPUs, memory, the dirty and background thresholds (setting one form zeroes the other,
// as the kernel's sysctl handlers do), Case, and Kernel when the release names a preset
// (X leaves cfg.Kernel alone). Apply does not validate; see ConfigForCase.
func (c Case) Apply(cfg *engine.Config) {
	*cfg = cfg.Clone() // its first disk changes: not the disk list of a Config it was copied from
	cfg.Disks[0].Filesystem = c.FS
	cfg.Disks[0].Workload.DD = c.DD
	cfg.Disks[0].Workload.BS = c.BS.Bytes
	cfg.CPUs = c.CPUs
	cfg.MemoryMB = c.Memory.Bytes >> 20
	cfg.DirtyBytes, cfg.DirtyRatio = c.Dirty.Bytes, 0
	if c.Dirty.Bytes == 0 {
		cfg.DirtyRatio = c.Dirty.Ratio
	}
	cfg.DirtyBackgroundBytes, cfg.DirtyBackgroundRatio = c.Background.Bytes, 0
	if c.Background.Bytes == 0 {
		cfg.DirtyBackgroundRatio = c.Background.Ratio
	}
	if name, err := c.KernelPreset(); err == nil && name != "" {
		cfg.Kernel = name
	}
	cfg.Case = c.String()
}

// CaseOf returns the case name of a config: cfg.Case when it parses and describes cfg,
// else a canonical name built from the fields (thresh=<dirty>/ directory when the
// threshold is in bytes, kernel X). Fields a case name cannot carry (device, runtime,
// count, seed, …) are not represented; a dirty_bytes value that is not a whole number
// of KiB is rounded up to one.
func CaseOf(cfg engine.Config) Case {
	if c, err := ParseCase(cfg.Case); err == nil {
		probe := cfg
		c.Apply(&probe)
		if sameCaseFields(probe, cfg) {
			return c
		}
	}
	c := Case{
		FS:     cfg.Disks[0].Filesystem,
		DD:     cfg.Disks[0].Workload.DD,
		BS:     Size{Bytes: cfg.Disks[0].Workload.BS, Text: fmtBS(cfg.Disks[0].Workload.BS)},
		CPUs:   cfg.CPUs,
		Memory: Size{Bytes: cfg.MemoryMB << 20, Text: fmtMB(cfg.MemoryMB << 20)},
		Kernel: "X",
	}
	if cfg.DirtyBytes != 0 {
		b := (cfg.DirtyBytes + 1023) &^ 1023
		c.Dirty = Limit{Bytes: b, Text: fmtMB(b)}
		c.Dir = "thresh=" + fmtDir(b)
	} else {
		c.Dirty = Limit{Ratio: cfg.DirtyRatio, Text: strconv.Itoa(cfg.DirtyRatio)}
	}
	if cfg.DirtyBackgroundBytes != 0 {
		b := (cfg.DirtyBackgroundBytes + 1023) &^ 1023
		c.Background = Limit{Bytes: b, Text: fmtMB(b)}
		if c.Dir != "" {
			c.Dir += ":" + fmtMB(b)
		}
	} else {
		c.Background = Limit{Ratio: cfg.DirtyBackgroundRatio, Text: strconv.Itoa(cfg.DirtyBackgroundRatio)}
	}
	return c
}

// sameCaseFields compares the fields Apply sets (other than Case).
func sameCaseFields(a, b engine.Config) bool {
	return a.Disks[0].Filesystem == b.Disks[0].Filesystem && a.Kernel == b.Kernel &&
		a.Disks[0].Workload.DD == b.Disks[0].Workload.DD && a.Disks[0].Workload.BS == b.Disks[0].Workload.BS &&
		a.CPUs == b.CPUs && a.MemoryMB == b.MemoryMB &&
		a.DirtyBytes == b.DirtyBytes && a.DirtyRatio == b.DirtyRatio &&
		a.DirtyBackgroundBytes == b.DirtyBackgroundBytes && a.DirtyBackgroundRatio == b.DirtyBackgroundRatio
}

// ConfigForCase returns DefaultConfig with the case applied, validated. A release
// naming no kernel preset is an error (use X to keep the default kernel).
func ConfigForCase(s string) (engine.Config, error) {
	c, err := ParseCase(s)
	if err != nil {
		return engine.Config{}, err
	}
	if _, err := c.KernelPreset(); err != nil {
		return engine.Config{}, err
	}
	cfg := engine.DefaultConfig()
	c.Apply(&cfg)
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, err
	}
	return cfg, nil
}

// kernelPresetNames lists the kernel preset names for error messages.
func kernelPresetNames() []string {
	var names []string
	for _, p := range engine.KernelPresets() {
		names = append(names, p.Name)
	}
	return names
}

// CaseParts are the names Case.Set accepts, in case-name order.
var CaseParts = []string{"fs", "dd", "bs", "cpus", "memory", "dirty", "background", "kernel"}

// Set changes one part of the case, given in case-name syntax ("ext4", "10" or "10dd",
// "64k", "8" or "8p", "4096M", "100M" or "20", "10" or "50M", "X"); part is one of
// CaseParts. Errors name the part like ParseCase's. A thresh= directory follows the
// thresholds (and is dropped when the dirty threshold becomes a ratio). Set checks the
// value alone; ParseCase(c.String()) checks the parts together (dirty ≤ memory).
func (c *Case) Set(part, value string) error {
	n := *c // a bad value leaves c as it was
	var err error
	switch part {
	case "fs":
		n.FS, err = parseFS(value)
	case "dd":
		n.DD, err = parseCount(partDD, strings.TrimSuffix(value, "dd")+"dd", "dd", engine.MaxDD)
	case "bs":
		n.BS, err = parseBS(value)
	case "cpus":
		n.CPUs, err = parseCount(partCPUs, strings.TrimSuffix(value, "p")+"p", "p", engine.MaxCPUs)
	case "memory":
		n.Memory, err = parseMemory(value)
	case "dirty":
		n.Dirty, err = parseDirty(value, engine.MaxMemoryMB<<20)
		n.syncDir()
	case "background":
		n.Background, err = parseBackground(value, engine.MaxMemoryMB<<20)
		n.syncDir()
	case "kernel":
		n.Kernel, err = parseKernel(value)
	default:
		return fmt.Errorf("case: %q is not a case part (parts: %s)", part, strings.Join(CaseParts, ", "))
	}
	if err != nil {
		return err
	}
	*c = n
	return nil
}

// syncDir rewrites a thresh= directory to agree with the thresholds.
func (c *Case) syncDir() {
	val, ok := strings.CutPrefix(c.Dir, "thresh=")
	if !ok {
		return
	}
	if c.Dirty.Bytes == 0 {
		c.Dir = ""
		return
	}
	dv, bv, hasBg := strings.Cut(val, ":")
	if n, suffixed, ok := parseSizeText(dv); !ok || !suffixed || n != c.Dirty.Bytes {
		dv = c.Dirty.String()
	}
	c.Dir = "thresh=" + dv
	if hasBg {
		if b, err := parseBackground(bv, engine.MaxMemoryMB<<20); err != nil || b.Bytes != c.Background.Bytes || b.Ratio != c.Background.Ratio {
			bv = c.Background.String()
		}
		c.Dir += ":" + bv
	}
}
