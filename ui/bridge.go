package ui

// Msg is a message from an engine worker (see wasm/worker).
type Msg struct {
	Type        string // progress, result, error
	ID          int
	Done, Total float64 // simulated seconds
	Result      string  // Result JSON
	Trace       string
	Message     string
}

// Engine runs configs off the UI thread; the browser implementation is a pool of Web
// Workers (bridge_js.go).
type Engine interface {
	// Run starts a config; summary asks for the Result without its time series,
	// inodes and trace (matrix cells need write_bw only).
	Run(id int, cfgJSON string, summary bool)
	Cancel(id int)
	Workers() int
}
