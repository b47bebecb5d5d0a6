#!/usr/bin/env bash
# diskemu: data written reads back (memory, and file= across a restart); never-written
# sectors read as zeros; FUA and flush reach the file; requests beyond the end fail;
# the export looks like the model (size, rotational); NBD_CMD_CACHE fills the drive's
# read cache where it has one; stats are written on SIGUSR1 and at exit; no request
# completes before the model says.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
diskemu_test

# --- the data path, in memory -------------------------------------------------
cat > "$T/data.py" <<'PY'
import nbd, os
size = h.get_size()
assert size == 1375617024, size                 # 1964 x 19 x 72 x 512 bytes
assert h.is_rotational()
assert h.can_fua() and h.can_flush() and h.can_multi_conn() and h.can_trim()
assert h.get_block_size(nbd.SIZE_MINIMUM) == 512
assert h.pread(65536, 10 << 20) == bytes(65536)  # never written: zeros
data = os.urandom(256 << 10)
h.pwrite(data, 700 << 20)
h.pwrite(data[:4096], size - 4096, nbd.CMD_FLAG_FUA)
assert h.pread(len(data), 700 << 20) == data
assert h.pread(4096, size - 4096) == data[:4096]
h.zero(8192, (700 << 20) + 4096)
got = h.pread(16384, 700 << 20)
assert got == data[:4096] + bytes(8192) + data[12288:16384]
h.trim(4096, 700 << 20)
assert h.pread(4096, 700 << 20) == bytes(4096)
h.flush()
# Beyond the end: refused by the server (libnbd's own checks switched off).
h.set_strict_mode(0)
for op in (lambda: h.pread(512, size), lambda: h.pwrite(bytes(512), size - 256),
           lambda: h.zero(1024, size - 512)):
    try:
        op()
        raise AssertionError("a request beyond the end succeeded")
    except nbd.Error as e:
        print("beyond the end refused:", e)
assert h.pread(512, size - 512) == data[3584:4096]   # the connection is still fine
print("data OK")
PY
run_py "$T/data.py" "$P" model=hp97560 timescale=0.001 stats="$T/mem.json"
/usr/bin/python3 - "$T/mem.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["model"] == "hp97560" and s["timescale"] == 0.001, s
assert s["by_op"]["write"] == 2 and s["by_op"]["zero"] == 1 and s["by_op"]["trim"] == 1, s
assert s["by_op"]["flush"] == 1 and s["by_op"]["read"] == 6, s["by_op"]
assert s["requests"] == 11, s["requests"]
assert s["service_ms_mean"] > 1.0, s     # device time: milliseconds per request
assert s["lateness_us"]["max"] >= s["lateness_us"]["p99"] >= s["lateness_us"]["p50"] >= 0
print("stats OK:", s["requests"], "requests, mean service", round(s["service_ms_mean"], 3), "ms")
PY

# --- file=: FUA and flush reach the file; the data survives a restart ----------
cat > "$T/file1.py" <<PY
import nbd
f = open("$T/disk.img", "rb")
h.pwrite(b"persist!" * 512, 1 << 20, nbd.CMD_FLAG_FUA)
f.seek(1 << 20); assert f.read(4096) == b"persist!" * 512   # in the file, while serving
h.pwrite(b"flushed." * 64, 5 << 20)
h.flush()
f.seek(5 << 20); assert f.read(512) == b"flushed." * 64
h.zero(512, (1 << 20) + 512, nbd.CMD_FLAG_FUA)
print("file OK")
PY
run_py "$T/file1.py" -v -D diskemu.trace=1 "$P" model=hp97560 file="$T/disk.img" \
  timescale=0.001 2> "$T/trace.txt" || { cat "$T/trace.txt" >&2; fail "file= run"; }
# The plugin's record: FUA write, flush and FUA zero each made the file durable.
grep -q 'diskemu: #0 write off=1048576 len=4096 fdatasync' "$T/trace.txt" ||
  fail "the FUA write was not synced: $(grep 'diskemu: #' "$T/trace.txt")"
grep -q 'diskemu: #2 flush off=0 len=0 fdatasync' "$T/trace.txt" || fail "the flush was not synced"
grep -q 'diskemu: #3 zero off=1049088 len=512 fdatasync' "$T/trace.txt" || fail "the FUA zero was not synced"
! grep -q 'diskemu: #1 write.* fdatasync' "$T/trace.txt" || fail "a plain write was synced"
[ "$(stat -c %s "$T/disk.img")" = 1375617024 ] || fail "disk.img is not the model's size"

# --- NBD_CMD_CACHE: prefetch into the drive's read cache, where there is one ---------
# The read comes right after: the drive's read-ahead runs on past the range and, its
# segment a ring, would overwrite it after about 9 device ms; at timescale=10 that is
# 90 ms of real time for nbdsh to send the read.
cat > "$T/cache.py" <<'PY'
assert h.can_cache()
h.cache(65536, 100 << 20)
assert h.pread(65536, 100 << 20) == bytes(65536)
print("cache OK")
PY
run_py "$T/cache.py" -v -D diskemu.trace=1 "$P" model=sata7200-8tb timescale=10 \
  2> "$T/cache.txt" || { cat "$T/cache.txt" >&2; fail "cache run"; }
grep -q 'diskemu: #0 cache off=104857600 len=65536 ' "$T/cache.txt" ||
  fail "the cache request did not reach the device: $(grep 'diskemu: #' "$T/cache.txt")"
