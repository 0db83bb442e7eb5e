package harness

import (
	"context"
	"fmt"
	"strings"

	"github.com/wblab/wblab/engine"
)

// Sweep defaults (issue 17): the dirty thresholds and writer counts of the Wu 2011
// harness's cases and around them, on every filesystem the harness ran.
var (
	SweepThresholdsMB = []int64{8, 16, 32, 100, 400, 1024}
	SweepWriters      = []int{1, 2, 10, 100}
	SweepFilesystems  = []string{"ext3", "ext4", "xfs", "btrfs"}
)

// SweepOptions selects a sweep's grid and machine. Zero values take the defaults
// (SweepThresholdsMB, SweepWriters, SweepFilesystems, 600 s, the default kernel and
// device, seed 1).
type SweepOptions struct {
	Filesystems  []string
	ThresholdsMB []int64
	Writers      []int
	Runtime      engine.Duration
	Kernel       string
	Seed         uint64
	// Machine, when set, is the machine every cell runs on: its kernel, switches,
	// device, block layer, run length and seed replace the case's (the page's form);
	// Kernel, Runtime and Seed above then override it when set.
	Machine *engine.Config
}

// SweepCell is one run of the sweep: write_bw and what the disk did.
type SweepCell struct {
	FS          string  `json:"fs"`
	ThreshMB    int64   `json:"thresh_MB"`
	DD          int     `json:"dd"`
	WriteBWMBps float64 `json:"write_bw_MBps"`     // the harness's write_bw
	DiskMBps    float64 `json:"disk_MBps"`         // written / runtime: the run's mean disk rate
	AvgRqSz     float64 `json:"avgrq_sz"`          // sectors per request (iostat)
	SeeksS      float64 `json:"seeks_s,omitempty"` // rotating disks: head moves per second
	SeekPct     float64 `json:"seek_pct,omitempty"`
	RotatePct   float64 `json:"rotate_pct,omitempty"`
}

// Sweep is write_bw against the dirty threshold and the writer count, per
// filesystem: on a seeky disk it falls as the threshold shrinks and the writers
// grow, because every file gets a smaller share of the dirty pages, the flusher's
// per-inode chunks get smaller and each switch between files costs a seek.
type Sweep struct {
	Kernel       string      `json:"kernel"`
	Device       string      `json:"device"`
	RuntimeS     float64     `json:"runtime_s"`
	Seed         uint64      `json:"seed"`
	Filesystems  []string    `json:"filesystems"`
	ThresholdsMB []int64     `json:"thresholds_MB"`
	Writers      []int       `json:"writers"`
	Cells        []SweepCell `json:"cells"`
}

// sweepCase is the harness case name of one cell (dirty_bytes = thresh,
// dirty_background_ratio 10 as in the Wu 2011 cases).
func sweepCase(fs string, threshMB int64, dd int) string {
	dir := fmt.Sprintf("%dM", threshMB)
	if threshMB%1024 == 0 {
		dir = fmt.Sprintf("%dG", threshMB/1024)
	}
	return fmt.Sprintf("thresh=%s/%s-%ddd-4k-8p-4096M-%dM:10-X", dir, fs, dd, threshMB)
}

// SweepConfigs are the sweep's runs, filesystem-major, then threshold, then writers.
func SweepConfigs(opt SweepOptions) ([]engine.Config, []SweepCell, error) {
	fss, ths, dds := opt.Filesystems, opt.ThresholdsMB, opt.Writers
	if len(fss) == 0 {
		fss = SweepFilesystems
	}
	if len(ths) == 0 {
		ths = SweepThresholdsMB
	}
	if len(dds) == 0 {
		dds = SweepWriters
	}
	var cfgs []engine.Config
	var cells []SweepCell
	for _, fs := range fss {
		for _, th := range ths {
			for _, dd := range dds {
				name := sweepCase(fs, th, dd)
				c, err := ConfigForCase(name)
				if err != nil {
					return nil, nil, fmt.Errorf("sweep %s: %w", name, err)
				}
				if m := opt.Machine; m != nil {
					c.Kernel, c.Variants, c.Disks[0].Device, c.Disks[0].Block = m.Kernel, m.Variants, m.Disks[0].Device, m.Disks[0].Block
					c.Runtime, c.Seed = m.Runtime, m.Seed
				}
				if opt.Kernel != "" {
					c.Kernel = opt.Kernel
				}
				if opt.Runtime > 0 {
					c.Runtime = opt.Runtime
				}
				if opt.Seed != 0 {
					c.Seed = opt.Seed
				}
				if err := c.Validate(); err != nil {
					return nil, nil, fmt.Errorf("sweep %s: %w", name, err)
				}
				cfgs = append(cfgs, c)
				cells = append(cells, SweepCell{FS: fs, ThreshMB: th, DD: dd})
			}
		}
	}
	return cfgs, cells, nil
}

