#!/usr/bin/env bash
# wblab build script: ./build.sh build | serve | test
set -euo pipefail
cd "$(dirname "$0")"

wasm_exec_dir() { echo "$(go env GOROOT)/lib/wasm"; }

cmd_test() {
  echo "== go vet"
  go vet ./...
  echo "== go test (native)"
  go test -count=1 ./...
  echo "== go test (GOOS=js GOARCH=wasm, Node)"
  GOOS=js GOARCH=wasm go test -count=1 -exec="$(wasm_exec_dir)/go_js_wasm_exec" ./engine/... ./devices/...
}

case "${1:-}" in
  test) shift; cmd_test "$@" ;;
  *) echo "usage: $0 test" >&2; exit 2 ;;
esac
