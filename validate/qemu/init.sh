#!/bin/busybox sh
# /init of the validation initramfs (see validate/README.md). Runs one case, printing on
# the serial console:
#   "H key=value ..."   the case and the guest's settings, as read back from the kernel
#   "S t=<uptime s> ..." one sample per second: /proc/vmstat, bdi stats, block stats
#   "E ..."             events (dd exit, fsync latency, sync time), "END" at the end.
# Parameters come from the kernel command line as wb_NAME=VALUE (set by run-case.sh).
# Work "dd" and "stick" are the first matrix's cases; "mix" (harness 2) runs writers on
# one or two disks with an optional editor, then each writer alone as its control.
/bin/busybox --install -s /bin
echo # the first line after SeaBIOS's "Booting from ROM.." (no newline)
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /tmp
for m in $(cat /modules.list); do insmod "/$m" || echo "H insmod_failed=$m"; done

wb_fs=ext4; wb_dd=1; wb_bs=4k; wb_dirty_bytes=; wb_dirty_ratio=; wb_bg_bytes=; wb_bg_ratio=; wb_run=30; wb_wbt=default
wb_sched=default; wb_work=dd; wb_copy_mb=0; wb_stick_fs=ext4
wb_writers=; wb_editor=; wb_ctl=20; wb_max_ratio=
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
if [ "$wb_work" = stick ] || { [ "$wb_work" = mix ] && [ -b /dev/vdb ]; }; then
  mount -t "$wb_stick_fs" /dev/vdb /mnt/b || { echo "H error=mount_vdb"; poweroff -f; }
fi

# The bdi the filesystem on a disk writes back through: the disk's (major:minor) for
# ext4 and xfs; btrfs has its own (btrfs-N, /sys/fs/btrfs/FSID/bdi; the disk is listed
# in /sys/fs/btrfs/FSID/devices).
fsbdi() { # fsbdi DISK
  for f in /sys/fs/btrfs/*/devices/$1; do
    [ -e "$f" ] && { basename "$(readlink "${f%/devices/*}/bdi")"; return; }
  done
  cat /sys/block/$1/dev
}
echo "H fs_bdi=$(fsbdi vda)"
[ "$wb_work" = mix ] && [ -b /dev/vdb ] && echo "H fs_bdi_vdb=$(fsbdi vdb)"

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
# mix: a bdi's max_ratio (wb_max_ratio=b:1 caps the filesystem on vdb at 1 % of the
# dirty limit), read back.
for r in $(echo "$wb_max_ratio" | tr , ' '); do
  d=vd${r%%:*}
  echo "${r#*:}" >/sys/class/bdi/$(fsbdi $d)/max_ratio
  echo "H max_ratio_$d=$(cat /sys/class/bdi/$(fsbdi $d)/max_ratio)"
done
echo "H fs=$wb_fs mount=$(grep ' /mnt/a ' /proc/mounts | cut -d' ' -f3,4 | tr ' ' ,) work=$wb_work dd=$wb_dd bs=$wb_bs run_s=$wb_run copy_MB=$wb_copy_mb"
if [ "$wb_work" = mix ]; then
  [ -b /dev/vdb ] && echo "H fs_vdb=$wb_stick_fs mount_vdb=$(grep ' /mnt/b ' /proc/mounts | cut -d' ' -f3,4 | tr ' ' ,)"
  echo "H editor=${wb_editor:-none} ctl_s=$wb_ctl"
  i=1
  for w in $(echo "$wb_writers" | tr , ' '); do
    m=${w%%:*}; w=${w#*:}; bs=${w%%:*}; mb=0
    [ "$w" != "$bs" ] && mb=${w#*:}
    echo "H writer=w$i on=vd$m bs=$bs count_MiB=$mb"
    i=$((i + 1))
  done
fi
sync
echo 3 >$vm/drop_caches

# The CPU time (utime + stime, USER_HZ ticks) of each mix writer's dd so far, as
# "wN TICKS ..." (mix_writers keeps each dd's pid in /tmp/wN.pid).
ddcpu() {
  local f
  for f in /tmp/w[0-9]*.pid; do
    [ -f "$f" ] || continue
    awk -v o="$(basename "$f" .pid)" '{print o, $14 + $15}' "/proc/$(cat "$f")/stat" 2>/dev/null
  done | tr '\n' ' '
}

# One sample: vmstat counters (pages), the guest's CPU ticks (cpu_busy: user, nice,
# system, irq, softirq; cpu_all: those plus idle and iowait, all CPUs), each bdi's
# debugfs stats (kB), each disk's stat, each mix writer's bytes and CPU ticks.
sample() {
  awk -v t="$(now)" -v dd="$(stat -c '%n %s' /mnt/a/w[0-9]* /mnt/b/w[0-9]* 2>/dev/null | tr '\n' ' ')" -v ddcpu="$(ddcpu)" '
    FILENAME == "/proc/stat" {
      if ($1 == "cpu") { busy = $2 + $3 + $4 + $7 + $8; v = v " cpu_busy=" busy " cpu_all=" (busy + $5 + $6) }
      next
    }
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
    END {
      # mix: the bytes each writer wrote so far (the size of its file), as dd parts
      n = split(ddcpu, c, " ")
      for (i = 1; i + 1 <= n; i += 2) cpu[c[i]] = c[i + 1]
      n = split(dd, f, " ")
      for (i = 1; i + 1 <= n; i += 2) {
        k = split(f[i], p, "/"); d = d " | dd " p[k] " bytes=" f[i + 1]
        if (p[k] in cpu) d = d " cpu_ticks=" cpu[p[k]]
      }
      print "S t=" t v b d
    }
  ' /proc/stat /proc/vmstat /sys/kernel/debug/bdi/*/stats $(for d in $disks; do echo /sys/block/$d/stat; done)
}

