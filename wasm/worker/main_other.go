//go:build !(js && wasm)

// Command worker runs only as WebAssembly in a browser Web Worker (see main.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "worker: build with GOOS=js GOARCH=wasm; it runs in a browser Web Worker")
	os.Exit(2)
}
