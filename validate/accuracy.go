package validate

import (
	"bytes"
	"context"
	_ "embed" // references/accuracy.json
	"encoding/json"
	"fmt"
	"io"
	"sync"
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
