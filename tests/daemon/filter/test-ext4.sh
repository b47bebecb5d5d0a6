#!/usr/bin/env bash
# A mounted ext4 file system on the emulated HP 97560 (ten times faster than real time)
# under ASATF(30) survives a workload with several concurrent writers and readers, and
# fsck finds it clean. The block device is the kernel's nbd client if there is one,
# else nbdfuse and a loop device with direct I/O.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit nbdfuse losetup mkfs.ext4 fsck.ext4 mount umount fusermount3 timeout
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
[ "$(id -u)" -eq 0 ] || skip "needs root to mount"
[ -c /dev/fuse ] || skip "no /dev/fuse"
losetup -f >/dev/null 2>&1 || skip "no free loop device"
make_tmpdir
mnt="$TMPDIR_TEST/mnt"
fuse="$TMPDIR_TEST/fuse"
mkdir -p "$mnt" "$fuse"
loop=""
cleanup() {
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
  mountpoint -q "$fuse" && fusermount3 -u "$fuse"
  [ -n "${fusepid:-}" ] && wait "$fusepid" 2>/dev/null
  rm -rf "$TMPDIR_TEST"
}
at_exit cleanup

nbdfuse "$fuse/disk" [ nbdkit -t 32 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" \
    model=hp97560 timescale=0.1 sched=asatf:w=30 sched-geometry=hp97560 sched-timescale=0.1 \
    sched-log="$TMPDIR_TEST/lat.csv" ] &
fusepid=$!
for _ in $(seq 100); do [ -e "$fuse/disk" ] && break; sleep 0.1; done
[ -e "$fuse/disk" ] || fail "nbdfuse did not come up"
# Only the first 256 MiB: mkfs and fsck stay quick.
loop=$(losetup -f --show --direct-io=on --sizelimit=$((256 << 20)) "$fuse/disk")
echo none > "/sys/block/$(basename "$loop")/queue/scheduler" 2>/dev/null || true
timeout 60 mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1 "$loop" || fail "mkfs.ext4"
mount -o noatime "$loop" "$mnt" || fail "mount"

# Four writers with their own files, then four readers checking them, concurrently
# with a writer that keeps going.
pids=()
for i in 1 2 3 4; do
  ( head -c $((2 << 20)) /dev/urandom > "$TMPDIR_TEST/src$i"
    for k in 1 2 3; do dd if="$TMPDIR_TEST/src$i" of="$mnt/f$i.$k" bs=64k oflag=direct status=none; done ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a writer failed"; done
pids=()
( for k in $(seq 20); do head -c 65536 /dev/urandom > "$mnt/small.$k"; done; sync ) &
pids+=($!)
for i in 1 2 3 4; do
  ( for k in 1 2 3; do cmp "$TMPDIR_TEST/src$i" "$mnt/f$i.$k" || exit 1; done ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || fail "a reader found different data"; done
sync
umount "$mnt"
timeout 60 fsck.ext4 -fn "$loop" || fail "fsck found errors"
requests=$(($(wc -l < "$TMPDIR_TEST/lat.csv") - 1))
[ "$requests" -gt 100 ] || fail "only $requests requests went through the filter"
grep -q ',E[A-Z]*$' "$TMPDIR_TEST/lat.csv" && fail "a request failed"
echo "ok: ext4 clean after $requests requests through the filter"
