package lab

import (
	"github.com/wblab/wblab/harness"
	"github.com/wblab/wblab/ui/wire"
)

// PlanSweep is the page's sweep (harness.SweepConfigs): write_bw against the dirty
// threshold for each dd count, on the filesystems asked for, every run on the
// form's machine. A bad form or filesystem name is the answer's Err.
func PlanSweep(q wire.SweepPlan) wire.SweepPlanned {
	cfg, ferr := FormConfig(q.State.Form)
	if ferr != nil {
		return wire.SweepPlanned{Err: ferr}
	}
	opt := harness.SweepOptions{Filesystems: q.Filesystems, Machine: &cfg}
	cfgs, cells, err := harness.SweepConfigs(opt)
	if err != nil {
		return wire.SweepPlanned{Err: &FieldError{Field: "sweep", Msg: err.Error()}}
	}
	out := wire.SweepPlanned{Filesystems: q.Filesystems, ThresholdsMB: harness.SweepThresholdsMB,
		Writers: harness.SweepWriters, Kernel: cfg.Kernel, Device: cfg.Disks[0].Device.String(), RuntimeS: cfg.Runtime.Time().Seconds(),
		Seeds: max(q.Seeds, 1)}
	if len(out.Filesystems) == 0 {
		out.Filesystems = harness.SweepFilesystems
	}
	for i, c := range cfgs {
		for s := range out.Seeds {
			r := c
			r.Seed = c.Seed + uint64(s)
			out.Runs = append(out.Runs, wire.SweepRun{FS: cells[i].FS, ThreshMB: cells[i].ThreshMB, DD: cells[i].DD, Seed: s, Config: configJSON(r)})
		}
	}
	return out
}
