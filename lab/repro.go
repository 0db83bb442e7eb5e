package lab

import (
	"strings"
	"sync"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/repro"
	"github.com/wblab/wblab/ui/wire"
)

// Repros are the page's "Reproduce" entries, read from the reproductions (package
// repro): each sets the reproduction's config on A, its mode, B's kernel (switches at
// the preset's) and the matrix table. Computed once, when first asked.
var Repros = sync.OnceValue(func() []wire.Repro {
	have := map[string]bool{}
	for _, p := range engine.KernelPresets() {
		have[p.Name] = true
	}
	var out []wire.Repro
	for _, e := range repro.Experiments() {
		cfg, err := e.Setup()
		if err != nil {
			continue
		}
		r := wire.Repro{ID: e.ID, Title: e.Title, Explain: e.Look, Kernels: e.Kernels(),
			State: State{Form: FormFromConfig(cfg), Mode: e.Mode, B: Form{"kernel": e.TestKernel},
				Table: strings.TrimPrefix(e.Matrix, "wu-2011-"), Repro: e.ID}}
		for _, k := range r.Kernels {
			if !have[k] {
				r.Missing = append(r.Missing, k)
			}
		}
		out = append(out, r)
	}
	return out
})

// ReproByID finds a preset.
func ReproByID(id string) (wire.Repro, bool) {
	for _, r := range Repros() {
		if r.ID == id {
			return r, true
		}
	}
	return wire.Repro{}, false
}
