#!/usr/bin/env bash
# fio's verify across a power cut: fio (nbd engine) writes through the disksched filter
# to diskemu with a volatile write cache. The first job writes 1 MiB of 4 KiB blocks with
# verify headers (crc32c), a flush every 16 writes and one at its end; the second writes
# on beyond it without flushing, and the power goes after its 32nd write
# (power-cut-after=), losing what the cache had not written; fio writes on. Then, in a
# new server over the same file (the media), fio verifies every block of the first job:
# each was flushed before the cut, so each must be there. The cut must have lost some of
# the second job's acknowledged writes, or it tested nothing.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires fio
fio --enghelp 2>/dev/null | grep -qw nbd || skip "fio has no nbd engine"
[ -n "${DISKEMU_PLUGIN:-}" ] || fail "DISKEMU_PLUGIN is not set (run through meson test)"
[ -n "${DISKSCHED_FILTER:-}" ] || fail "DISKSCHED_FILTER is not set (run through meson test)"
command -v nbdkit > /dev/null || fail "nbdkit is not installed"
make_tmpdir
T=$TMPDIR_TEST
cd "$T"   # fio writes its verify state files into the current directory

# The HP 97560 at its own speed: a destage (about 20 ms) is much slower than fio's
# writes at queue depth 32, so the cut finds most of them still in the cache.
stack=(--filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560
       sched=asatf:w=30 sched-geometry=hp97560 file="$T/media.img")

# fio_job FILE: a job file: fio's nbd engine on nbdkit's $uri, 4 KiB blocks with verify
# headers, then what stdin adds (more [global] keys, the jobs).
fio_job() {
  { printf '%s\n' '[global]' 'ioengine=nbd' 'uri=${uri}' 'bs=4k' 'verify=crc32c'; cat; } > "$1"
}

fio_job write.fio <<'FIO'
do_verify=0
[flushed]
rw=randwrite
offset=0
size=1m
fsync=16
end_fsync=1
[acknowledged]
stonewall
rw=randwrite
offset=1m
size=256k
iodepth=32
FIO

fio_job verify.fio <<'FIO'
verify_fatal=1
[flushed]
rw=randwrite
offset=0
size=1m
verify_only=1
FIO

# 256 flushed writes, then the cut after the 32nd unflushed one.
nbdkit -U "$(nbdkit_sock)" "${stack[@]}" write-cache=1M power-cut-after=288 stats="$T/write.json" \
  --run 'export uri; fio --output-format=json --output=write-fio.json write.fio' ||
  fail "the write phase failed"
nbdkit -U "$(nbdkit_sock)" "${stack[@]}" write-cache=1M \
  --run 'export uri; fio --output-format=json --output=verify-fio.json verify.fio' ||
  fail "fio's verify failed: a block flushed before the power cut is not on the media"

/usr/bin/python3 - <<'PY'
import json
w = json.load(open("write-fio.json"))["jobs"]
v = json.load(open("verify-fio.json"))["jobs"][0]
stats = json.load(open("write.json"))["write_cache"]
assert [j["error"] for j in w] == [0, 0], [j["error"] for j in w]
assert w[0]["write"]["total_ios"] == 256 and w[1]["write"]["total_ios"] == 64, w
assert v["error"] == 0 and v["read"]["total_ios"] == 256, (v["error"], v["read"]["total_ios"])
assert stats["power_cuts"] == 1 and stats["lost_sectors"] > 0, stats
print("fio: 256 flushed blocks verified after a cut that lost %d acknowledged sectors"
      % stats["lost_sectors"])
PY
echo PASS
