//go:build js && wasm

// Command bare is the smallest Go program a page can run (syscall/js only): the size
// floor of any Go wasm module, measured by ./build.sh sizes (PERFORMANCE.md).
package main

import "syscall/js"

func main() {
	js.Global().Get("console").Call("log", "bare")
	select {}
}