grep -q 'diskemu: #1 read off=104857600 len=65536 .* hit$' "$T/cache.txt" ||
  fail "the read after the cache request missed: $(grep 'diskemu: #' "$T/cache.txt")"
echo 'assert not h.can_cache(); print("no cache on the HP 97560")' > "$T/nocache.py"
run_py "$T/nocache.py" "$P" model=hp97560 timescale=0.01
[ "$(stat -c %b "$T/disk.img")" -lt 100000 ] || fail "disk.img is not sparse"

cat > "$T/file2.py" <<'PY'
expected = b"persist!" * 512
expected = expected[:512] + bytes(512) + expected[1024:]
assert h.pread(4096, 1 << 20) == expected
assert h.pread(512, 5 << 20) == b"flushed." * 64
print("restart OK")
PY
run_py "$T/file2.py" "$P" model=hp97560 file="$T/disk.img" timescale=0.001

# --- timing: never earlier than the model --------------------------------------
# fixed:ms=200 at timescale 0.05 is 10 ms a request; 20 sequential reads take >= 200 ms.
cat > "$T/timing.py" <<'PY'
import time
t = time.monotonic()
for i in range(20):
    h.pread(512, i * 4096)
elapsed = time.monotonic() - t
assert elapsed >= 0.200, elapsed
assert not h.is_rotational()
print("20 requests of 10 ms took %.1f ms" % (elapsed * 1000))
PY
run_py "$T/timing.py" "$P" model=fixed:ms=200 timescale=0.05
# The same with real-time waits (root may have SCHED_FIFO): still never early.
if [ "$(id -u)" = 0 ]; then
  run_py "$T/timing.py" "$P" model=fixed:ms=200 timescale=0.05 rt-priority=5 stats="$T/rt.json"
  grep -q '"rt_priority": 5' "$T/rt.json" || fail "rt-priority not in the stats"
fi

# --- jitter and rpm error reach the device ------------------------------------------
cat > "$T/jit.py" <<'PY'
for i in range(20):
    h.pread(4096, i * 7919 * 4096)
PY
run_py "$T/jit.py" -v -D diskemu.trace=1 "$P" model=hp97560 timescale=0.01 \
  jitter=uniform:1ms jitter-seed=7 rpm-error=0.5%,drift=0.01% stats="$T/jit.json" 2> "$T/jit.txt"
/usr/bin/python3 - "$T/jit.json" "$T/jit.txt" <<'PY'
import json, re, sys
s = json.load(open(sys.argv[1]))
assert s["jitter"] == "uniform:1ms" and s["rpm_error"] == "0.005,drift=0.0001", s
jit = [float(x) for x in re.findall(r"jit=([0-9.]+)", open(sys.argv[2]).read())]
assert len(jit) == 20 and all(0 <= j <= 1.0 for j in jit) and len(set(jit)) == 20, jit
print("jitter and rpm-error OK: %d requests, jitter %.3f..%.3f ms" % (len(jit), min(jit), max(jit)))
PY

# --- a geometry profile (JSON) as the model ------------------------------------------
cat > "$T/tiny.json" <<'JSON'
{"version": 1, "name": "tiny-zoned", "heads": 2, "rpm": 7200,
 "zones": [{"first_cylinder": 0, "last_cylinder": 99, "sectors_per_track": 100},
           {"first_cylinder": 100, "last_cylinder": 199, "sectors_per_track": 60}],
 "seek": {"form": "two-piece", "short": {"a": 1.0, "b": 0.1}, "boundary": 50,
          "long": {"a": 1.5, "b": 0.01}}}
JSON
cat > "$T/tiny.py" <<'PY'
assert h.get_size() == (100 * 2 * 100 + 100 * 2 * 60) * 512, h.get_size()
assert h.is_rotational()
h.pwrite(b"z" * 4096, h.get_size() - 4096)
assert h.pread(4096, h.get_size() - 4096) == b"z" * 4096
print("profile OK")
PY
run_py "$T/tiny.py" "$P" model="$T/tiny.json" timescale=0.01

# --- the MEMS device: not rotational, its own capacity ------------------------------
cat > "$T/mems.py" <<'PY'
import os
assert not h.is_rotational()
assert h.get_size() > 3 * 10**9, h.get_size()      # Hong's 3.2 GB G2 device
d = os.urandom(65536)
h.pwrite(d, 10 << 20)
assert h.pread(65536, 10 << 20) == d
print("mems OK, %d bytes" % h.get_size())
PY
run_py "$T/mems.py" "$P" model=mems timescale=0.01

# --- stats on SIGUSR1, while serving --------------------------------------------
cat > "$T/usr1.sh" <<SH
PATH=/usr/bin:\$PATH nbdsh -u "\$uri" -c 'h.pread(512, 0); h.pread(512, 4096); h.pread(512, 0)'
kill -USR1 \$(cat "$T/nbdkit.pid")
for i in \$(seq 1 300); do
  grep -q '"requests": 3' "$T/usr1.json" 2>/dev/null && exit 0
  sleep 0.1
done
echo "stats not written on SIGUSR1" >&2; exit 1
SH
# -P: the server's pid (with --run, the parent process runs the command).
nbdkit -U "$(nbdkit_sock)" -P "$T/nbdkit.pid" "$P" model=fixed:ms=1 stats="$T/usr1.json" --run "export uri; sh $T/usr1.sh"
echo "SIGUSR1 stats OK"
echo PASS
