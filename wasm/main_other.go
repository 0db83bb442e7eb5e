//go:build !(js && wasm)

// Command wasm is the browser lab's UI; it runs only as WebAssembly (see main.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "wasm: build with GOOS=js GOARCH=wasm (./build.sh build)")
	os.Exit(2)
}