// RunSweep runs the sweep's grid (in parallel, RunAll's pool).
func RunSweep(ctx context.Context, opt SweepOptions) (*Sweep, error) {
	cfgs, cells, err := SweepConfigs(opt)
	if err != nil {
		return nil, err
	}
	res, err := engine.RunAll(ctx, cfgs)
	if err != nil {
		return nil, err
	}
	sw := &Sweep{Kernel: cfgs[0].Kernel, Device: cfgs[0].Disks[0].Device.String(), RuntimeS: cfgs[0].Runtime.Time().Seconds(),
		Seed: cfgs[0].Seed}
	seenFS, seenTh, seenDD := map[string]bool{}, map[int64]bool{}, map[int]bool{}
	for i, r := range res {
		c := &cells[i]
		c.WriteBWMBps, c.AvgRqSz = r.WriteBWMBps, r.Iostat.AvgRqSz
		if r.RuntimeS > 0 {
			c.DiskMBps = r.WrittenMB / r.RuntimeS
		}
		if m := r.Media; m != nil {
			c.SeeksS, c.SeekPct, c.RotatePct = m.SeeksS, m.SeekPct, m.RotatePct
		}
		if !seenFS[c.FS] {
			seenFS[c.FS] = true
			sw.Filesystems = append(sw.Filesystems, c.FS)
		}
		if !seenTh[c.ThreshMB] {
			seenTh[c.ThreshMB] = true
			sw.ThresholdsMB = append(sw.ThresholdsMB, c.ThreshMB)
		}
		if !seenDD[c.DD] {
			seenDD[c.DD] = true
			sw.Writers = append(sw.Writers, c.DD)
		}
	}
	sw.Cells = cells
	return sw, nil
}

// Cell returns the cell for fs, threshold and writer count.
func (s *Sweep) Cell(fs string, threshMB int64, dd int) (SweepCell, bool) {
	for _, c := range s.Cells {
		if c.FS == fs && c.ThreshMB == threshMB && c.DD == dd {
			return c, true
		}
	}
	return SweepCell{}, false
}

// Text prints one table per filesystem: write_bw (MB/s, MB = 2^20 bytes as the
// harness) by threshold (rows) and writers (columns), each cell followed by the
// disk's seeks per second when the device is a rotating disk, and the average
// request size in KiB. A "*" marks a write_bw more than 5 % away from the run's
// mean disk rate (written / runtime): the harness's window (first to n-th last
// flusher global_dirty_state line) then sampled a burst, as when the flusher
// starts and stops around a background threshold close to the dirty threshold.
func (s *Sweep) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sweep: %s on %s, %.0f s per run, seed %d\n", s.Kernel, s.Device, s.RuntimeS, s.Seed)
	b.WriteString("write_bw MB/s [seeks/s, avgrq KiB] by dirty threshold (rows) and dd writers (columns);\n")
	b.WriteString("* = write_bw more than 5 % off the run's mean disk rate (the harness's window caught a burst)\n")
	for _, fs := range s.Filesystems {
		fmt.Fprintf(&b, "\n%-6s", fs)
		for _, dd := range s.Writers {
			fmt.Fprintf(&b, " %24s", fmt.Sprintf("%ddd", dd))
		}
		b.WriteString("\n")
		for _, th := range s.ThresholdsMB {
			lbl := fmt.Sprintf("%dM", th)
			if th%1024 == 0 {
				lbl = fmt.Sprintf("%dG", th/1024)
			}
			fmt.Fprintf(&b, "%-6s", lbl)
			for _, dd := range s.Writers {
				c, ok := s.Cell(fs, th, dd)
				if !ok {
					fmt.Fprintf(&b, " %24s", "-")
					continue
				}
				mark := " "
				if d := c.WriteBWMBps - c.DiskMBps; d > 0.05*c.DiskMBps || -d > 0.05*c.DiskMBps {
					mark = "*"
				}
				fmt.Fprintf(&b, " %24s", fmt.Sprintf("%6.2f%s[%5.1f, %4.0f]", c.WriteBWMBps, mark, c.SeeksS, c.AvgRqSz/2))
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
