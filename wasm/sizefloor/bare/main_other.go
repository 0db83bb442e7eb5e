//go:build !(js && wasm)

// Command bare is a size-floor module; it runs only as WebAssembly (see main.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bare: build with GOOS=js GOARCH=wasm (./build.sh sizes)")
	os.Exit(2)
}
