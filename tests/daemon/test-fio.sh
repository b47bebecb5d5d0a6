#!/usr/bin/env bash
# Both plugins under fio's nbd engine: random 4 KiB writes at queue depth 16, every block
# verified (crc32c) when read back.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires nbdkit fio
fio --enghelp 2>/dev/null | grep -qw nbd || skip "fio has no nbd engine"
make_tmpdir
T=$TMPDIR_TEST
SCRATCH=$(mktemp -d /var/tmp/plugins-fio.XXXXXX)
at_exit 'rm -rf "$SCRATCH" "$T"'
cd "$T"   # fio writes its verify state files into the current directory

cat > verify.fio <<'FIO'
[global]
ioengine=nbd
uri=${uri}
size=16m
bs=4k
iodepth=16
[verify]
rw=randwrite
verify=crc32c
verify_fatal=1
do_verify=1
FIO

check() {   # check NAME NBDKIT-ARGS...
  local name=$1; shift
  nbdkit -U "$(nbdkit_sock)" "$@" --run 'export uri; fio --output-format=json --output=fio.json verify.fio' ||
    fail "$name: fio failed"
  /usr/bin/python3 - "$name" <<'PY'
import json, sys
job = json.load(open("fio.json"))["jobs"][0]
assert job["error"] == 0, job["error"]
w, r = job["write"]["total_ios"], job["read"]["total_ios"]
assert w == 4096 and r == 4096, (w, r)     # every block written, then read and verified
print("%s: %d writes, %d verified reads, err=0" % (sys.argv[1], w, r))
PY
}

if [ -n "${DISKEMU_PLUGIN:-}" ]; then
  # An HP 97560 at 2000x: 20 ms a request becomes ~10 us.
  check "diskemu hp97560" "$DISKEMU_PLUGIN" model=hp97560 timescale=0.0005
  check "diskemu hp97560 file=" "$DISKEMU_PLUGIN" model=hp97560 timescale=0.0005 \
    file="$SCRATCH/emu.img"
fi
if [ -n "${URING_PLUGIN:-}" ]; then
  truncate -s 64M "$SCRATCH/disk.img"
  check "uring" "$URING_PLUGIN" file="$SCRATCH/disk.img"
  check "uring, all through the ring" "$URING_PLUGIN" file="$SCRATCH/disk.img" \
    nowait-reads=false nowait-writes=false
  check "uring direct=true" "$URING_PLUGIN" file="$SCRATCH/disk.img" direct=true
fi
[ -n "${DISKEMU_PLUGIN:-}${URING_PLUGIN:-}" ] || skip "neither plugin is built"
echo PASS
