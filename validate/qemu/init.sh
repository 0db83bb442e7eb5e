#!/bin/busybox sh
# /init of the validation initramfs (see validate/README.md). Runs one case, printing on
# the serial console:
#   "H key=value ..."   the case and the guest's settings, as read back from the kernel
#   "S t=<uptime s> ..." one sample per second: /proc/vmstat, bdi stats, block stats
#   "E ..."             events (dd exit, fsync latency, sync time), "END" at the end.
# Parameters come from the kernel command line as wb_NAME=VALUE (set by run-case.sh).
/bin/busybox --install -s /bin
echo # the first line after SeaBIOS's "Booting from ROM.." (no newline)
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
for m in $(cat /modules.list); do insmod "/$m" || echo "H insmod_failed=$m"; done

wb_fs=ext4; wb_dd=1; wb_bs=4k; wb_dirty_bytes=; wb_dirty_ratio=; wb_bg_bytes=; wb_bg_ratio=; wb_run=30; wb_wbt=default
wb_sched=default; wb_work=dd; wb_copy_mb=0; wb_stick_fs=ext4
for w in $(cat /proc/cmdline); do
  case "$w" in wb_*=*) eval "$w" ;; esac
done

now() { read -r up _ </proc/uptime; echo "$up"; }

# Wait for the disks (virtio_blk probes asynchronously).
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
disks="vda"
[ -b /dev/vdb ] && disks="vda vdb"

mkdir -p /mnt/a /mnt/b
mount -t "$wb_fs" /dev/vda /mnt/a || { echo "H error=mount_vda"; poweroff -f; }
if [ "$wb_work" = stick ]; then
  mount -t "$wb_stick_fs" /dev/vdb /mnt/b || { echo "H error=mount_vdb"; poweroff -f; }
fi

# The bdi the filesystem on vda writes back through: the disk's (major:minor) for ext4
# and xfs; btrfs has its own (btrfs-N, /sys/fs/btrfs/FSID/bdi).
fs_bdi=$(cat /sys/block/vda/dev)
for f in /sys/fs/btrfs/*/bdi; do [ -e "$f" ] && fs_bdi=$(basename "$(readlink "$f")"); done
echo "H fs_bdi=$fs_bdi"

for d in $disks; do
  q=/sys/block/$d/queue
  [ "$wb_sched" != default ] && echo "$wb_sched" >$q/scheduler
  case "$wb_wbt" in
    off) echo 0 >$q/wbt_lat_usec ;;
    default) ;;
    *) echo "$wb_wbt" >$q/wbt_lat_usec ;;
  esac
  echo "H disk=$d dev=$(cat /sys/block/$d/dev) sched=$(sed 's/.*\[\(.*\)\].*/\1/' $q/scheduler) wbt_lat_usec=$(cat $q/wbt_lat_usec) rotational=$(cat $q/rotational) write_cache=$(cat $q/write_cache | tr ' ' _) nr_requests=$(cat $q/nr_requests) max_sectors_kb=$(cat $q/max_sectors_kb) nr_hw_queues=$(ls /sys/block/$d/mq | wc -l)"
done

# The dirty sysctls. Writing dirty_bytes zeroes dirty_ratio (and writing dirty_ratio
# zeroes dirty_bytes), so the ratio/bytes pair is written in that order and read back.
vm=/proc/sys/vm
[ -n "$wb_bg_ratio" ] && echo "$wb_bg_ratio" >$vm/dirty_background_ratio
[ -n "$wb_bg_bytes" ] && echo "$wb_bg_bytes" >$vm/dirty_background_bytes
[ -n "$wb_dirty_ratio" ] && echo "$wb_dirty_ratio" >$vm/dirty_ratio
[ -n "$wb_dirty_bytes" ] && echo "$wb_dirty_bytes" >$vm/dirty_bytes
echo "H kernel=$(uname -r) cpus=$(nproc) mem_total_kB=$(awk '/^MemTotal/{print $2}' /proc/meminfo) dirty_bytes=$(cat $vm/dirty_bytes) dirty_ratio=$(cat $vm/dirty_ratio) dirty_background_bytes=$(cat $vm/dirty_background_bytes) dirty_background_ratio=$(cat $vm/dirty_background_ratio) dirty_expire_centisecs=$(cat $vm/dirty_expire_centisecs) dirty_writeback_centisecs=$(cat $vm/dirty_writeback_centisecs)"
echo "H fs=$wb_fs mount=$(grep ' /mnt/a ' /proc/mounts | cut -d' ' -f3,4 | tr ' ' ,) work=$wb_work dd=$wb_dd bs=$wb_bs run_s=$wb_run copy_MB=$wb_copy_mb"
sync
echo 3 >$vm/drop_caches

