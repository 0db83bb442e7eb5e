package harness

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/engine/report"
	"sort"
	"strconv"
	"strings"

	"github.com/wblab/wblab/engine/kernel"
	"github.com/wblab/wblab/engine/stats"
)

// CompareRow is one case of a comparison: write_bw under both kernels. With
// several seeds the figures are means over the seeds and DeltaPct is the mean of
// the deltas paired by seed, with their spread and 95 % CI beside them.
type CompareRow struct {
	Case     string  `json:"case"`
	BaseMBps float64 `json:"base_MBps"`
	TestMBps float64 `json:"test_MBps"`
	DeltaPct float64 `json:"delta_pct"`
	SeedStats
	// The thread's figures for the case, when it comes from a matrix.
	ThreadBaseMBps float64 `json:"thread_base_MBps,omitempty"`
	ThreadTestMBps float64 `json:"thread_test_MBps,omitempty"`
	ThreadDeltaPct float64 `json:"thread_delta_pct,omitempty"`
}

// Comparison is the harness's compare table: per case write_bw of a base and a
// test kernel, and the TOTAL row.
type Comparison struct {
	Base          string       `json:"base"`
	Test          string       `json:"test"`
	Rows          []CompareRow `json:"rows"`
	TotalBaseMBps float64      `json:"total_base_MBps"`
	TotalTestMBps float64      `json:"total_test_MBps"`
	TotalDeltaPct float64      `json:"total_delta_pct"`
	// Seeds is the number of seeds per case and kernel; the Total* figures are
	// means over them, TotalDelta the paired per-seed TOTAL deltas.
	Seeds      int           `json:"seeds"`
	TotalDelta stats.Summary `json:"total_delta"`
	// TotalInNoise: the TOTAL delta's 95 % CI contains 0.
	TotalInNoise bool `json:"total_in_noise"`
	// ThreadTotalDeltaPct is the thread's delta over the same cases (matrices only).
	ThreadTotalDeltaPct float64 `json:"thread_total_delta_pct,omitempty"`
}

// SeedStats are a row's figures over seeds.
type SeedStats struct {
	Base  stats.Summary `json:"base_stats"`  // base write_bw, MB/s
	Test  stats.Summary `json:"test_stats"`  // test write_bw, MB/s
	Delta stats.Summary `json:"delta_stats"` // delta_pct paired by seed
	// InNoise: the delta's 95 % CI contains 0 (printed "~+0.4%"; never with one seed).
	InNoise bool `json:"in_noise"`
	// NeverRan lists the switches in which the kernels differ whose paths ran
	// zero times in every run of the case: "this change never ran in this case".
	NeverRan []string `json:"never_ran,omitempty"`
}

// CompareOptions are a comparison's run settings.
type CompareOptions struct {
	Runtime engine.Duration // 0: the case's default (600 s)
	Seed    uint64          // first seed; 0: 1
	Seeds   int             // seeds per case and kernel, [1, MaxSeeds]; 0: 1
	// TestSeedOffset shifts the test kernel's seeds (a control: the same kernel
	// twice with other seeds, see Control); 0 pairs equal seeds.
	TestSeedOffset uint64
	// Device is the disk of every run, as --device takes it (a preset name with
	// optional key=value overrides, engine.ParseDevice); "": the case's default.
	Device string
}

