//go:build !(js && wasm)

// Command prerender writes what the page would otherwise ask its engine worker first,
// for ./build.sh build: static/first.json, the first page's case computed by the engine
// at build time (lab.RunFirstPage), which static/boot.js shows instead of running it
// in the worker, and static/catalog.json, the worker's answer to the catalog question
// (lab.Answer), which the UI mounts with instead of waiting for a worker, and
// static/references.gz, the measured references' logs (validate.WriteBundle), which the
// engine worker, built without them, fetches when a run first asks for them. Native and
// wasm runs are byte-identical (tests/determinism); TestPrerenderIsTheWorkersRun and
// TestCatalogIsTheWorkersAnswer compare the files with the worker's own messages. And
// static/first.html, the first page with that run as main.wasm first renders it
// (ui.Snapshot), which boot.js shows before main.wasm has compiled.
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/wblab/wblab/lab"
	"github.com/wblab/wblab/ui"
	"github.com/wblab/wblab/validate"
)

func main() {
	out := flag.String("o", "static/first.json", "the first run's file")
	cat := flag.String("catalog", "static/catalog.json", "the catalog's file")
	refs := flag.String("references", "static/"+validate.BundleName, "the measured references' bundle")
	snap := flag.String("snapshot", "static/first.html", "the first page's snapshot")
	flag.Parse()
	f, err := lab.RunFirstPage(context.Background())
	if err == nil {
		var b []byte
		if b, err = json.Marshal(f); err == nil {
			err = os.WriteFile(*out, b, 0o644)
		}
	}
	var catalog []byte
	if err == nil {
		if catalog, err = lab.Answer("catalog", []byte("null")); err == nil {
			err = os.WriteFile(*cat, catalog, 0o644)
		}
	}
	if err == nil {
		var msgs []ui.Msg
		if msgs, err = messages(f); err == nil {
			var h string
			if h, err = ui.Snapshot(catalog, msgs); err == nil {
				err = os.WriteFile(*snap, []byte(h), 0o644)
			}
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
	fmt.Printf("%s: the first page's case, %d rows × %d columns; %s; %s; %s\n", *out, f.Rows, f.Cols, *cat, *snap, *refs)
}

// messages are the first run's messages as static/boot.js delivers first.json to the
// page: one chunk with every row, then the result, marked precomputed.
func messages(f *lab.FirstRun) ([]ui.Msg, error) {
	b, err := base64.StdEncoding.DecodeString(f.Data)
	if err != nil || len(b) != 8*f.Rows*f.Cols {
		return nil, fmt.Errorf("first run's data: %d bytes for %d x %d (%v)", len(b), f.Rows, f.Cols, err)
	}
	rows := ui.ChunkRows(b, f.Rows, f.Cols)
	return []ui.Msg{
		{Type: "chunk", Done: f.Done, Total: f.Total, Chunk: &ui.Chunk{From: 0, Names: f.Names, Config: f.Config, Rows: rows}},
		{Type: "result", Result: f.Result, Trace: f.Trace, Prerendered: true},
	}, nil
}
