#!/usr/bin/env bash
# run-matrix.sh [--matrix FILE] [--runs N] [--out DIR] [--budget SECONDS] [--kernel K] [NAME...]:
# measure the cases of a matrix file (default matrix-shared.txt; all, or those named),
# one QEMU at a time, into DIR/NAME.rK.log.gz (K = 1..N; N = 1 writes DIR/NAME.log.gz).
# Run K of every case comes before run K+1 of any, so a matrix cut short still has
# every case. --budget stops starting cases after that many seconds (default: none).
# DIR defaults to validate/.cache/runs (not committed: a run becomes a reference only
# once it held, validate/README.md). --kernel K boots kernel K (setup.sh K) in every
# case. Needs an idle host (validate/README.md).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
matrix="$here/matrix-shared.txt" runs=3 out="$here/../.cache/runs" budget=0 kernel=
while [ $# -gt 0 ]; do
  case "$1" in
    --matrix) matrix="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --budget) budget="$2"; shift 2 ;;
    --kernel) kernel="--kernel $2"; shift 2 ;;
    *) break ;;
  esac
done
mkdir -p "$out"
t0=$(date +%s)
for k in $(seq 1 "$runs"); do
  while read -r name args; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
    file="$name"
    [ "$runs" -gt 1 ] && file="$name.r$k"
    if [ "$budget" -gt 0 ] && [ $(($(date +%s) - t0)) -ge "$budget" ]; then echo "run-matrix: budget spent, $file not measured"; continue; fi
    echo "run-matrix: $file ($(date -u +%H:%M:%S), load $(cut -d' ' -f1-3 /proc/loadavg))"
    ok=
    for try in 1 2; do # a second try when the guest did not finish
      # shellcheck disable=SC2086
      if "$here/run-case.sh" --out "$out/$file.log" $args $kernel; then ok=1; break; fi
      echo "run-matrix: $file failed (try $try)"
    done
    if [ -n "$ok" ]; then gzip -9f "$out/$file.log"; else mv "$out/$file.log" "$out/$file.failed"; fi
  done <"$matrix"
done
echo "run-matrix: done in $(($(date +%s) - t0)) s"
