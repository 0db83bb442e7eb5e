package validate

import (
	"bytes"
	"context"
	_ "embed" // references/accuracy.json
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/wblab/wblab/engine"
)

// How right a figure is (issue 33 §4): the accuracy table, computed from the
// harness 2 references by ComputeAccuracy and committed beside them as
// references/accuracy.json (TestReferenceFiles keeps it equal to what the model
// makes of the logs; -update rewrites it), so that wblab run and the page read it
// without running the comparison.

// AccuracyTable is the accuracy of the Kernel preset per kind of figure over the
// held harness 2 references.
type AccuracyTable struct {
	Kernel string        `json:"kernel"`
	Seeds  int           `json:"seeds"`
	Runs   int           `json:"held_runs"` // held harness 2 runs behind the table
	Rows   []AccuracyRow `json:"rows"`
}

// Row is the table's row of a kind (ok false: no held reference covers it).
func (t AccuracyTable) Row(kind string) (AccuracyRow, bool) {
	for _, r := range t.Rows {
		if r.Kind == kind && r.Figures > 0 {
			return r, true
		}
	}
	return AccuracyRow{}, false
}

//go:embed references/accuracy.json
var accuracyJSON []byte

var (
	accuracyOnce  sync.Once
	accuracyTable AccuracyTable
	accuracyErr   error
)

// Accuracy is the committed accuracy table (references/accuracy.json), parsed once.
func Accuracy() (AccuracyTable, error) {
	accuracyOnce.Do(func() {
		if err := json.Unmarshal(accuracyJSON, &accuracyTable); err != nil {
			accuracyErr = fmt.Errorf("validate: references/accuracy.json: %w", err)
		}
	})
	return accuracyTable, accuracyErr
}

// ComputeAccuracy compares wblab with the harness 2 logs among logs (Compare) and
// returns the accuracy table and the reference figures it comes from.
func ComputeAccuracy(ctx context.Context, logs []*Log) (AccuracyTable, []MixFigure, error) {
	var cs []Comparison
	for _, l := range logs {
		if l.Header["work"] != "mix" {
			continue
		}
		c, err := Compare(ctx, l)
		if err != nil {
			return AccuracyTable{}, nil, err
		}
		cs = append(cs, c)
	}
	figs := MixReference(cs)
	held := HeldRuns(cs)
	t := AccuracyTable{Kernel: Kernel, Seeds: MixSeeds, Rows: AccuracyOf(figs, held)}
	for _, n := range held {
		t.Runs += n
	}
	if t.Rows == nil {
		t.Rows = []AccuracyRow{}
	}
	return t, figs, nil
}

// WriteAccuracyJSON writes t as references/accuracy.json holds it.
func WriteAccuracyJSON(w io.Writer, t AccuracyTable) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// NoCoverNote is NoteFor's text where the table has no row of the kind.
const NoCoverNote = "no QEMU reference covers this"

// NoteFor is the accuracy note beside a figure of this kind in a run of cfg: the
// row's Note ("real 6.1 within ±X % in N QEMU references") for the Kernel preset,
// NoCoverNote for it without a held reference of the kind, and "" for other
// kernels (the references measured 6.1 only).
func (t AccuracyTable) NoteFor(cfg engine.Config, kind string) string {
	if cfg.Kernel != Kernel || kind == "" {
		return ""
	}
	if r, ok := t.Row(kind); ok {
		return r.Note()
	}
	return NoCoverNote
}

// WriterKindOf is the kind of a dd writer's rate on disk i of cfg, as MixReference
// classifies the references' writers: the only writer, or one of writers on
// several disks, its disk the slowest (by the device's bandwidth) or not. "" when
// the disk has no dd, or two disks with writers have no bandwidth to compare.
func WriterKindOf(cfg engine.Config, i int) string {
	if i < 0 || i >= len(cfg.Disks) || cfg.Disks[i].Workload.DD == 0 {
		return ""
	}
	n := 0
	for _, d := range cfg.Disks {
		n += d.Workload.DD
	}
	if n == 1 {
		return KindWriterOne
	}
	own := cfg.Disks[i].Device.BandwidthBps
	writerDisks := 0
	for j, d := range cfg.Disks {
		if d.Workload.DD == 0 {
			continue
		}
		writerDisks++
		if d.Device.BandwidthBps <= 0 || own <= 0 {
			return ""
		}
		if j != i && d.Device.BandwidthBps < own {
			return KindWriterBeside
		}
	}
	if writerDisks < 2 {
		return "" // several writers on one disk: no reference of that shape
	}
	return KindWriterSlow
}
