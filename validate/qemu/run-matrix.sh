#!/usr/bin/env bash
# run-matrix.sh [NAME...]: measure the cases of matrix.txt (all, or those named), one QEMU
# at a time, into validate/references/NAME.log.gz. Stops early after --budget seconds of
# wall time (default 3000), leaving the later cases unmeasured.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
refs="$here/../references"
budget=3000
if [ "${1:-}" = --budget ]; then budget="$2"; shift 2; fi
mkdir -p "$refs"
t0=$(date +%s)
while read -r name args; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then continue; fi
  if [ $(($(date +%s) - t0)) -ge "$budget" ]; then echo "run-matrix: budget spent, $name not measured"; continue; fi
  echo "run-matrix: $name ($(date -u +%H:%M:%S))"
  ok=
  for try in 1 2; do # a second try when the guest did not finish
    # shellcheck disable=SC2086
    if "$here/run-case.sh" --out "$refs/$name.log" $args; then ok=1; break; fi
    echo "run-matrix: $name failed (try $try)"
  done
  if [ -n "$ok" ]; then gzip -9f "$refs/$name.log"; else mv "$refs/$name.log" "$refs/$name.failed"; fi
done <"$here/matrix.txt"
echo "run-matrix: done in $(($(date +%s) - t0)) s"
