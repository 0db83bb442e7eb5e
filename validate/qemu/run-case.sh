#!/usr/bin/env bash
# run-case.sh: boot a Debian kernel under QEMU (TCG) for one case and write its serial
# console to a log (validate/README.md describes the options and the log).
#
#   run-case.sh --out LOG [--kernel 6.1|6.12] [--fs ext4|xfs|btrfs] [--dd N] [--bs SIZE]
#               [--dirty-bytes N] [--dirty-ratio N] [--bg-ratio N] [--bg-bytes N]
#               [--run SECONDS] [--bw BYTES/S] [--wbt default|off|USEC]
#               [--sched default|none|mq-deadline] [--mem MiB] [--smp N]
#               [--stick BYTES/S --copy-mb N]
#   harness 2 (work "mix"): --writers a:1M[,b:1M[:MiB]] [--editor a|b] [--disk2 BYTES/S]
#               [--fs2 FS] [--ctl SECONDS] [--max-ratio b:PCT] [--kernel-defaults]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="$(cd "${WBLAB_VALIDATE_CACHE:-$here/../.cache}" && pwd)"

fs=ext4 dd=1 bs=4k dirty_bytes= dirty_ratio= bg_ratio=10 bg_bytes= run=30 bw=$((40 << 20))
wbt=default sched=default mem=4096 smp=1 stick= copy_mb=0 out= accel=tcg kernel=6.1
writers= editor= disk2= fs2=ext4 ctl=20 max_ratio= kdefaults=
while [ $# -gt 0 ]; do
  case "$1" in
    --fs) fs="$2" ;; --dd) dd="$2" ;; --bs) bs="$2" ;;
    --dirty-bytes) dirty_bytes="$2" ;; --dirty-ratio) dirty_ratio="$2" ;;
    --bg-ratio) bg_ratio="$2" ;; --bg-bytes) bg_bytes="$2"; bg_ratio= ;;
    --run) run="$2" ;; --bw) bw="$2" ;; --wbt) wbt="$2" ;; --sched) sched="$2" ;;
    --mem) mem="$2" ;; --smp) smp="$2" ;; --stick) stick="$2" ;; --copy-mb) copy_mb="$2" ;;
    --out) out="$2" ;; --accel) accel="$2" ;; --kernel) kernel="$2" ;;
    --writers) writers="$2" ;; --editor) editor="$2" ;; --disk2) disk2="$2" ;; --fs2) fs2="$2" ;;
    --ctl) ctl="$2" ;; --max-ratio) max_ratio="$2" ;;
    --kernel-defaults) kdefaults=1; bg_ratio=; shift; continue ;;
    *) echo "run-case: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
cpu=max # TCG; KVM did not boot on this machine (nested, MSR 0x10a)
[ -n "$out" ] || { echo "run-case: --out LOG is required" >&2; exit 2; }
# --kernel-defaults keeps the kernel's dirty sysctls (dirty_ratio 20, background 10)
[ -z "$kdefaults" ] && [ -z "$dirty_bytes" ] && [ -z "$dirty_ratio" ] && dirty_bytes=$((100 << 20))
for f in "$fs" "$fs2"; do
  case "$f" in ext4|xfs|btrfs) ;; *) echo "run-case: --fs and --fs2 must be ext4, xfs or btrfs" >&2; exit 2 ;; esac
done

# One case at a time per cache: the disk images are shared (and QEMU would refuse a
# locked image only after mkfs had rewritten it).
exec 9>"$cache/run-case.lock"
flock -n 9 || { echo "run-case: another run-case.sh is using $cache" >&2; exit 3; }

kdir="$cache/kernel-$kernel"
[ -f "$kdir/kernel-version" ] || { echo "run-case: no $kdir: run validate/qemu/setup.sh $kernel" >&2; exit 2; }
kver="$(cat "$kdir/kernel-version")"
[ -f "$kdir/initramfs.cpio.gz" ] || "$here/initramfs.sh" "$kernel"

