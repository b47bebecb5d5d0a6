#!/usr/bin/env bash
# ext4 survives a power cut of diskemu's write cache. ext4 (with its journal) on an
# emulated HP 97560 with a 16 MiB volatile write cache, through nbdfuse and a direct-I/O
# loop device; files written and synced, more written without a sync (O_DIRECT, so they
# reach the drive's cache unflushed); then the host "crashes" (nbdfuse killed, so
# nothing more reaches the drive) and the drive loses power (SIGUSR2). After that the
# file system is mounted again (the journal is replayed), the synced files must read
# back, and fsck.ext4 -fn must find it clean. Cleans up mounts, loops, nbdfuse, nbdkit.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires nbdkit nbdfuse fusermount3 mkfs.ext4 fsck.ext4 mount umount losetup sha256sum timeout
[ -c /dev/fuse ] || skip "/dev/fuse is missing (no FUSE on this host)"
losetup -f >/dev/null 2>&1 || skip "no free loop device"
[ "$(id -u)" = 0 ] || skip "mounting needs root"
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "DISKEMU_PLUGIN is not set (plugin not built)"
fuse_stack_dir power-ext4

attach() {   # nbdfuse and a direct-I/O loop device over it: $LOOP
  rm -f "$T/fuse.pid"
  nbdfuse -P "$T/fuse.pid" "$T/fuse/disk" --unix "$T/sock" &
  FUSE_PID=$!
  wait_for '[ -s "$T/fuse.pid" ]'
  LOOP=$(losetup -f --show --direct-io=on "$T/fuse/disk")
}

start_nbdkit() {
  rm -f "$T/nbdkit.pid" "$T/sock"
  nbdkit -U "$T/sock" -P "$T/nbdkit.pid" "$DISKEMU_PLUGIN" model=hp97560 file="$T/disk.img" "$@"
  wait_for '[ -s "$T/nbdkit.pid" ]'
  NBDKIT_PID=$(cat "$T/nbdkit.pid")
}
detach() {
  losetup -d "$LOOP"; LOOP=
  fusermount3 -u "$T/fuse"; wait "$FUSE_PID"; FUSE_PID=
}

# mkfs at 1000x speed, then the drive at its real speed (a 1991 disk writes about
# 2 MB/s), so what the kernel writes in a burst is still in the cache when the power goes.
start_nbdkit timescale=0.001
attach
mkfs.ext4 -q -F "$LOOP"
detach
kill "$NBDKIT_PID"; wait_for '! kill -0 $NBDKIT_PID 2>/dev/null'; NBDKIT_PID=
start_nbdkit write-cache=16M stats="$T/stats.json"
attach
mount "$LOOP" "$T/mnt"
head -c 2M /dev/urandom > "$T/mnt/synced.bin"
for i in $(seq 1 40); do echo "synced file $i" > "$T/mnt/synced-$i.txt"; done
(cd "$T/mnt" && sha256sum synced.bin synced-*.txt) > "$T/sums"
sync
# Unsynced: data straight to the drive (acknowledged, not flushed), and new metadata.
dd if=/dev/urandom of="$T/mnt/unsynced.bin" bs=64k count=128 oflag=direct status=none
for i in $(seq 1 40); do echo "unsynced file $i" > "$T/mnt/unsynced-$i.txt"; done
rm "$T/mnt/synced-1.txt" && cp "$T/mnt/synced-2.txt" "$T/mnt/synced-1.txt"

# The crash: the host stops (nothing more reaches the drive), then the drive's power.
kill -9 "$FUSE_PID"; wait "$FUSE_PID" 2>/dev/null || true; FUSE_PID=
kill -USR2 "$NBDKIT_PID"
wait_for "grep -q '\"power_cuts\": *1' '$T/stats.json'"
/usr/bin/python3 - "$T/stats.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["write_cache"]
print("power cut:", w)
assert w["lost_sectors"] > 0, "the cut lost nothing: the test would prove nothing"
PY
timeout 30 umount -l "$T/mnt" || fail "the crashed mount would not go"
losetup -d "$LOOP" 2>/dev/null || true; LOOP=
timeout 30 umount -l "$T/fuse" || true

# After the cut: mount (journal replay), synced files intact, then fsck clean.
attach
timeout 120 mount "$LOOP" "$T/mnt" || fail "ext4 does not mount after the power cut"
grep -v ' synced-1.txt$' "$T/sums" > "$T/sums.kept"
(cd "$T/mnt" && sha256sum -c --quiet "$T/sums.kept") || fail "synced files differ after the cut"
echo "unsynced files found after the cut: $(ls "$T/mnt" | grep -c unsynced || true)"
umount "$T/mnt"
timeout 300 fsck.ext4 -fn "$LOOP" || fail "fsck found errors after the cut and journal replay"
echo "PASS: ext4 mounted after the power cut, synced files intact, fsck clean"
