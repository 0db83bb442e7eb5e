#!/usr/bin/env bash
# setup.sh: fetch what the QEMU harness needs into validate/.cache (gitignored).
# Installs qemu-system-x86, xfsprogs, btrfs-progs, e2fsprogs, kmod and cpio from Debian;
# downloads linux-image-amd64 (and the versioned image it depends on) and busybox-static
# and unpacks them with dpkg-deb -x, without installing them; runs depmod on the unpacked
# tree (the .deb ships no modules.dep: apt's postinst makes it).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${WBLAB_VALIDATE_CACHE:-$here/../.cache}"
mkdir -p "$cache/debs"
cache="$(cd "$cache" && pwd)"

need=()
for p in qemu-system-x86 xfsprogs btrfs-progs e2fsprogs kmod cpio; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${need[@]}"
fi

cd "$cache/debs"
if ! ls linux-image-amd64_*.deb >/dev/null 2>&1; then apt-get download linux-image-amd64; fi
if ! ls busybox-static_*.deb >/dev/null 2>&1; then apt-get download busybox-static; fi
img="$(dpkg-deb -f linux-image-amd64_*.deb Depends | grep -o 'linux-image-[0-9][^ ,]*-amd64' | head -1)"
if ! ls "${img}"_*.deb >/dev/null 2>&1; then apt-get download "$img"; fi

root="$cache/root"
if [ ! -d "$root/boot" ]; then
  rm -rf "$root.tmp" && mkdir -p "$root.tmp"
  for d in "${img}"_*.deb busybox-static_*.deb; do dpkg-deb -x "$d" "$root.tmp"; done
  mv "$root.tmp" "$root"
fi
kver="${img#linux-image-}"
[ -f "$root/lib/modules/$kver/modules.dep" ] || depmod -b "$root" "$kver"
echo "$kver" >"$cache/kernel-version"
echo "kernel $kver, busybox $("$root/bin/busybox" | head -1 | awk '{print $2}'), $(qemu-system-x86_64 --version | head -1)"
