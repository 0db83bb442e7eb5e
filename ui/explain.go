package ui

import "github.com/wblab/wblab/engine"

// The explanations live in the engine's registry (engine/explain.go), which the CLI's
// `wblab help series` reads too; the page reads them through these names.

// Doc explains one number (engine.Doc).
type Doc = engine.Doc

// SeriesDoc explains a series column or a chart's derived series.
func SeriesDoc(col string) (Doc, bool) { return engine.SeriesDoc(col) }

// CardDoc explains a card.
func CardDoc(id string) (Doc, bool) { return engine.CardDoc(id) }
