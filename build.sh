#!/usr/bin/env bash
# wblab build script: ./build.sh build | serve [--port N] | test | sizes
set -euo pipefail
cd "$(dirname "$0")"

wasm_exec_dir() { echo "$(go env GOROOT)/lib/wasm"; }

# need CMD PACKAGE: installs a Debian package when its command is missing (CI runs as
# root on a fresh machine).
need() {
  command -v "$1" >/dev/null && return
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== apt-get install $2 (for $1)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null 2>&1 ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null; }
  fi
  command -v "$1" >/dev/null || { echo "build: $1 is missing (apt-get install $2)" >&2; exit 1; }
}

# Same flags for every wasm build (changing them recompiles everything).
WASM_FLAGS=(-trimpath "-ldflags=-s -w")

cmd_build() {
  echo "== vugugen (ui/)"
  PATH="$(go env GOROOT)/bin:$PATH" go generate ./ui/
  echo "== npm ci (uPlot)"
  npm ci --no-audit --no-fund --loglevel=error
  mkdir -p static/vendor
  cp node_modules/uplot/dist/uPlot.iife.min.js node_modules/uplot/dist/uPlot.min.css static/vendor/
  cp "$(wasm_exec_dir)/wasm_exec.js" static/wasm_exec.js
  # Vugu's DOM renderer script, loaded as a file: domrender.New evals it otherwise,
  # which the page's CSP (no 'unsafe-eval') forbids; static/lab.js skips that eval.
  go run ./wasm/vugujs "$(go list -m -f '{{.Dir}}' github.com/vugu/vugu)" static/vendor/vugu-render.js
  echo "== main.wasm (UI) and worker.wasm (engine)"
  GOOS=js GOARCH=wasm go build "${WASM_FLAGS[@]}" -o static/main.wasm ./wasm
  GOOS=js GOARCH=wasm go build "${WASM_FLAGS[@]}" -o static/worker.wasm ./wasm/worker
  echo "== first.json, catalog.json (the first page's case and the engine's catalog, computed natively: wasm/prerender),"
  echo "   references.gz (validate/references/*.log.gz as they are; worker.wasm fetches it for the measured overlay)"
  echo "   first.html (the first page with that run, as main.wasm first renders it: ui.Snapshot)"
  go run ./wasm/prerender -o static/first.json -catalog static/catalog.json -snapshot static/first.html -references static/references.gz
  echo "== precompressed siblings (.gz, .br) for static hosts and wasm/serve"
  need brotli brotli
  for f in static/main.wasm static/worker.wasm static/first.json static/catalog.json static/first.html; do
    gzip -9 -n -k -f "$f"
    brotli -q 11 -w 24 -k -f "$f"
    printf '%s: %d bytes, %d gzip, %d brotli\n' "$f" "$(wc -c <"$f")" "$(wc -c <"$f.gz")" "$(wc -c <"$f.br")"
  done
  printf 'static/references.gz: %d bytes (gzip data, served as it is)\n' "$(wc -c <static/references.gz)"
}

# sizes: where each module's bytes go, per section and per package (PERFORMANCE.md).
# Links the modules again with their function names (without -s).
cmd_sizes() {
  local d
  d=$(mktemp -d)
  GOOS=js GOARCH=wasm go build -trimpath -o "$d/main.wasm" ./wasm
  GOOS=js GOARCH=wasm go build -trimpath -o "$d/worker.wasm" ./wasm/worker
  go run ./wasm/wasmsize -top "${TOP:-30}" "$d/main.wasm"
  go run ./wasm/wasmsize -top "${TOP:-30}" "$d/worker.wasm"
  # the floors: the smallest Go page (syscall/js) and the smallest Vugu page, built
  # as static/ is; what any Go UI module, and any Vugu one, costs before its own code
  need brotli brotli
  local f
  for f in bare vugu; do
    GOOS=js GOARCH=wasm go build "${WASM_FLAGS[@]}" -o "$d/$f.wasm" "./wasm/sizefloor/$f"
    printf 'floor %s.wasm: %d bytes, %d gzip, %d brotli\n' "$f" "$(wc -c <"$d/$f.wasm")" \
      "$(gzip -9 -n -c "$d/$f.wasm" | wc -c)" "$(brotli -q 11 -w 24 -c "$d/$f.wasm" | wc -c)"
  done
  rm -rf "$d"
}

cmd_serve() {
  local port="${PORT:-8080}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) port="$2"; shift 2 ;;
      --port=*) port="${1#--port=}"; shift ;;
      *) echo "serve: unknown argument $1" >&2; exit 2 ;;
    esac
  done
  cmd_build
  go build -o bin/wblab-serve ./wasm/serve
  exec bin/wblab-serve -addr "127.0.0.1:${port}" -dir static
}

cmd_test() {
  cmd_build # the browser tests (tests/browser) drive the built site
  echo "== go vet"
  go vet ./...
  echo "== go test (native)"
  # tests/fidelity (T1-T6 x 5 seeds x 2 kernels at 600 s: ~2 CPU-minutes) and the
  # browser tests outlast go test's default 10 min per package on a shared, loaded box
  go test -count=1 -timeout 50m ./...
  echo "== the page's main-thread tasks (tests/browser TestNoLongTasks: wall time, so alone, after the rest)"
  WBLAB_LONGTASK=1 go test -count=1 -timeout 20m -run '^TestNoLongTasks$' ./tests/browser
  echo "== go test (GOOS=js GOARCH=wasm, Node)"
  GOOS=js GOARCH=wasm go test -count=1 -timeout 30m -exec="$(wasm_exec_dir)/go_js_wasm_exec" ./engine/... ./devices/...
  echo "== determinism (Result hashes native = js/wasm = linux/386; wblab run --json native = wasm)"
  WBLAB_WASM_DETERMINISM=1 go test -count=1 ./tests/determinism/
}

case "${1:-}" in
  build) shift; cmd_build "$@" ;;
  serve) shift; cmd_serve "$@" ;;
  test) shift; cmd_test "$@" ;;
  sizes) shift; cmd_sizes "$@" ;;
  *) echo "usage: $0 build | serve [--port N] | test | sizes" >&2; exit 2 ;;
esac
