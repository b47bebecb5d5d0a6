#!/usr/bin/env bash
# A real file system over each plugin: nbdfuse exposes the export as a file, a loop
# mount puts ext4 on it; files are written, the file system is unmounted, checked clean
# by fsck, mounted again and the files read back. Everything is cleaned up on exit,
# also on failure: mounts, loop devices, nbdfuse and nbdkit.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires nbdkit nbdfuse fusermount3 mkfs.ext4 fsck.ext4 mount umount losetup sha256sum
[ -c /dev/fuse ] || skip "/dev/fuse is missing"
losetup -f >/dev/null 2>&1 || skip "no free loop device"
[ "$(id -u)" = 0 ] || skip "mounting needs root"
[ -n "${DISKEMU_PLUGIN:-}${URING_PLUGIN:-}" ] || skip "neither plugin is built"
fuse_stack_dir plugins-fs   # not tmpfs: the uring plugin uses O_DIRECT

fs_roundtrip() {   # fs_roundtrip NAME NBDKIT-ARGS...
  local name=$1; shift
  echo "== $name"
  rm -f "$T/nbdkit.pid" "$T/fuse.pid" "$T/sock"
  nbdkit -U "$T/sock" -P "$T/nbdkit.pid" "$@"
  wait_for '[ -s "$T/nbdkit.pid" ]'
  NBDKIT_PID=$(cat "$T/nbdkit.pid")
  nbdfuse -P "$T/fuse.pid" "$T/fuse/disk" --unix "$T/sock" &
  FUSE_PID=$!
  wait_for '[ -s "$T/fuse.pid" ]'

  mkfs.ext4 -q -F "$T/fuse/disk"
  mount -o loop "$T/fuse/disk" "$T/mnt"
  head -c 3M /dev/urandom > "$T/mnt/big.bin"
  for i in $(seq 1 50); do echo "file $i of $name" > "$T/mnt/small-$i.txt"; done
  mkdir "$T/mnt/dir" && cp "$T/mnt/big.bin" "$T/mnt/dir/copy.bin"
  (cd "$T/mnt" && sha256sum big.bin dir/copy.bin small-*.txt) > "$T/sums"
  umount "$T/mnt"
  fsck.ext4 -fn "$T/fuse/disk" || fail "$name: fsck found errors"
  mount -o loop,ro "$T/fuse/disk" "$T/mnt"
  (cd "$T/mnt" && sha256sum -c --quiet "$T/sums") || fail "$name: files differ after remount"
  umount "$T/mnt"

  fusermount3 -u "$T/fuse"
  wait "$FUSE_PID"; FUSE_PID=
  kill "$NBDKIT_PID"; NBDKIT_PID=
  echo "$name: ext4 made, files written, fsck clean, files read back"
}

if [ -n "${DISKEMU_PLUGIN:-}" ]; then
  # The HP 97560 at 1000x (its 1.37 GB hold the file system).
  fs_roundtrip "diskemu hp97560" "$DISKEMU_PLUGIN" model=hp97560 timescale=0.001
fi
if [ -n "${URING_PLUGIN:-}" ]; then
  truncate -s 256M "$T/disk.img"
  fs_roundtrip "uring direct=true" "$URING_PLUGIN" file="$T/disk.img" direct=true
fi
echo PASS