# A pre-written image: every block allocated on the host once (dd from /dev/zero, not a
# sparse file), so the host's block allocation stays out of the guest's I/O path. mkfs
# runs with discard off, which on a regular file would punch holes into it again.
# A disk's image holds what its writers can write in the run and a control: the rate
# times (run + 30 s), at least 2 GiB, in whole GiB (the final sync writes what the
# kill left dirty; btrfs needs room for its metadata).
img_mb() { # img_mb BYTES/S
  local mb=$(($1 * (run + 30) >> 20))
  [ "$mb" -lt 2048 ] && mb=2048
  echo $(((mb + 1023) / 1024 * 1024))
}
image() { # image PATH MiB
  local f="$1" img_mb="$2" want=$(($2 << 20))
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

# The first matrix's images were 4 GiB; harness 2 sizes them by rate. Each size has
# its own file (diskN-SIZEM.img), kept in the cache, so that cases of different rates
# neither rewrite an image nor run on a filesystem of another size.
if [ -n "$writers" ]; then m0=$(img_mb "$bw"); else m0=4096; fi
img0="$cache/disk0-${m0}M.img"
image "$img0" "$m0"
mkfs_ "$fs" "$img0"
drives=(-drive "$(disk_opts "$img0" "$bw")")
work=dd
if [ -n "$writers" ]; then
  # mix: vdb is --disk2 (a second fast disk) or --stick (a slow one), with --fs2
  work=mix
  [ -n "$disk2" ] || disk2="$stick"
  stick="$disk2"
  if [ -n "$disk2" ]; then
    m1=$(img_mb "$disk2")
    img1="$cache/disk1-${m1}M.img"
    image "$img1" "$m1"
    mkfs_ "$fs2" "$img1"
    drives+=(-drive "$(disk_opts "$img1" "$disk2")")
  fi
  n=$(echo "$writers" | tr , '\n' | wc -l)
  bs=$(echo "$writers" | cut -d, -f1 | cut -d: -f2)
  dd=$n
elif [ -n "$stick" ]; then
  img1="$cache/disk1-4096M.img"
  image "$img1" 4096
  mkfs_ ext4 "$img1"
  drives+=(-drive "$(disk_opts "$img1" "$stick")")
  work=stick
fi

append="console=ttyS0 quiet panic=-1 wb_fs=$fs wb_dd=$dd wb_bs=$bs wb_run=$run wb_wbt=$wbt wb_sched=$sched wb_work=$work wb_copy_mb=$copy_mb"
[ -n "$dirty_bytes" ] && append+=" wb_dirty_bytes=$dirty_bytes"
[ -n "$dirty_ratio" ] && append+=" wb_dirty_ratio=$dirty_ratio"
[ -n "$bg_ratio" ] && append+=" wb_bg_ratio=$bg_ratio"
[ -n "$bg_bytes" ] && append+=" wb_bg_bytes=$bg_bytes"
if [ "$work" = mix ]; then
  append+=" wb_writers=$writers wb_ctl=$ctl wb_stick_fs=$fs2"
  [ -n "$editor" ] && append+=" wb_editor=$editor"
  [ -n "$max_ratio" ] && append+=" wb_max_ratio=$max_ratio"
fi

mkdir -p "$(dirname "$out")"
{
  if [ "$work" = mix ]; then h=2; else h=1; fi
  echo "H harness=wblab-validate/$h date=$(date -u +%Y-%m-%dT%H:%M:%SZ) host_load_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)"
  echo "H debian_kernel_package=$(cut -d' ' -f1 "$kdir/package") debian_kernel_version=$(cut -d' ' -f2 "$kdir/package")"
  echo "H qemu=$(qemu-system-x86_64 --version | head -1 | awk '{print $4}') accel=$accel smp=$smp mem_MiB=$mem host_cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//' | tr ' ' _) host_cpus=$(nproc) host_kernel=$(uname -r)"
  echo "H debian_kernel=$kver cache=direct,no-flush throttle_bps_write_vda=$bw throttle_bps_write_vdb=${stick:-none} case_args=$(printf '%s' "$append" | sed 's/^console=ttyS0 quiet panic=-1 //' | tr ' ' ,)"
} >"$out"
start=$(date +%s.%N)
# The console goes straight into the log (the parser drops the \r). Once the guest
# printed END, QEMU is killed: on a normal exit it would first drain the requests
# still queued in its write throttle, at the throttled rate (minutes after a 1 GB case).
qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m "$mem" \
  -nographic -no-reboot -nodefaults -serial stdio \
  -kernel "$kdir/root/boot/vmlinuz-$kver" -initrd "$kdir/initramfs.cpio.gz" \
  -append "$append" "${drives[@]}" </dev/null >>"$out" 2>&1 &
qpid=$!
deadline=$(($(date +%s) + run + 3 * ctl + 900))
while kill -0 "$qpid" 2>/dev/null; do
  if grep -q '^END' "$out" || [ "$(date +%s)" -gt "$deadline" ]; then
    sleep 1
    kill -9 "$qpid" 2>/dev/null || true
    break
  fi
  sleep 1
done
wait "$qpid" 2>/dev/null || true
echo "H host_wall_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b - a}') host_load_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ,)" >>"$out"
grep -q '^END' "$out" || { echo "run-case: no END in $out" >&2; exit 1; }
