//go:build !(js && wasm)

// Command serve serves the built site (static/) for ./build.sh serve: precompressed
// .br/.gz siblings with Content-Encoding, application/wasm, cache revalidation
// (package wasm/site).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"

	"github.com/wblab/wblab/wasm/site"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	dir := flag.String("dir", "static", "folder to serve")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("serving %s at http://%s/\n", *dir, ln.Addr())
	log.Fatal(http.Serve(ln, site.Handler(*dir)))
}
