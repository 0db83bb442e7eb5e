//go:build !(js && wasm)

// Command prerender writes static/first.json for ./build.sh build: the first page's
// case computed by the engine at build time (lab.RunFirstPage), which static/boot.js
// shows instead of running it in the worker. Native and wasm runs are byte-identical
// (tests/determinism); TestPrerenderIsTheWorkersRun compares the file with the
// worker's own run.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/wblab/wblab/lab"
)

func main() {
	out := flag.String("o", "static/first.json", "file to write")
	flag.Parse()
	f, err := lab.RunFirstPage(context.Background())
	if err == nil {
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prerender:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: the first page's case, %d rows × %d columns\n", *out, f.Rows, f.Cols)
}
