package ui

import (
	"encoding/binary"
	"math"
)

// Msg is a message from an engine worker (wasm/worker/PROTOCOL.md).
type Msg struct {
	Type        string // progress, chunk, result, error
	ID          int
	Done, Total float64 // simulated seconds
	Chunk       *Chunk  // "chunk": new time-series rows of a streamed run
	Result      string  // Result JSON
	Trace       string
	Message     string
	// Prerendered marks the result of the build's precomputed first run
	// (static/first.json), which boot.js delivers as the worker's messages
	Prerendered bool
}

// Chunk is a "chunk" message's new time-series rows. Chunks of a run arrive in order
// and without gaps, before its "result".
type Chunk struct {
	From   int         // the run's row index of Rows[0]
	Names  []string    // the column names (Series.Names); only in the first chunk (From 0)
	Config string      // the Config JSON the worker runs; only in the first chunk
	Rows   [][]float64 // Rows[i][j] is row From+i, column j
}

// ChunkRows decodes a chunk's rows from their wire form (PROTOCOL.md): rows × cols
// little-endian float64s, row by row. b must hold at least 8*rows*cols bytes.
func ChunkRows(b []byte, rows, cols int) [][]float64 {
	out := make([][]float64, rows)
	for i := range out {
		r := make([]float64, cols)
		for j := range r {
			r[j] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*(i*cols+j):]))
		}
		out[i] = r
	}
	return out
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
	// OnMsg sets who gets every run's messages, in order.
	OnMsg(func(Msg))
	// Ask answers a question of the page (package wire) in a worker; it blocks.
	Ask(kind string, req []byte) ([]byte, error)
	// Catalog is the answer to "catalog" (static/boot.js asks it before the UI
	// starts); it blocks.
	Catalog() ([]byte, error)
	// Prerendered reports whether the page's first run is the build's precomputed
	// one (static/first.json, delivered by boot.js as the early worker's messages):
	// its messages are all here, none waits for a worker.
	Prerendered() bool
}
