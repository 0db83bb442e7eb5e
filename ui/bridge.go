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
	Run(id int, cfgJSON string)
	Cancel(id int)
	Workers() int
}
