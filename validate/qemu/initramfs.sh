#!/usr/bin/env bash
# initramfs.sh [SERIES]: build validate/.cache/kernel-SERIES/initramfs.cpio.gz (SERIES
# 6.1 by default) from the kernel and busybox setup.sh unpacked there: busybox, init.sh
# as /init, and the virtio, ext4, xfs and btrfs modules with their dependencies, listed
# in /modules.list in load order (each module after the modules it needs, from
# modules.dep).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$(cd "${WBLAB_VALIDATE_CACHE:-$here/../.cache}" && pwd)"
dir="$cache/kernel-${1:-6.1}"
[ -f "$dir/kernel-version" ] || { echo "initramfs: no $dir: run setup.sh ${1:-6.1} first" >&2; exit 1; }
root="$dir/root"
kver="$(cat "$dir/kernel-version")"
mods="$root/lib/modules/$kver"

# crc32c_generic first: the softdep "pre: crypto-crc32c" of ext4, jbd2, btrfs and
# libcrc32c (insmod does not read softdeps).
want=(crc32c_generic virtio_pci virtio_blk ext4 xfs btrfs)

declare -A done_
order=()
builtin() { # is the module built into the kernel (modules.builtin; 6.12: virtio_pci)?
  local n="${1//-/_}"
  awk -v n="$n" '{ f = $1; sub(/.*\//, "", f); sub(/\.ko.*/, "", f); gsub(/-/, "_", f); if (f == n) { found = 1; exit } } END { exit !found }' "$mods/modules.builtin"
}
path_of() { # module name -> path relative to $mods
  local n="${1//-/_}" p
  p="$(awk -F: -v n="$n" '{ f = $1; sub(/.*\//, "", f); sub(/\.ko.*/, "", f); gsub(/-/, "_", f); if (f == n) { print $1; exit } }' "$mods/modules.dep")"
  [ -n "$p" ] || { echo "initramfs: module $1 not in modules.dep" >&2; exit 1; }
  echo "$p"
}
visit() { # depth-first: dependencies before the module
  local p="$1" d
  [ -n "${done_[$p]:-}" ] && return
  done_[$p]=1
  for d in $(awk -F': *' -v p="$p" '$1 == p { print $2; exit }' "$mods/modules.dep"); do visit "$d"; done
  order+=("$p")
}
for m in "${want[@]}"; do
  if builtin "$m"; then echo "initramfs: $m is built in"; continue; fi
  visit "$(path_of "$m")"
done

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp"/{bin,proc,sys,dev,mnt,lib/modules}
cp "$root/bin/busybox" "$tmp/bin/busybox"
cp "$here/init.sh" "$tmp/init"
chmod +x "$tmp/init"
: >"$tmp/modules.list"
for p in "${order[@]}"; do
  mkdir -p "$tmp/lib/modules/$(dirname "$p")"
  case "$p" in
    *.ko.xz) xz -dc "$mods/$p" >"$tmp/lib/modules/${p%.xz}"; p="${p%.xz}" ;;
    *) cp "$mods/$p" "$tmp/lib/modules/$p" ;;
  esac
  echo "lib/modules/$p" >>"$tmp/modules.list"
done
(cd "$tmp" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$dir/initramfs.cpio.gz.tmp"
mv "$dir/initramfs.cpio.gz.tmp" "$dir/initramfs.cpio.gz" # atomic: a running matrix may be starting QEMU
echo "initramfs: ${#order[@]} modules: $(tr '\n' ' ' <"$tmp/modules.list" | sed 's#lib/modules/kernel/##g')"
