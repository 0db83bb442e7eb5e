// Package ui is the browser lab's Vugu components and the plain-Go logic behind them
// (chart specs, cards, matrix tables, the per-task and per-inode views). It links no
// model: what it shows of the engine's registries is the engine worker's catalog,
// and its questions (form ⇄ Config and validation, the URL hash, case names, matrix
// plans, measured references) are answered by the worker's package lab, through
// package wire (catalog.go, wasm/worker/PROTOCOL.md). Only *_js.go files touch the
// browser; everything else builds and tests natively (its tests answer with lab
// in-process).
//
// To add a control: its field and its form ⇄ Config mapping go in lab (form.go,
// fields), its view here; the form reaches the engine only as a wire.Form.
package ui

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/wblab/wblab/engine/report"
	"github.com/wblab/wblab/ui/wire"
)

// The page holds no engine: what it shows of the engine's registries comes in one
// catalog from the engine worker when the page starts (Boot), and its questions (is
// this form valid, what does this link set, which runs does this matrix start) are
// answered by the worker (Ask: package lab behind wasm/worker). Both speak package
// wire.
type (
	Form         = wire.Form
	State        = wire.State
	FieldError   = wire.FieldError
	Field        = wire.Field
	Repro        = wire.Repro
	Table        = wire.Table
	MeasuredLink = wire.MeasuredLink
	// Doc explains one number (engine/report's table, read by the CLI too).
	Doc = report.Doc
)

// MeasuredLabel names the measured overlay on the charts and cards.
const MeasuredLabel = wire.MeasuredLabel

// Cat is the engine's catalog (set by Boot, or SetCatalog in tests).
var Cat = &wire.Catalog{}

// Asker answers a question of kind (wire) with req and the answer as JSON.
type Asker func(kind string, req []byte) ([]byte, error)

var (
	askMu sync.Mutex
	asker Asker
)

// SetAsker installs who answers the page's questions: the engine worker pool in the
// browser (Boot), lab.Answer in tests.
func SetAsker(a Asker) {
	askMu.Lock()
	asker = a
	askMu.Unlock()
}

// Ask asks the engine a question and decodes its answer into resp. It blocks until
// the answer comes, so in the browser it must run on its own goroutine, never in an
// event handler or a JS callback.
func Ask(kind string, req, resp any) error {
	askMu.Lock()
	a := asker
	askMu.Unlock()
	if a == nil {
		return fmt.Errorf("ask %s: no engine to ask", kind)
	}
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	out, err := a(kind, b)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, resp)
}

// LoadCatalog asks the engine for its catalog (blocks, see Ask).
func LoadCatalog() error {
	c := &wire.Catalog{}
	if err := Ask("catalog", nil, c); err != nil {
		return err
	}
	Cat = c
	return nil
}

// setCatalog decodes the catalog's JSON.
//
// It decodes the catalog's top-level keys about CatalogChunk bytes at a time, each
// in a task of its own (Yield): the whole 170 KB in one decode was one 40-90 ms
// task of the page's boot.
func setCatalog(b []byte) error {
	var parts map[string]json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("catalog: %v", err)
	}
	keys := make([]string, 0, len(parts))
	for k := range parts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	c := &wire.Catalog{}
	var chunk []byte
	flush := func() error {
		if len(chunk) == 0 {
			return nil
		}
		chunk = append(chunk, '}')
		if err := json.Unmarshal(chunk, c); err != nil {
			return fmt.Errorf("catalog: %v", err)
		}
		chunk = chunk[:0]
		Yield()
		return nil
	}
	for _, k := range keys {
		if len(chunk) == 0 {
			chunk = append(chunk, '{')
		} else {
			chunk = append(chunk, ',')
		}
		kb, _ := json.Marshal(k)
		chunk = append(append(append(chunk, kb...), ':'), parts[k]...)
		if len(chunk) >= CatalogChunk {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	Cat = c
	return nil
}

// CatalogChunk is about how many bytes of the catalog setCatalog decodes in one task.
const CatalogChunk = 32 << 10

// Fields lists the form's controls in display order for a device model: the fixed
// ones, then the device keys of model and the kernel switches.
func Fields(model string) []Field {
	dev, ok := Cat.DeviceFields[model]
	if !ok {
		return Cat.Fields
	}
	fieldsMu.Lock()
	defer fieldsMu.Unlock()
	if f, ok := fieldsCache[model]; ok {
		return f
	}
	var out []Field
	for _, f := range Cat.Fields {
		if !strings.HasPrefix(f.ID, "dev.") {
			out = append(out, f)
		}
		if f.ID == "device" {
			out = append(out, dev...)
		}
	}
	fieldsCache[model] = out
	return out
}

// fieldsCache memoizes Fields by model (the page asks on every render).
var (
	fieldsMu    sync.Mutex
	fieldsCache = map[string][]Field{}
)

// Options lists a select field's choices.
func Options(id string) []string { return Cat.Options[id] }

// SeriesDoc explains a series column or a chart's derived series; a per-disk
// column ("disk2_dirty_MB") by its metric's entry (report.DiskColumnTemplate).
func SeriesDoc(col string) (Doc, bool) {
	if d, ok := Cat.SeriesDocs[col]; ok {
		return d, true
	}
	if n, m, ok := report.DiskColumn(col); ok {
		if d, ok := Cat.SeriesDocs[report.DiskColumnTemplate(m)]; ok {
			return d.ForDisk(n, col), true
		}
	}
	return Doc{}, false
}

// CardDoc explains a card.
func CardDoc(id string) (Doc, bool) { return report.CardDoc(id) }

// Tables are the built-in case lists (Wu 2011's tables).
func Tables() []Table { return Cat.Tables }

// TableByName finds a built-in table.
func TableByName(name string) (Table, bool) {
	for _, t := range Cat.Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// Repros are the "Reproduce" entries.
func Repros() []Repro { return Cat.Repros }

// ReproByID finds a "Reproduce" entry.
func ReproByID(id string) (Repro, bool) {
	for _, r := range Cat.Repros {
		if r.ID == id {
			return r, true
		}
	}
	return Repro{}, false
}

// ReproAvailable reports whether every kernel the entry needs is a kernel preset.
func ReproAvailable(r Repro) bool { return len(r.Missing) == 0 }

// ReproMissing lists the kernel presets the entry needs that the engine lacks.
func ReproMissing(r Repro) string { return strings.Join(r.Missing, ", ") }

// ReproState is the state the entry sets up, keeping the page's embed mode.
func ReproState(r Repro, cur State) State {
	st := r.State
	st.Form = st.Form.Clone()
	st.B = st.B.Clone()
	st.Embed = cur.Embed
	return st
}

// onOff renders a switch value.
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
