package lab

import (
	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/ui/wire"
	"github.com/wblab/wblab/validate"
)

// AccuracyFor answers the page's "accuracy" question for cfg: the committed
// accuracy table of the 6.1 preset (validate.Accuracy: computed from the harness 2
// QEMU references when they were committed, embedded; nothing is run) and the
// notes of cfg's disk cards (validate's NoteFor, WriterKindOf).
func AccuracyFor(cfg engine.Config) (wire.AccuracyNotes, error) {
	t, err := validate.Accuracy()
	if err != nil {
		return wire.AccuracyNotes{}, err
	}
	out := wire.AccuracyNotes{Kernel: t.Kernel}
	for _, r := range t.Rows {
		out.Rows = append(out.Rows, wire.AccuracyRow{Kind: r.Kind, Figures: r.Figures, Runs: r.Runs, MeanErrPct: r.MeanErrPct,
			MaxErrPct: r.MaxErrPct, TargetPct: r.TargetPct, WithinTarget: r.WithinTarget, Note: r.Note()})
	}
	if cfg.Kernel != validate.Kernel {
		return out, nil
	}
	for i, d := range cfg.Disks {
		da := wire.DiskAccuracy{WriteRate: t.NoteFor(cfg, validate.KindDiskRate), BdiThresh: t.NoteFor(cfg, validate.KindBdiThreshold),
			Writer: t.NoteFor(cfg, validate.WriterKindOf(cfg, i))}
		if d.Workload.Editors > 0 {
			p50, p99, _ := validate.EditorKinds(d.Workload.DD > 0)
			da.EditorP50, da.EditorP99 = t.NoteFor(cfg, p50), t.NoteFor(cfg, p99)
		}
		out.Disks = append(out.Disks, da)
	}
	return out, nil
}
