// Package harness speaks the language of Wu Fengguang's writeback test harness,
// whose results the Wu 2011 thread reports, on top of package engine:
//
//   - Case names (case.go): DIR/FS-NNdd-BS-CPUSp-MEM-DIRTY:BG-KERNEL, as in
//     "thresh=100M/xfs-10dd-4k-8p-4096M-100M:10-X". ParseCase reads one,
//     Case.String writes it back, Case.Set changes one part, CaseOf names a
//     Config, and ConfigForCase turns a name into a validated engine.Config
//     (DefaultConfig with the case applied: the thread's disk, the default
//     kernel for "X", a preset for a release string).
//   - Comparisons (compare.go, control.go): Compare runs cases under two kernels
//     with seeds, as the thread's tables do; the tables T1-T6 themselves are
//     embedded (tables.go) and read as Matrices / LookupMatrix, and
//     CompareMatrix reruns one with the thread's figures beside the model's.
//     Control runs a kernel against itself with other seeds, the spread a
//     kernel pair's delta must exceed; NotFired lists the cases where a pair gave
//     identical runs although the thread's delta says the kernels differ there.
//   - Sweeps (sweep.go): write_bw over dirty thresholds, writers and
//     filesystems around the harness's cases (RunSweep).
//   - Benchmarks (bench.go): the representative cases "wblab bench" and
//     "go test -bench ./engine" time (BenchCases).
//
// The CLI (cmd/wblab), the lab page and the fidelity tests use it; it runs
// simulations only through engine.
package harness
