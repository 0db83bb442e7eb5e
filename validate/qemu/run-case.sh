#!/usr/bin/env bash
# run-case.sh: boot the Debian 6.1 kernel under QEMU (TCG) for one case and write its
# serial console to a log (validate/README.md describes the options and the log).
#
#   run-case.sh --out LOG [--fs ext4|xfs|btrfs] [--dd N] [--bs SIZE] [--dirty-bytes N]
#               [--dirty-ratio N] [--bg-ratio N] [--bg-bytes N] [--run SECONDS]
#               [--bw BYTES/S] [--wbt default|off|USEC] [--sched default|none|mq-deadline]
#               [--mem MiB] [--smp N] [--stick BYTES/S --copy-mb N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$(cd "${WBLAB_VALIDATE_CACHE:-$here/../.cache}" && pwd)"

fs=ext4 dd=1 bs=4k dirty_bytes= dirty_ratio= bg_ratio=10 bg_bytes= run=30 bw=$((40 << 20))
wbt=default sched=default mem=4096 smp=1 stick= copy_mb=0 out= img_mb=4096 accel=tcg
while [ $# -gt 0 ]; do
  case "$1" in
    --fs) fs="$2" ;; --dd) dd="$2" ;; --bs) bs="$2" ;;
    --dirty-bytes) dirty_bytes="$2" ;; --dirty-ratio) dirty_ratio="$2" ;;
    --bg-ratio) bg_ratio="$2" ;; --bg-bytes) bg_bytes="$2"; bg_ratio= ;;
    --run) run="$2" ;; --bw) bw="$2" ;; --wbt) wbt="$2" ;; --sched) sched="$2" ;;
    --mem) mem="$2" ;; --smp) smp="$2" ;; --stick) stick="$2" ;; --copy-mb) copy_mb="$2" ;;
    --out) out="$2" ;; --accel) accel="$2" ;;
    *) echo "run-case: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
cpu=max # TCG; KVM did not boot on this machine (nested, MSR 0x10a)
[ -n "$out" ] || { echo "run-case: --out LOG is required" >&2; exit 2; }
[ -z "$dirty_bytes" ] && [ -z "$dirty_ratio" ] && dirty_bytes=$((100 << 20))
case "$fs" in ext4|xfs|btrfs) ;; *) echo "run-case: --fs must be ext4, xfs or btrfs" >&2; exit 2 ;; esac

kver="$(cat "$cache/kernel-version")"
[ -f "$cache/initramfs.cpio.gz" ] || "$here/initramfs.sh"

# A pre-written image: every block allocated on the host once (dd from /dev/zero, not a
# sparse file), so the host's block allocation stays out of the guest's I/O path. mkfs
# runs with discard off, which on a regular file would punch holes into it again.
image() { # image PATH
  local f="$1" want=$((img_mb << 20))
  if [ ! -f "$f" ] || [ "$(stat -c %s "$f")" -ne "$want" ] || [ $(($(stat -c %b "$f") * 512)) -lt "$want" ]; then
    dd if=/dev/zero of="$f" bs=1M count="$img_mb" conv=fsync status=none
  fi
}
mkfs_() { # mkfs_ FS PATH: a fresh filesystem, nothing left to lazy init
  case "$1" in
    ext4) mkfs.ext4 -F -q -E lazy_itable_init=0,lazy_journal_init=0,nodiscard "$2" ;;
    xfs) mkfs.xfs -f -q -K "$2" ;;
    btrfs) mkfs.btrfs -f -q -K "$2" >/dev/null ;;
  esac
  local alloc=$(($(stat -c %b "$2") * 512)) size
  size=$(stat -c %s "$2")
  [ "$alloc" -ge "$size" ] || { echo "run-case: $2 became sparse after mkfs ($alloc of $size bytes)" >&2; exit 1; }
}

disk_opts() { # disk_opts PATH BPS: raw virtio disk, host O_DIRECT, guest flushes ignored
  echo "file=$1,if=virtio,format=raw,aio=threads,cache.direct=on,cache.no-flush=on,throttling.bps-write=$2"
}

image "$cache/disk0.img"
mkfs_ "$fs" "$cache/disk0.img"
drives=(-drive "$(disk_opts "$cache/disk0.img" "$bw")")
work=dd
if [ -n "$stick" ]; then
  image "$cache/disk1.img"
  mkfs_ ext4 "$cache/disk1.img"
  drives+=(-drive "$(disk_opts "$cache/disk1.img" "$stick")")
  work=stick
fi

append="console=ttyS0 quiet panic=-1 wb_fs=$fs wb_dd=$dd wb_bs=$bs wb_run=$run wb_wbt=$wbt wb_sched=$sched wb_work=$work wb_copy_mb=$copy_mb"
[ -n "$dirty_bytes" ] && append+=" wb_dirty_bytes=$dirty_bytes"
[ -n "$dirty_ratio" ] && append+=" wb_dirty_ratio=$dirty_ratio"
[ -n "$bg_ratio" ] && append+=" wb_bg_ratio=$bg_ratio"
[ -n "$bg_bytes" ] && append+=" wb_bg_bytes=$bg_bytes"

mkdir -p "$(dirname "$out")"
{
  echo "H harness=wblab-validate/1 date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "H qemu=$(qemu-system-x86_64 --version | head -1 | awk '{print $4}') accel=$accel smp=$smp mem_MiB=$mem host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' | tr ' ' _) host_cpus=$(nproc) host_kernel=$(uname -r)"
  echo "H debian_kernel=$kver cache=direct,no-flush throttle_bps_write_vda=$bw throttle_bps_write_vdb=${stick:-none} case_args=$(printf '%s' "$append" | sed 's/^console=ttyS0 quiet panic=-1 //' | tr ' ' ,)"
} >"$out"
start=$(date +%s.%N)
# The console goes straight into the log (the parser drops the \r). Once the guest
# printed END, QEMU is killed: on a normal exit it would first drain the requests
# still queued in its write throttle, at the throttled rate (minutes after a 1 GB case).
qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m "$mem" \
  -nographic -no-reboot -nodefaults -serial stdio \
  -kernel "$cache/root/boot/vmlinuz-$kver" -initrd "$cache/initramfs.cpio.gz" \
  -append "$append" "${drives[@]}" </dev/null >>"$out" 2>&1 &
qpid=$!
deadline=$(($(date +%s) + run + 600))
while kill -0 "$qpid" 2>/dev/null; do
  if grep -q '^END' "$out" || [ "$(date +%s)" -gt "$deadline" ]; then
    sleep 1
    kill -9 "$qpid" 2>/dev/null || true
    break
  fi
  sleep 1
done
wait "$qpid" 2>/dev/null || true
echo "H host_wall_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}')" >>"$out"
grep -q '^END' "$out" || { echo "run-case: no END in $out" >&2; exit 1; }
