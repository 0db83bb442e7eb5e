//go:build !(js && wasm)

// Package site serves the built lab (static/) as a static host should: a file's
// precompressed sibling (name.br, name.gz, written by ./build.sh build) when the
// client accepts that encoding, with Content-Encoding and Vary, and cache headers that
// let the browser keep the modules and revalidate them (an embed page with several
// labs loads each module once).
package site

import (
	"fmt"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
)

// Encodings are the precompressed siblings, in the order they are preferred.
var Encodings = []struct{ Name, Ext string }{{"br", ".br"}, {"gzip", ".gz"}}

// CacheControl is sent with every file: the browser may keep it but asks the server
// (If-None-Match) before using it again, so a rebuilt site is seen at once while an
// unchanged module costs a 304. Static hosts have their own defaults (README).
const CacheControl = "no-cache"

// Handler serves dir.
func Handler(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean("/" + r.URL.Path)
		if strings.HasSuffix(p, "/") || p == "/" {
			p = path.Join(p, "index.html")
		}
		name := filepath.Join(dir, filepath.FromSlash(p))
		fi, err := os.Stat(name)
		if err == nil && fi.IsDir() {
			name, p = filepath.Join(name, "index.html"), path.Join(p, "index.html")
			fi, err = os.Stat(name)
		}
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		ctype := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".wasm":
			ctype = "application/wasm" // instantiateStreaming needs it
		case ".gz":
			ctype = "application/gzip" // references.gz: gzip data as it is, no Content-Encoding
		}
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		h.Set("Content-Type", ctype)
		h.Set("Cache-Control", CacheControl)
		h.Set("X-Content-Type-Options", "nosniff")
		served, enc := name, ""
		for _, e := range Encodings {
			cfi, err := os.Stat(name + e.Ext)
			if err != nil || cfi.IsDir() {
				continue
			}
			h.Set("Vary", "Accept-Encoding") // this URL has encoded variants
			if enc == "" && accepts(r.Header.Get("Accept-Encoding"), e.Name) {
				served, enc, fi = name+e.Ext, e.Name, cfi
			}
		}
		f, err := os.Open(served)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		tag := fmt.Sprintf("%x-%x", fi.ModTime().UnixNano(), fi.Size())
		if enc != "" {
			h.Set("Content-Encoding", enc)
			tag += "-" + enc
		}
		h.Set("ETag", strconv.Quote(tag))
		http.ServeContent(w, r, p, fi.ModTime(), f)
	})
}

// accepts reports whether an Accept-Encoding header allows coding (q > 0); an
// entry naming the coding wins over "*".
func accepts(header, coding string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, coding) && name != "*" {
			continue
		}
		q := 1.0
		for _, prm := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(prm), "=")
			if ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		if name != "*" {
			return q > 0
		}
		star = q > 0
	}
	return star
}