# One sample a second: each sleep ends one second after the previous sample's start,
# so the time a sample takes does not stretch the period (a sample that took longer
# than a second is followed by the next at once, then the schedule restarts).
sampler() {
  local t0
  while :; do
    t0=$(now)
    sample
    sleep "$(awk -v a="$t0" -v t="$(now)" 'BEGIN{d = a + 1 - t; if (d < 0.01) d = 0.01; printf "%.2f", d}')"
  done
}

start=$(now)
echo "E start t=$start"
sampler &
spid=$!
# The sampler runs at nice -15 so that the writers (TCG makes the guest CPU slow) do
# not stretch its one-second period.
renice -n -15 -p $spid >/dev/null

pids=""
# mix_writers PHASE all|N: start all writers (or writer N alone) of wb_writers.
mix_writers() {
  local i=1 w m bs mb b
  echo "E phase name=$1 t=$(now)"
  for w in $(echo "$wb_writers" | tr , ' '); do
    if [ "$2" = all ] || [ "$2" = "$i" ]; then
      m=${w%%:*}; w=${w#*:}; bs=${w%%:*}; mb=0
      [ "$w" != "$bs" ] && mb=${w#*:}
      case "$bs" in *k) b=$((${bs%k} * 1024)) ;; *M) b=$((${bs%M} * 1048576)) ;; *) b=$bs ;; esac
      ( if [ "$mb" -gt 0 ]; then
          dd if=/dev/zero of=/mnt/$m/w$i bs=$bs count=$((mb * 1048576 / b)) 2>/dev/null &
        else
          dd if=/dev/zero of=/mnt/$m/w$i bs=$bs 2>/dev/null &
        fi
        echo $! >/tmp/w$i.pid
        wait $!
        rc=$?
        echo "E dd_exit w=w$i t=$(now) rc=$rc" ) &
      mpids="$mpids $!"
    fi
    i=$((i + 1))
  done
}
# mix_wait SECONDS: let the writers run, kill those still running, wait for all exits.
mix_wait() {
  sleep "$1"
  echo "E kill t=$(now)"
  for f in /tmp/w[0-9]*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
  [ -n "$mpids" ] && wait $mpids 2>/dev/null
  rm -f /tmp/w[0-9]*.pid
  mpids=""
}
# editor: the mix's editor, a save (4 KiB written and fsynced) on /mnt/wb_editor once a
# second, each save's latency an "E fsync" line.
editor() {
  local j=0 t0 t1
  while :; do
    t0=$(now)
    dd if=/dev/zero of=/mnt/$wb_editor/edit bs=4k count=1 conv=fsync,notrunc 2>/dev/null
    t1=$(now)
    echo "E fsync j=$j t=$t0 latency_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b - a}')"
    j=$((j + 1))
    sleep 1
  done
}
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
  mix)
    # Each writer wN (wb_writers: MOUNT:BS[:MiB], a = vda, b = vdb) is a dd of
    # /dev/zero to /mnt/MOUNT/wN, killed after wb_run s (or done after MiB). Its
    # subshell prints "E dd_exit" when dd has exited, so the time from the kill to the
    # exit is measured. The editor (wb_editor=a|b) writes 4 KiB and fsyncs it once a
    # second through the run and the final sync.
    mix_writers "main" all
    [ -n "$wb_editor" ] && { editor & epid=$!; }
    mix_wait "$wb_run"
    t0=$(now)
    sync
    echo "E sync t=$t0 sync_s=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.2f", b - a}')"
    [ -n "$epid" ] && kill $epid 2>/dev/null
    for f in /mnt/a/w[0-9]* /mnt/b/w[0-9]*; do [ -f "$f" ] && echo "E file $f bytes=$(stat -c %s "$f")"; done
    rm -f /mnt/a/w[0-9]* /mnt/b/w[0-9]* /mnt/a/edit /mnt/b/edit
    # The controls: each writer alone for wb_ctl s on the same disks and settings. Its
    # file is removed after the kill, which drops its dirty pages without writing
    # them; the sync between controls writes what little is left.
    i=1
    for w in $(echo "$wb_writers" | tr , ' '); do
      [ "$wb_ctl" -gt 0 ] || break
      sync
      echo 3 >$vm/drop_caches
      mix_writers "ctl-w$i" "$i"
      mix_wait "$wb_ctl"
      rm -f /mnt/a/w[0-9]* /mnt/b/w[0-9]*
      i=$((i + 1))
    done
    # The editor's control: its saves alone, on the same disk, for wb_ctl s.
    if [ -n "$wb_editor" ] && [ "$wb_ctl" -gt 0 ]; then
      sync
      echo 3 >$vm/drop_caches
      echo "E phase name=ctl-editor t=$(now)"
      editor &
      epid=$!
      sleep "$wb_ctl"
      echo "E kill t=$(now)"
      kill $epid 2>/dev/null
    fi
    ;;
esac
sample
kill $spid 2>/dev/null
echo "END t=$(now)"
poweroff -f