// Compare runs every case under both kernels with opt.Seeds seeds each (all runs
// through RunAll's bounded pool) and returns the harness's table. Kernels are
// preset names (or the thread's short names, e.g. "more_io_wait-5").
func Compare(ctx context.Context, base, test string, cases []string, opt CompareOptions) (*Comparison, error) {
	bp, err := kernel.LookupPreset(base)
	if err != nil {
		return nil, fmt.Errorf("--base: %w", err)
	}
	tp, err := kernel.LookupPreset(test)
	if err != nil {
		return nil, fmt.Errorf("--test: %w", err)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no cases to compare")
	}
	n, err := engine.CheckSeeds(opt.Seeds)
	if err != nil {
		return nil, err
	}
	// runs in the order case, kernel, seed
	var cfgs []engine.Config
	for _, name := range cases {
		for side, k := range []string{bp.Name, tp.Name} {
			c, err := CompareConfig(name, k, opt)
			if err != nil {
				return nil, err
			}
			if side == 1 {
				c.Seed += opt.TestSeedOffset
			}
			cfgs = append(cfgs, engine.SeedConfigs(c, n)...)
		}
	}
	res, err := engine.RunAll(ctx, cfgs)
	if err != nil {
		var re *engine.RunError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("%s under %s, seed %d: %w", cases[re.Index/(2*n)], re.Config.Kernel, re.Config.Seed, re.Err)
		}
		return nil, err
	}
	cmp := &Comparison{Base: bp.Name, Test: tp.Name, Seeds: n}
	totB, totT := make([]float64, n), make([]float64, n)
	for i, name := range cases {
		runsB, runsT := res[2*i*n:(2*i+1)*n], res[(2*i+1)*n:(2*i+2)*n]
		b, t := make([]float64, n), make([]float64, n)
		actB, actT := map[string]int64{}, map[string]int64{}
		for s := range n {
			b[s], t[s] = runsB[s].WriteBWMBps, runsT[s].WriteBWMBps
			totB[s] += b[s]
			totT[s] += t[s]
			for k, v := range runsB[s].SwitchActivity {
				actB[k] += v
			}
			for k, v := range runsT[s].SwitchActivity {
				actT[k] += v
			}
		}
		row := CompareRow{Case: name, SeedStats: SeedStats{Base: stats.Of(b), Test: stats.Of(t), Delta: stats.PairedDeltaPct(b, t),
			NeverRan: kernel.NeverRan(bp.Variants, tp.Variants, actB, actT)}}
		row.BaseMBps, row.TestMBps, row.DeltaPct, row.InNoise = row.Base.Mean, row.Test.Mean, row.Delta.Mean, row.Delta.InNoise()
		cmp.Rows = append(cmp.Rows, row)
	}
	cmp.TotalBaseMBps, cmp.TotalTestMBps = stats.Of(totB).Mean, stats.Of(totT).Mean
	cmp.TotalDelta = stats.PairedDeltaPct(totB, totT)
	cmp.TotalDeltaPct, cmp.TotalInNoise = cmp.TotalDelta.Mean, cmp.TotalDelta.InNoise()
	return cmp, nil
}

func deltaPct(base, test float64) float64 { return stats.DeltaPct(base, test) }

// CompareConfig is the harness's run of a case under a kernel.
func CompareConfig(name, kernelName string, opt CompareOptions) (engine.Config, error) {
	c, err := ParseCase(name)
	if err != nil {
		return engine.Config{}, err
	}
	cfg := engine.DefaultConfig()
	c.Apply(&cfg)
	cfg.Kernel = kernelName
	if opt.Runtime > 0 {
		cfg.Runtime = opt.Runtime
	}
	if opt.Seed > 0 {
		cfg.Seed = opt.Seed
	}
	if opt.Device != "" {
		spec, blk, err := engine.ParseDevice(opt.Device)
		if err != nil {
			return engine.Config{}, fmt.Errorf("device: %w", err)
		}
		cfg.Disks[0].Device, cfg.Disks[0].Block = spec, blk
	}
	if opt.Seeds > 1 && cfg.Seed > ^uint64(0)-uint64(opt.Seeds) {
		return engine.Config{}, fmt.Errorf("seed: %d too large for %d seeds (at most %d)", cfg.Seed, opt.Seeds, ^uint64(0)-uint64(opt.Seeds))
	}
	if err := cfg.Validate(); err != nil {
		return engine.Config{}, fmt.Errorf("%s: %w", name, err)
	}
	return cfg, nil
}

// Matrix is one of the thread's comparison tables: its kernels and cases with the
// thread's figures.
type Matrix struct {
	Name string // "wu-2011-T1"
	Base string // kernel preset
	Test string
	Rows []CompareRow // the thread's figures (Thread* fields)
}

// ThreadTotalDeltaPct is the thread's TOTAL delta over the matrix's cases.
func (m *Matrix) ThreadTotalDeltaPct() float64 {
	var b, t float64
	for _, r := range m.Rows {
		b += r.ThreadBaseMBps
		t += r.ThreadTestMBps
	}
	return deltaPct(b, t)
}

// Cases lists the matrix's case names.
func (m *Matrix) Cases() []string {
	out := make([]string, len(m.Rows))
	for i, r := range m.Rows {
		out[i] = r.Case
	}
	return out
}

