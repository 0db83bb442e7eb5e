package ui

import (
	"encoding/json"

	"github.com/wblab/wblab/engine"
)

// DefaultConfigJSON is the Config JSON of engine.FirstPageConfig(), the case
// static/boot.js starts in the first worker before the UI exists; the UI's first run
// takes that run over when its config JSON is this.
func DefaultConfigJSON() string {
	b, _ := json.Marshal(engine.FirstPageConfig())
	return string(b)
}

// pageConfig is cfg as the page runs it (single and A/B): with the per-inode and
// per-task detail its views show (recording it does not change the run).
func pageConfig(cfg engine.Config) engine.Config {
	cfg.Detail = true
	return cfg
}

// Msg is a message from an engine worker (wasm/worker/PROTOCOL.md).
type Msg struct {
	Type        string // progress, chunk, result, error
	ID          int
	Done, Total float64 // simulated seconds
	Chunk       *Chunk  // "chunk": new time-series rows of a streamed run
	Result      string  // Result JSON
	Trace       string
	Message     string
}

// Chunk is a "chunk" message's new time-series rows. Chunks of a run arrive in order
// and without gaps, before its "result".
type Chunk struct {
	From   int         // the run's row index of Rows[0]
	Names  []string    // the column names (Series.Names); only in the first chunk (From 0)
	Config string      // the Config JSON the worker runs; only in the first chunk
	Rows   [][]float64 // Rows[i][j] is row From+i, column j
}

// Engine runs configs off the UI thread; the browser implementation is a pool of Web
// Workers (bridge_js.go).
type Engine interface {
	// Run starts a config; summary asks for the Result's top-level figures only (no
	// series, tasks, inodes or trace: matrix cells need write_bw). Other runs stream
	// their series in "chunk" messages while they run.
	Run(id int, cfgJSON string, summary bool)
	Cancel(id int)
	Workers() int
}
