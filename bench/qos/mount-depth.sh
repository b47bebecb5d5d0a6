#!/usr/bin/env bash
# How many requests reach the filter when an application keeps 32 in flight, by the way
# the disk is reached (issue #31: through one nbdfuse the filter saw about 3):
#   bench/qos/mount-depth.sh FILTER.so DISKEMU.so [OUT_DIR]
# fio, random 4 KiB reads 32 deep for RUNTIME seconds (default 8), on diskemu
# sata7200-8tb (drive-queue=32) behind the filter (FCFS, sched-depth=32), over:
#   nbd        fio's nbd engine (the reference: NBD from the application)
#   loop-dio   nbdfuse, a loop device with --direct-io=on, fio on the device
#   loop       the same with losetup's default (--direct-io=off)
#   loop-C8    nbdfuse -C 8 (eight connections), --direct-io=on
#   file       fio on the nbdfuse file itself (O_DIRECT), no loop device
#   ext4       ext4 on the loop-dio device, fio on a written 1 GiB file (O_DIRECT)
# For each: the mean requests at the filter (arrival to completion) and at the drive
# (dispatch to completion), from the latency log by Little's law, and fio's IOPS.
# Needs root (loop devices, mount).
. "$(dirname "$0")/../filter/common.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 FILTER.so DISKEMU.so [OUT_DIR]" >&2; exit 2; }
bench_paths "$1" "$2"
require_tools fio nbdfuse losetup
[ "$(id -u)" = 0 ] || { echo "bench: needs root (loop devices, mount)" >&2; exit 1; }
qos_dir=$(cd "$(dirname "$0")" && pwd)
out=${3:-$(mktemp -d /tmp/disksched-mount-depth.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
runtime=${RUNTIME:-8}
cases=${CASES:-nbd loop-dio loop loop-C8 file ext4}
echo "settings: diskemu sata7200-8tb drive-queue=32, filter fcfs sched-depth=32; fio randread 4k"
echo "          iodepth 32, libaio O_DIRECT (nbd: fio's nbd engine), ${runtime} s a case"
report_load

cat > "$out/case.sh" <<'EOF'
set -euo pipefail
socket=$1 dir=$2 case=$3 runtime=$4
loops=()
# The file system, then the loop device, then nbdfuse (a loop device holds its file busy).
cleanup() {
  local l
  if mountpoint -q "$dir/fs"; then umount "$dir/fs" || true; fi
  for l in "${loops[@]}"; do losetup -d "$l" || true; done
  if mountpoint -q "$dir/mnt"; then fusermount3 -u "$dir/mnt" || true; fi
  wait || true
}
trap cleanup EXIT
fio_on() {  # fio_on TARGET [EXTRA...]
  local target=$1; shift
  fio --name=depth --filename="$target" --ioengine=libaio --direct=1 --iodepth=32 \
    --rw=randread --bs=4k --runtime="$runtime" --time_based --output-format=terse "$@" \
    > "$dir/fio.terse"
}
nbdfuse_mount() {  # nbdfuse_mount [OPTIONS...]: $dir/mnt/disk
  mkdir -p "$dir/mnt"
  nbdfuse "$@" -P "$dir/nbdfuse.pid" "$dir/mnt/disk" "nbd+unix:///?socket=$socket" &
  for _ in $(seq 100); do [ -s "$dir/nbdfuse.pid" ] && break; sleep 0.1; done
  [ -s "$dir/nbdfuse.pid" ] || { echo "bench: nbdfuse did not start" >&2; exit 1; }
}
loop_on() {  # loop_on on|off: $loop
  loop=$(losetup --direct-io="$1" -f --show "$dir/mnt/disk")
  loops+=("$loop")
}
case $case in
  nbd)
    fio --name=depth --ioengine=nbd --uri="nbd+unix:///?socket=$socket" --iodepth=32 \
      --rw=randread --bs=4k --runtime="$runtime" --time_based --output-format=terse > "$dir/fio.terse" ;;
  loop-dio) nbdfuse_mount; loop_on on; fio_on "$loop" ;;
  loop) nbdfuse_mount; loop_on off; fio_on "$loop" ;;
  loop-C8) nbdfuse_mount -C 8; loop_on on; fio_on "$loop" ;;
  file) nbdfuse_mount; fio_on "$dir/mnt/disk" ;;
  ext4)
    nbdfuse_mount; loop_on on
    mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$loop"
    mkdir -p "$dir/fs"; mount "$loop" "$dir/fs"
    dd if=/dev/zero of="$dir/fs/data" bs=1M count=1024 oflag=direct status=none
    fio_on "$dir/fs/data" --size=1g ;;
  *) echo "bench: unknown case '$case'" >&2; exit 2 ;;
esac
EOF

printf '%-9s %10s %10s %8s\n' case "at filter" "at drive" IOPS
for c in $cases; do
  dir="$out/$c"; rm -rf "$dir"; mkdir -p "$dir"
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=sata7200-8tb drive-queue=32 \
    sched=fcfs sched-depth=32 sched-log="$dir/filter.csv" \
    --run "bash '$out/case.sh' \"\$unixsocket\" '$dir' $c $runtime" > "$dir/nbdkit.out" 2>&1 \
    || { echo "bench: case $c failed:" >&2; tail -20 "$dir/nbdkit.out" >&2; exit 1; }
  /usr/bin/python3 "$qos_dir/depth_from_log.py" "$dir/filter.csv" "$dir/fio.terse" "$c" "$runtime"
done
report_load
echo "results: $out"
