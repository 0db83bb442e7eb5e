// Package engine is wblab's public API: a deterministic simulation of Linux
// dirty-page writeback (the per-bdi flusher, write_cache_pages, dirty limits and
// balance_dirty_pages throttling) on a modelled block device and filesystem.
//
// # Contract
//
// A Config describes one machine and workload: kernel preset and
// switches, CPUs, memory, the vm.dirty_* sysctls, the disks and their tasks, the run
// length and a seed. Build one with DefaultConfig, or with harness.ConfigForCase, which
// reads the source threads' case names ("thresh=100M/ext4-10dd-4k-8p-4096M-100M:10-X");
// Config.Case is that name, the run's label. Config.Disks lists every disk (device,
// filesystem, bdi knobs, tasks), the first included. Config.Resolve validates every
// field, with an error that starts with the field's name and gives the allowed
// range, and resolves the kernel preset, the switch overrides and each disk's block
// layer once, into what Build consumes; Run never panics on a valid Config. Every
// setting a user sets is one row: the machine-wide ones (sysctls, memory, CPUs, HZ,
// reclaim, kernel, switch overrides, the first disk's device, runtime, seed, trace)
// of ConfigKeys (keys.go), each disk's (filesystem, tasks, bdi knobs) of DiskKeys
// (disks.go): the CLI's flags and help, the page's form, hash and error placement
// and the checks read them, and Validate reports every error at once.
//
// Build assembles the machine a Config describes (world, kernel, each disk's queue
// and filesystem, workload); it is the only place that does, and Run, the
// reproductions (package repro), fuzz and bench go through it. A test may Build,
// Step or RunUntil, and inspect the Machine in between. The machine's recorder
// samples the time series and assembles the Result.
//
// Run simulates the Config and returns a Result. Simulated time is a virtual clock;
// nothing reads the wall clock and all randomness comes from Config.Seed, so the same
// Config gives a byte-identical Result natively and under GOOS=js GOARCH=wasm. A run
// of the harness's 600 s case takes milliseconds to a few hundred milliseconds.
//
// # Units
//
// Config sizes are bytes, ratios percent, durations Go durations (JSON "600s").
// Result values carry their units in their names: MB is 2^20 bytes (the harness's
// pages/256), MBps is MB per simulated second, _s seconds, _ms milliseconds.
// write_bw_MBps is computed the way Wu Fengguang's compare script computes it: from
// the NR_WRITTEN values in the flusher's global_dirty_state trace lines, over the run
// minus its final stretch.
//
// Time series (Result.Series) are sampled at a fixed interval (1 s for a 600 s run)
// and bounded in size; Result.WriteSeriesCSV writes them with a time_s column first.
// With Config.TraceLines > 0, the newest trace lines in the kernel's v3.2 text format
// are kept in Result.Trace.
//
// Comparing kernels over the harness's cases and the thread tables is package
// harness; the threads' reproductions are package repro.
package engine
