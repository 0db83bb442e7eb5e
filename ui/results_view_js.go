//go:build js && wasm

package ui

// logRunError writes a failed run's whole message (with its details) to the
// browser's console.
func logRunError(msg string) { consoleWarn("wblab: run failed: " + msg) }
