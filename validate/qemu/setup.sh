#!/usr/bin/env bash
# setup.sh [KERNEL]: fetch what the QEMU harness needs into validate/.cache (gitignored).
# Installs qemu-system-x86, xfsprogs, btrfs-progs, e2fsprogs, kmod and cpio from Debian;
# downloads a kernel image and busybox-static with apt-get download and unpacks them with
# dpkg-deb -x, without installing them; runs depmod on the unpacked tree (the .deb ships
# no modules.dep: apt's postinst makes it).
#
# KERNEL (default 6.1) selects the image:
#   6.1    the versioned linux-image-6.1.0-*-amd64 that Debian 12's linux-image-amd64
#          depends on (the references so far: 6.1.0-57-amd64, package 6.1.192-3)
#   6.12   the linux-image-6.12.*+deb12-amd64 that linux-image-6.12-amd64 depends on
#   linux-image-...-amd64   that exact package
# Each goes into .cache/kernel-SERIES/ (root/, kernel-version, package, initramfs);
# run-case.sh --kernel SERIES boots it.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${WBLAB_VALIDATE_CACHE:-$here/../.cache}"
mkdir -p "$cache/debs"
cache="$(cd "$cache" && pwd)"
want="${1:-6.1}"

need=()
for p in qemu-system-x86 xfsprogs btrfs-progs e2fsprogs kmod cpio xz-utils; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q -o DPkg::Lock::Timeout=900
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=900 --no-install-recommends "${need[@]}"
fi

cd "$cache/debs"
get() { ls "$1"_*.deb >/dev/null 2>&1 || apt-get download "$1"; }
case "$want" in
  6.1) meta=linux-image-amd64 ;;
  6.12) meta=linux-image-6.12-amd64 ;;
  linux-image-*-amd64) meta= img="$want" ;;
  *) echo "setup: KERNEL is 6.1, 6.12 or a linux-image-...-amd64 package" >&2; exit 2 ;;
esac
if [ -n "$meta" ]; then
  get "$meta"
  img="$(dpkg-deb -f "$(ls "$meta"_*.deb | tail -1)" Depends | grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -1)"
fi
get "$img"
get busybox-static
kver="${img#linux-image-}"
series="$(echo "$kver" | cut -d. -f1,2)"
deb="$(ls "${img}"_*.deb | tail -1)"

dir="$cache/kernel-$series"
root="$dir/root"
if [ ! -f "$dir/kernel-version" ] || [ "$(cat "$dir/kernel-version")" != "$kver" ]; then
  rm -rf "$dir" "$dir.tmp" && mkdir -p "$dir.tmp/root"
  for d in "$deb" busybox-static_*.deb; do dpkg-deb -x "$d" "$dir.tmp/root"; done
  depmod -b "$dir.tmp/root" "$kver"
  echo "$kver" >"$dir.tmp/kernel-version"
  dpkg-deb -f "$deb" Package Version | awk '{print $2}' | paste -sd' ' >"$dir.tmp/package"
  mv "$dir.tmp" "$dir"
fi
echo "kernel $kver (package $(cat "$dir/package")) in $dir, busybox $("$root/bin/busybox" | head -1 | awk '{print $2}'), $(qemu-system-x86_64 --version | head -1)"
