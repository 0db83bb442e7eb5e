package kernel

import (
	"fmt"
	"sort"
	"strings"
)

// Variants are the kernel behaviours the source threads change. A kernel is a named
// set of switches (a preset); the model branches on switches, never on version strings.
type Variants struct {
	// WCPTerminateLE0 is Chinner's 2.6.36 fix (commit 546a1924): write_cache_pages stops
	// when --nr_to_write <= 0. Off: the 2.6.36-rc1 rule, which only decrements and
	// stops while nr_to_write > 0 and so never stops once ->writepage drove it ≤ 0.
	WCPTerminateLE0 bool
	// ScaledChunk is writeback_chunk_size() of v3.1+ (bw/2, limit/8, 4 MB rounding);
	// off: the fixed MAX_WRITEBACK_PAGES = 1024 of 2.6.32-3.0.
	ScaledChunk bool
}

// variantNames maps switch names (Config "variants" keys, UI labels) to fields.
var variantNames = map[string]func(*Variants) *bool{
	"wcp_terminate_le0": func(v *Variants) *bool { return &v.WCPTerminateLE0 },
	"scaled_chunk":      func(v *Variants) *bool { return &v.ScaledChunk },
}

// VariantDocs describes each switch in one line.
var VariantDocs = map[string]string{
	"wcp_terminate_le0": "write_cache_pages stops at --nr_to_write <= 0 (Chinner's 2.6.36 fix)",
	"scaled_chunk":      "writeback_chunk_size scales with bandwidth and dirty limit (v3.1+) instead of 4 MB",
}

// VariantNames lists the switch names, sorted.
func VariantNames() []string {
	out := make([]string, 0, len(variantNames))
	for k := range variantNames {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Get reads a switch by name.
func (v Variants) Get(name string) (bool, bool) {
	f, ok := variantNames[name]
	if !ok {
		return false, false
	}
	return *f(&v), true
}

// Overrides set individual switches on top of a preset, by name.
type Overrides map[string]bool

// Validate checks that every name is a switch.
func (o Overrides) Validate() error {
	for _, k := range sortedNames(o) {
		if _, ok := variantNames[k]; !ok {
			return fmt.Errorf("%q is not a kernel switch (switches: %s)", k, strings.Join(VariantNames(), ", "))
		}
	}
	return nil
}

// Apply returns v with the overrides set.
func (o Overrides) Apply(v Variants) (Variants, error) {
	if err := o.Validate(); err != nil {
		return v, err
	}
	for k, b := range o {
		*variantNames[k](&v) = b
	}
	return v, nil
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Preset is a named kernel: its switches and where it comes from.
type Preset struct {
	Name     string
	Doc      string
	Variants Variants
}

// DefaultPreset is the kernel of the Wu 2011 baseline (v3.2 writeback semantics).
const DefaultPreset = "3.1.0-rc9-ioless-full"

var presets = []Preset{
	{Name: "3.1.0-rc9-ioless-full", Doc: "Wu 2011 baseline: v3.2 writeback with IO-less balance_dirty_pages",
		Variants: Variants{WCPTerminateLE0: true, ScaledChunk: true}},
}

// Presets lists the kernel presets.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// LookupPreset finds a preset by name; a trailing '+' (a locally built kernel, as in
// the harness's release strings) is ignored.
func LookupPreset(name string) (Preset, error) {
	n := strings.TrimSuffix(name, "+")
	for _, p := range presets {
		if p.Name == n {
			return p, nil
		}
	}
	names := make([]string, len(presets))
	for i, p := range presets {
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("%q is not a kernel preset (presets: %s)", name, strings.Join(names, ", "))
}

// PresetFor reports the preset whose switches equal v, if any.
func PresetFor(v Variants) (string, bool) {
	for _, p := range presets {
		if p.Variants == v {
			return p.Name, true
		}
	}
	return "", false
}
