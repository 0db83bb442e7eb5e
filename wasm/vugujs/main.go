//go:build !(js && wasm)

// Command vugujs writes Vugu's DOM renderer script (domrender's jsHelperScript) to a
// file, so the page can load it instead of letting domrender.New eval it under a CSP
// without 'unsafe-eval'. Usage: vugujs VUGU_MODULE_DIR OUT.js
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: vugujs VUGU_MODULE_DIR OUT.js")
		os.Exit(2)
	}
	src := filepath.Join(os.Args[1], "domrender", "renderer-js-script.go")
	f, err := parser.ParseFile(token.NewFileSet(), src, nil, 0)
	if err != nil {
		fail(err)
	}
	var script string
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && len(vs.Names) == 1 && vs.Names[0].Name == "jsHelperScript" {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				script, err = strconv.Unquote(lit.Value)
			}
		}
		return true
	})
	if err != nil || script == "" {
		fail(fmt.Errorf("jsHelperScript not found in %s (%v)", src, err))
	}
	if err := os.WriteFile(os.Args[2], []byte(script+"\n"), 0o644); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "vugujs:", err)
	os.Exit(1)
}