var matrices = func() map[string]*Matrix {
	recs, err := csv.NewReader(strings.NewReader(wu2011TablesCSV)).ReadAll()
	if err != nil {
		panic(err)
	}
	out := map[string]*Matrix{}
	for _, r := range recs[1:] {
		name := "wu-2011-" + r[0]
		m := out[name]
		if m == nil {
			base, err1 := kernel.LookupPreset(r[1])
			test, err2 := kernel.LookupPreset(r[2])
			if err1 != nil || err2 != nil {
				panic(fmt.Sprint(err1, err2))
			}
			m = &Matrix{Name: name, Base: base.Name, Test: test.Name}
			out[name] = m
		}
		b, _ := strconv.ParseFloat(r[4], 64)
		d, _ := strconv.ParseFloat(r[5], 64)
		t, _ := strconv.ParseFloat(r[6], 64)
		m.Rows = append(m.Rows, CompareRow{Case: r[3], ThreadBaseMBps: b, ThreadDeltaPct: d, ThreadTestMBps: t})
	}
	return out
}()

// Matrices lists the comparison matrices by name.
func Matrices() []string {
	out := make([]string, 0, len(matrices))
	for n := range matrices {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LookupMatrix finds a matrix ("wu-2011-T1" .. "wu-2011-T6").
func LookupMatrix(name string) (*Matrix, error) {
	if m, ok := matrices[name]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%q is not a matrix (matrices: %s)", name, strings.Join(Matrices(), ", "))
}

// CompareMatrix runs a matrix's cases with its kernels (or others, when base/test are
// set) and adds the thread's figures to the rows.
func CompareMatrix(ctx context.Context, m *Matrix, base, test string, opt CompareOptions) (*Comparison, error) {
	if base == "" {
		base = m.Base
	}
	if test == "" {
		test = m.Test
	}
	cmp, err := Compare(ctx, base, test, m.Cases(), opt)
	if err != nil {
		return nil, err
	}
	for i := range cmp.Rows {
		r := m.Rows[i]
		cmp.Rows[i].ThreadBaseMBps, cmp.Rows[i].ThreadTestMBps, cmp.Rows[i].ThreadDeltaPct =
			r.ThreadBaseMBps, r.ThreadTestMBps, r.ThreadDeltaPct
	}
	cmp.ThreadTotalDeltaPct = m.ThreadTotalDeltaPct()
	return cmp, nil
}

// harnessRelease is how the harness names a kernel in its table header.
func harnessRelease(preset string) string {
	if strings.HasPrefix(preset, "3.1.0-rc9-") {
		return preset + "-next-20111014+"
	}
	return preset + "+"
}

// TableHeader is the first two lines of the harness's table: both kernels as the
// harness names them, and the rule under them.
func TableHeader(base, test string) string {
	return fmt.Sprintf("%s  %s  \n------------------------  ------------------------  \n", harnessRelease(base), harnessRelease(test))
}

// TableRow is one line of the harness's table: base write_bw, delta, test write_bw
// (formatted, or a placeholder such as "..." or "error") and the case. The CLI's
// compare, the experiments and the page's matrix all print through it
// (report.TableRow, which the page reads without linking the engine).
func TableRow(base, delta, test, name string) string { return report.TableRow(base, delta, test, name) }

// Text renders the comparison as Wu's compare script prints it: a header with both
// kernels, one row per case (base write_bw, delta, test write_bw, case) and the
// TOTAL write_bw row. With several seeds the figures are means, each delta has its
// 95 % CI beside it and a delta inside the noise is marked "~+0.4%"; a case whose
// differing switches never ran says so under its row.
func (c *Comparison) Text() string {
	var b strings.Builder
	b.WriteString(TableHeader(c.Base, c.Test))
	row := func(base, delta float64, inNoise bool, ci, test float64, name string) {
		d := stats.FormatDelta(delta, inNoise)
		if c.Seeds > 1 {
			d = fmt.Sprintf("%11s ±%4.1f", d, ci)
		}
		b.WriteString(TableRow(fmt.Sprintf("%.2f", base), d, fmt.Sprintf("%.2f", test), name))
	}
	for _, r := range c.Rows {
		row(r.BaseMBps, r.DeltaPct, r.InNoise, r.Delta.CI95, r.TestMBps, r.Case)
		if len(r.NeverRan) > 0 {
			fmt.Fprintf(&b, "%24s  (%s: this change never ran in this case)\n", "", strings.Join(r.NeverRan, ", "))
		}
	}
	row(c.TotalBaseMBps, c.TotalDeltaPct, c.TotalInNoise, c.TotalDelta.CI95, c.TotalTestMBps, "TOTAL write_bw")
	if c.Seeds > 1 {
		fmt.Fprintf(&b, "(%d seeds per case and kernel: means; ± is the 95%% CI of the delta paired by seed; ~ marks a delta inside it)\n", c.Seeds)
	}
	return b.String()
}
