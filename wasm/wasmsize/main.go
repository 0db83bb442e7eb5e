//go:build !(js && wasm)

// Command wasmsize prints where a Go WebAssembly module's bytes go: the size of each
// section and the code bytes of each Go package (from the "name" section, so build the
// module without -s for this). `go tool nm` does not read wasm files; this is its
// per-package sum for them. Used by `./build.sh sizes` (PERFORMANCE.md).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

func main() {
	top := flag.Int("top", 25, "packages to list")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: wasmsize [-top N] module.wasm")
		os.Exit(2)
	}
	b, err := os.ReadFile(flag.Arg(0))
	if err == nil {
		err = report(os.Stdout, b, *top)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmsize:", err)
		os.Exit(1)
	}
}

type section struct {
	id      byte
	name    string // custom sections
	payload []byte
}

var sectionNames = map[byte]string{1: "type", 2: "import", 3: "function", 4: "table", 5: "memory",
	6: "global", 7: "export", 8: "start", 9: "element", 10: "code", 11: "data", 12: "datacount"}

func report(w io.Writer, b []byte, top int) error {
	if len(b) < 8 || !bytes.Equal(b[:4], []byte("\x00asm")) {
		return errors.New("not a wasm module")
	}
	r := &reader{b: b[8:]}
	var secs []section
	for !r.done() {
		id := r.byte()
		n := r.uleb()
		p := r.bytes(int(n))
		s := section{id: id, payload: p}
		if id == 0 {
			cr := &reader{b: p}
			s.name = cr.name()
			s.payload = cr.b
		}
		secs = append(secs, s)
		if r.err != nil {
			return r.err
		}
	}
	var imports int
	var bodies [][]byte
	names := map[int]string{}
	for _, s := range secs {
		sr := &reader{b: s.payload}
		switch {
		case s.id == 2:
			for i, n := 0, int(sr.uleb()); i < n; i++ {
				sr.name()
				sr.name()
				if kind := sr.byte(); kind == 0 {
					imports++
					sr.uleb()
				} else {
					return fmt.Errorf("import kind %d not handled", kind)
				}
			}
		case s.id == 10:
			for i, n := 0, int(sr.uleb()); i < n; i++ {
				bodies = append(bodies, sr.bytes(int(sr.uleb())))
			}
		case s.id == 0 && s.name == "name":
			for !sr.done() {
				sub := sr.byte()
				p := sr.bytes(int(sr.uleb()))
				if sub != 1 {
					continue
				}
				nr := &reader{b: p}
				for i, n := 0, int(nr.uleb()); i < n; i++ {
					idx := int(nr.uleb())
					names[idx] = nr.name()
				}
			}
		}
		if sr.err != nil {
			return sr.err
		}
	}
	fmt.Fprintf(w, "%-28s %10d bytes, %9d gzip\n", "module", len(b), gz(b))
	for _, s := range secs {
		n := sectionNames[s.id]
		if s.id == 0 {
			n = "custom " + s.name
		}
		fmt.Fprintf(w, "  section %-18s %10d\n", n, len(s.payload))
	}
	if len(names) == 0 {
		fmt.Fprintln(w, "  (no name section: build without -s for the per-package code sizes)")
		return nil
	}
	type pkg struct {
		name  string
		bytes int
		code  bytes.Buffer
	}
	pk := map[string]*pkg{}
	total := 0
	for i, body := range bodies {
		p := pkgOf(names[imports+i])
		if pk[p] == nil {
			pk[p] = &pkg{name: p}
		}
		pk[p].bytes += len(body)
		pk[p].code.Write(body)
		total += len(body)
	}
	list := make([]*pkg, 0, len(pk))
	for _, p := range pk {
		list = append(list, p)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].bytes != list[j].bytes {
			return list[i].bytes > list[j].bytes
		}
		return list[i].name < list[j].name
	})
	fmt.Fprintf(w, "  code by package (%d functions, %d bytes):\n", len(bodies), total)
	rest, restN := 0, 0
	for i, p := range list {
		if i >= top {
			rest += p.bytes
			restN++
			continue
		}
		fmt.Fprintf(w, "    %-40s %9d  %5.1f%%  %8d gzip alone\n", p.name, p.bytes, 100*float64(p.bytes)/float64(total), gz(p.code.Bytes()))
	}
	if restN > 0 {
		fmt.Fprintf(w, "    %-40s %9d  %5.1f%%\n", fmt.Sprintf("(%d more packages)", restN), rest, 100*float64(rest)/float64(total))
	}
	return nil
}

// pkgOf is the import path of a function's name in the name section, where the linker
// has replaced every character but letters, digits, '_' and '.' by '_':
// "github.com_wblab_wblab_engine_sim.__ptr_Sim_.Run" → "github.com/wblab/wblab/engine/sim".
func pkgOf(sym string) string {
	if sym == "" {
		return "(unnamed)"
	}
	start := 0
	if d := strings.IndexByte(sym, '.'); d > 0 && !strings.Contains(sym[:d], "_") {
		// a domain (github.com_..., golang.org_...): its dots are not the package's end
		if u := strings.IndexByte(sym[d:], '_'); u > 1 && strings.Trim(sym[d+1:d+u], "abcdefghijklmnopqrstuvwxyz.") == "" {
			start = d + u
		}
	}
	dot := strings.IndexByte(sym[start:], '.')
	if dot < 0 {
		return sym
	}
	p := strings.TrimRight(sym[:start+dot], "_")
	if p == "go" || p == "type" {
		return "(runtime support)"
	}
	return strings.ReplaceAll(p, "_", "/")
}

func gz(b []byte) int {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	bw := bufio.NewWriter(zw)
	_, _ = bw.Write(b)
	_ = bw.Flush()
	_ = zw.Close()
	return buf.Len()
}

type reader struct {
	b   []byte
	err error
}

func (r *reader) done() bool { return r.err != nil || len(r.b) == 0 }

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.err = io.ErrUnexpectedEOF
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) uleb() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c := r.byte()
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	r.err = errors.New("bad LEB128")
	return 0
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.err = io.ErrUnexpectedEOF
		r.b = nil
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *reader) name() string { return string(r.bytes(int(r.uleb()))) }
