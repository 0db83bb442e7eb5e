package ui

import (
	"sync"

	"github.com/wblab/wblab/ui/wire"
)

// How right a figure is (issue 33 §4): when run A finished, the page asks the
// engine worker for the 6.1 preset's accuracy on its figures (lab.AccuracyFor: the
// table computed from the harness 2 QEMU references, nothing run); the per-disk
// cards then show, beside the disk's write rate, bdi_thresh, dd rate and editor
// latency, "real 6.1 within ±X % in N QEMU references" or that no reference
// covers it. Other kernels get no notes.

var (
	accuracyMu    sync.Mutex
	accuracyCache = map[string]*wire.AccuracyNotes{} // by config JSON
)

// accuracyFor is the answer for a config, nil until it came (or on an error).
func accuracyFor(config string) *wire.AccuracyNotes {
	accuracyMu.Lock()
	defer accuracyMu.Unlock()
	return accuracyCache[config]
}

// askAccuracy asks the engine once per config and renders when the answer comes
// (call with the event lock held). An error leaves the cards without notes.
func (c *Root) askAccuracy(r *RunState) {
	cfg := r.Run.Config
	accuracyMu.Lock()
	_, asked := accuracyCache[cfg]
	if !asked {
		accuracyCache[cfg] = nil // asked: one question per config
	}
	accuracyMu.Unlock()
	if asked {
		return
	}
	go func() {
		var n wire.AccuracyNotes
		if err := Ask("accuracy", wire.AccuracyAsk{Config: cfg}, &n); err != nil {
			return
		}
		accuracyMu.Lock()
		accuracyCache[cfg] = &n
		accuracyMu.Unlock()
		c.ee.Lock()
		c.ee.UnlockRender()
	}()
}

// AccuracyLines are a disk card's accuracy lines for disk i of the answer n (nil
// without notes): one per figure a reference covers, and one line saying so when
// none is.
func AccuracyLines(n *wire.AccuracyNotes, i int) []DiskLine {
	if n == nil || i >= len(n.Disks) {
		return nil
	}
	d := n.Disks[i]
	var out []DiskLine
	covered := false
	for _, f := range []struct{ label, note string }{
		{"write rate", d.WriteRate}, {"bdi_thresh", d.BdiThresh}, {"dd rate", d.Writer},
		{"editor p50", d.EditorP50}, {"editor p99", d.EditorP99},
	} {
		if f.note == "" {
			continue
		}
		covered = covered || f.note != wire.NoCover
		out = append(out, DiskLine{Label: f.label + " vs real " + n.Kernel, A: f.note})
	}
	if !covered && len(out) > 0 {
		return []DiskLine{{Label: "vs real " + n.Kernel, A: wire.NoCover}}
	}
	return out
}

// withAccuracy appends each card's accuracy lines (cards in disk order).
func withAccuracy(cards []DiskCard, n *wire.AccuracyNotes) []DiskCard {
	for i := range cards {
		cards[i].Lines = append(cards[i].Lines, AccuracyLines(n, i)...)
	}
	return cards
}
