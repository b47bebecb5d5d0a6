#!/usr/bin/env bash
# The disksched demo: ext4 on an emulated HP 97560 disk, scheduled first by FCFS, then
# by ASATF(30) (Jacobson & Wilkes' aged shortest-access-time-first), under the same
# file workload (four readers, four writers); the two latency summaries side by side.
#
#   tools/demo.sh [--timescale F] [--runtime SECONDS] [--keep] [--build DIR]
#
# Installs and builds first (tools/setup.sh; --build DIR uses an existing build
# directory instead, without installing). Needs root (mounts, loop devices). The disk
# runs at `timescale` times real time (default 0.2: five times faster than the 1991
# disk) so the demo takes about two minutes; latencies are reported in the disk's own
# time. Ctrl-C cleans up.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
timescale=0.2
runtime=30
keep=0
build=""
while [ $# -gt 0 ]; do
  case $1 in
    --timescale) timescale=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --build) build=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo: unknown option '$1' (valid: --timescale F, --runtime SECONDS, --keep, --build DIR)" >&2; exit 1 ;;
  esac
done

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
die() { echo "demo: $*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root (it mounts file systems and uses loop devices)"

if [ -z "$build" ]; then
  say "Installing and building (tools/setup.sh)"
  "$here/tools/setup.sh"
  build="$here/build"
fi
filter="$build/daemon/filter/nbdkit-disksched-filter.so"
diskemu="$build/emulator/diskemu/nbdkit-diskemu-plugin.so"
disksched="$build/tools/disksched"
for f in "$filter" "$diskemu" "$disksched"; do [ -e "$f" ] || die "not built: $f"; done
export PATH=/usr/bin:/usr/sbin:/bin:/sbin:$PATH

work=$(mktemp -d /tmp/disksched-demo.XXXXXX)
sock="$work/nbd.sock"
ctl="$work/ctl.sock"
nbdkit_pid="" nbd_dev="" fusectl_mounted=0 parts=0
fuse_pids=() loops=() mounts=()

cleanup() {
  set +e
  local m l i
  for m in "${mounts[@]}"; do mountpoint -q "$m" && umount "$m"; done
  mounts=()
  for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null; done
  loops=()
  [ -n "$nbd_dev" ] && nbd-client -d "$nbd_dev" >/dev/null 2>&1
  nbd_dev=""
  for i in "${!fuse_pids[@]}"; do
    mountpoint -q "$work/fuse$i" && fusermount3 -u "$work/fuse$i"
    wait "${fuse_pids[$i]}" 2>/dev/null
  done
  fuse_pids=()
  if [ -n "$nbdkit_pid" ] && kill -0 "$nbdkit_pid" 2>/dev/null; then
    kill "$nbdkit_pid"
    for _ in $(seq 100); do kill -0 "$nbdkit_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  nbdkit_pid=""
  set -e
}
on_exit() {
  cleanup
  [ "$fusectl_mounted" = 1 ] && umount /sys/fs/fuse/connections 2>/dev/null
  if [ "$keep" = 1 ]; then echo "demo: logs kept in $work"; else rm -rf "$work"; fi
}
trap on_exit EXIT
trap 'echo; echo "demo: interrupted, cleaning up"; exit 130' INT TERM

monotonic_ns() { /usr/bin/python3 -c 'import time; print(time.monotonic_ns())'; }

# FUSE lets only 12 background requests through per mount (max_background); raise it
# through the fusectl file system.
fuse_allow_queue() {
  local conns=/sys/fs/fuse/connections
  if [ -d "$conns" ] && [ -z "$(ls -A "$conns" 2>/dev/null)" ]; then
    mount -t fusectl none "$conns" 2>/dev/null && fusectl_mounted=1
  fi
  local c
  c="$conns/$(stat -c %d "$1")"
  if [ -w "$c/max_background" ]; then
    echo 128 > "$c/max_background"
    echo 96 > "$c/congestion_threshold"
  fi
}

# Partition $1 of the export, bytes [$2, $2 + $3), as a block device: nbdfuse shows the
# export as a file, a loop device with direct I/O (no page cache in between) and no
# kernel scheduler turns it into a disk. Sets $part_dev.
attach_fuse_part() {
  local i=$1 offset=$2 size=$3
  mkdir -p "$work/fuse$i"
  nbdfuse "$work/fuse$i/disk" --unix "$sock" 2>>"$work/nbdfuse.log" &
  fuse_pids[$i]=$!
  for _ in $(seq 100); do [ -e "$work/fuse$i/disk" ] && break; sleep 0.1; done
  [ -e "$work/fuse$i/disk" ] || die "nbdfuse did not come up"
  fuse_allow_queue "$work/fuse$i/disk"
  part_dev=$(losetup -f --show --direct-io=on --offset "$offset" --sizelimit "$size" \
               "$work/fuse$i/disk")
  loops+=("$part_dev")
  echo none > "/sys/block/$(basename "$part_dev")/queue/scheduler" 2>/dev/null || true
}

# Starts nbdkit with the filter over the emulated disk and mounts fresh ext4 file
# systems from it at $work/mnt0...
start_disk() {
  local sched=$1 log=$2
  rm -f "$sock" "$work/nbdkit.pid"
  nbdkit -U "$sock" -P "$work/nbdkit.pid" -t 64 \
    --filter="$filter" "$diskemu" model=hp97560 timescale="$timescale" \
    sched="$sched" sched-geometry=hp97560 sched-timescale="$timescale" \
    sched-log="$log" sched-control="$ctl"
  for _ in $(seq 100); do [ -s "$work/nbdkit.pid" ] && break; sleep 0.1; done
  nbdkit_pid=$(cat "$work/nbdkit.pid")
  local devs=() i
  if [ -b /dev/nbd0 ] && command -v nbd-client >/dev/null; then
    # The kernel's NBD client: one device, one file system.
    nbd_dev=/dev/nbd0
    nbd-client -unix "$sock" "$nbd_dev" -connections 4 >/dev/null
    echo none > /sys/block/nbd0/queue/scheduler 2>/dev/null || true
    devs=("$nbd_dev")
  else
    # One nbdfuse serves at most 10 requests at once (its FUSE threads): too few for a
    # queue to form. So the disk gets 4 partitions, each through its own nbdfuse.
    local size part
    size=$(nbdinfo --size "nbd+unix:///?socket=$sock")
    part=$(( size / 4 / 1048576 * 1048576 ))
    for i in 0 1 2 3; do
      attach_fuse_part "$i" $(( i * part )) "$part"
      devs+=("$part_dev")
    done
  fi
  parts=${#devs[@]}
  for i in "${!devs[@]}"; do
    mkdir -p "$work/mnt$i"
    mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "${devs[$i]}"
    mount -o noatime "${devs[$i]}" "$work/mnt$i"
    mounts+=("$work/mnt$i")
  done
  echo "file systems: $parts x ext4 of $(df -h --output=size "$work/mnt0" | tail -1 | tr -d ' ') on ${devs[*]}"
}

# Four readers and four writers of 8 KiB blocks spread over the file systems, each in
# its own directory (ext4 spreads directories over its block groups), direct I/O, 8 in
# flight each.
write_jobs() {
  local j kind m
  {
    printf '[global]\nioengine=libaio\ndirect=1\nbs=8k\nsize=12m\niodepth=8\n'
    printf 'runtime=%s\ntime_based=1\nrandrepeat=0\n' "$runtime"
    for j in 1 2 3 4; do
      for kind in read write; do
        m="$work/mnt$(( (j - 1) % parts ))"
        mkdir -p "$m/$kind$j"
        printf '[%s%d]\ndirectory=%s\nrw=rand%s\n' "${kind}er" "$j" "$m/$kind$j" "$kind"
      done
    done
  } > "$work/demo.fio"
}

declare -A window_from window_to
run_with() {
  local name=$1 sched=$2
  local log="$work/$name.csv"
  say "$name: nbdkit --filter=disksched diskemu model=hp97560 sched=$sched (timescale $timescale)"
  start_disk "$sched" "$log"
  write_jobs
  echo "laying out the files..."
  fio --create_only=1 --output=/dev/null "$work/demo.fio"
  sync
  echo "running 4 readers + 4 writers for $runtime s..."
  window_from[$name]=$(monotonic_ns)
  fio --output="$work/$name.fio.txt" "$work/demo.fio"
  window_to[$name]=$(monotonic_ns)
  "$disksched" ctl "$ctl" stats |
    grep -E '^(scheduler|mean_queue_len|delta_ms|prediction_within_sector) ' || true
  grep -E '^ +(read|write):' "$work/$name.fio.txt" | sed 's/^ */fio: /'
  cleanup
}

run_with fcfs fcfs
run_with asatf asatf:w=30

say "FCFS vs ASATF(30) on the emulated HP 97560 (times in the disk's own time)"
"$disksched" log compare "$work/fcfs.csv" "$work/asatf.csv" --labels 'FCFS,ASATF(30)' \
  --from-ns "${window_from[fcfs]},${window_from[asatf]}" \
  --to-ns "${window_to[fcfs]},${window_to[asatf]}" --timescale "$timescale"
cat <<EOF

Measured: the requests that arrived during each scheduler's $runtime s fio run. The disk
ran at timescale $timescale (one second of disk time took $timescale s of real time);
latencies and throughput above are in disk time. "mean queue length" is how many
requests the scheduler could choose from at each dispatch. Per-request logs are
sched-log= CSV files (keep them with --keep; \`disksched log summary FILE\`).
EOF