# One sample: vmstat counters (pages), each bdi's debugfs stats (kB), each disk's stat.
sample() {
  awk -v t="$(now)" '
    FILENAME == "/proc/vmstat" {
      if ($1 == "nr_dirty" || $1 == "nr_writeback" || $1 == "nr_dirty_threshold" ||
          $1 == "nr_dirty_background_threshold" || $1 == "nr_written" || $1 == "nr_dirtied" ||
          $1 == "nr_file_pages" || $1 == "nr_free_pages")
        v = v " " $1 "=" $2
      next
    }
    FILENAME ~ /debug\/bdi/ {
      n = split(FILENAME, p, "/")
      if (p[n - 1] != last) { b = b " | bdi " p[n - 1]; last = p[n - 1] }
      if ($1 ~ /^Bdi/ || $1 == "DirtyThresh:" || $1 == "BackgroundThresh:") {
        k = $1; sub(":", "", k); b = b " " k "=" $2
      }
      next
    }
    FILENAME ~ /\/stat$/ {
      n = split(FILENAME, p, "/")
      # reads, read sectors, writes, write merges, write sectors, write ticks, in flight,
      # io_ticks (ms busy)
      d = d " | blk " p[n - 1] " r=" $1 " rsect=" $3 " w=" $5 " wmerge=" $6 " wsect=" $7 " wticks=" $8 " inflight=" $9 " ioticks=" $10
    }
    END { print "S t=" t v b d }
  ' /proc/vmstat /sys/kernel/debug/bdi/*/stats $(for d in $disks; do echo /sys/block/$d/stat; done)
}

sampler() {
  while :; do sample; sleep 1; done
}

start=$(now)
echo "E start t=$start"
sampler &
spid=$!
# The sampler runs at nice -15 so that the writers (TCG makes the guest CPU slow) do
# not stretch its one-second period.
renice -n -15 -p $spid >/dev/null

pids=""
case "$wb_work" in
  dd)
    i=1
    while [ $i -le "$wb_dd" ]; do
      dd if=/dev/zero of=/mnt/a/dd$i bs="$wb_bs" 2>/dev/null &
      pids="$pids $!"
      i=$((i + 1))
    done
    sleep "$wb_run"
    kill $pids 2>/dev/null
    wait $pids 2>/dev/null
    echo "E dd_killed t=$(now)"
    for f in /mnt/a/dd*; do echo "E file $f bytes=$(stat -c %s $f)"; done
    ;;
  stick)
    # The copier writes wb_copy_mb MiB to the slow disk; the editor writes 4 KiB to
    # the fast disk and fsyncs it once a second; then sync is timed.
    ( dd if=/dev/zero of=/mnt/b/copy bs=1M count="$wb_copy_mb" 2>/dev/null
      echo "E copier_exit t=$(now)" ) &
    cpid=$!
    ( j=0
      while :; do
        t0=$(now)
        dd if=/dev/zero of=/mnt/a/edit bs=4k count=1 conv=fsync,notrunc 2>/dev/null
        t1=$(now)
        echo "E fsync j=$j t=$t0 latency_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')"
        j=$((j + 1))
        sleep 1
      done ) &
    epid=$!
    wait $cpid
    t0=$(now)
    sync
    t1=$(now)
    echo "E sync t=$t0 sync_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b - a}')"
    kill $epid 2>/dev/null
    ;;
esac
sample
kill $spid 2>/dev/null
echo "END t=$(now)"
poweroff -f
