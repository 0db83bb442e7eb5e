package ui

import (
	"strings"

	"github.com/wblab/wblab/engine"
	"github.com/wblab/wblab/repro"
)

// Repro is a "Reproduce" entry of the page: one of the reproductions (package
// repro), with the form it sets up and what to look at.
type Repro struct {
	ID, Title string
	Explain   string   // the reproduction's Look: two sentences, no results
	Kernels   []string // the kernel presets it needs; it is offered only when all exist
	Mode      string   // "ab" or "matrix"
	Table     string   // matrix: a built-in table ("T1")
	Setup     engine.Config
	BKernel   string
}

// Repros are the page's entries, read from the reproductions.
var Repros = func() []Repro {
	var out []Repro
	for _, e := range repro.Experiments() {
		cfg, err := e.Setup()
		if err != nil {
			continue
		}
		out = append(out, Repro{ID: e.ID, Title: e.Title, Explain: e.Look, Kernels: e.Kernels(), Mode: e.Mode,
			Table: strings.TrimPrefix(e.Matrix, "wu-2011-"), Setup: cfg, BKernel: e.TestKernel})
	}
	return out
}()

// Available reports whether every kernel the preset needs is a kernel preset.
func (r Repro) Available() bool {
	have := map[string]bool{}
	for _, p := range engine.KernelPresets() {
		have[p.Name] = true
	}
	for _, k := range r.Kernels {
		if !have[k] {
			return false
		}
	}
	return true
}

// Missing lists the kernel presets the preset needs that the engine lacks.
func (r Repro) Missing() string {
	have := map[string]bool{}
	for _, p := range engine.KernelPresets() {
		have[p.Name] = true
	}
	var out []string
	for _, k := range r.Kernels {
		if !have[k] {
			out = append(out, k)
		}
	}
	return strings.Join(out, ", ")
}

// ReproByID finds a preset.
func ReproByID(id string) (Repro, bool) {
	for _, r := range Repros {
		if r.ID == id {
			return r, true
		}
	}
	return Repro{}, false
}

// Apply sets the state up for the preset: the reproduction's config on A, its
// mode, B's kernel (switches at the preset's) and the matrix table.
func (r Repro) Apply(st State) State {
	return State{Form: FormFromConfig(r.Setup), Mode: r.Mode, B: Form{"kernel": r.BKernel}, Table: r.Table, Embed: st.Embed, Repro: r.ID}
}
