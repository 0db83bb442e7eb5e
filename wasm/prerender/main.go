//go:build !(js && wasm)

// Command prerender writes what the page would otherwise ask its engine worker first,
// for ./build.sh build: static/first.json, the first page's case computed by the engine
// at build time (lab.RunFirstPage), which static/boot.js shows instead of running it
// in the worker, and static/catalog.json, the worker's answer to the catalog question
// (lab.Answer), which the UI mounts with instead of waiting for a worker, and
// static/references.gz, the measured references' logs (validate.WriteBundle), which the
// engine worker, built without them, fetches when a run first asks for them. Native and
// wasm runs are byte-identical (tests/determinism); TestPrerenderIsTheWorkersRun and
// TestCatalogIsTheWorkersAnswer compare the files with the worker's own messages.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/validate"
)

func main() {
	out := flag.String("o", "static/first.json", "the first run's file")
	cat := flag.String("catalog", "static/catalog.json", "the catalog's file")
	refs := flag.String("references", "static/"+validate.BundleName, "the measured references' bundle")
	flag.Parse()
	f, err := lab.RunFirstPage(context.Background())
	if err == nil {
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	if err == nil {
		var b []byte
		if b, err = lab.Answer("catalog", []byte("null")); err == nil {
			err = os.WriteFile(*cat, b, 0o644)
		}
	}
	if err == nil {
		var b bytes.Buffer
		if err = validate.WriteBundle(&b); err == nil {
			err = os.WriteFile(*refs, b.Bytes(), 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "prerender:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: the first page's case, %d rows × %d columns; %s; %s\n", *out, f.Rows, f.Cols, *cat, *refs)
}
