//go:build !(js && wasm)

package ui

// logRunError has no console outside the browser.
func logRunError(string) {}
