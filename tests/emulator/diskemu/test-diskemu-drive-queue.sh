#!/usr/bin/env bash
# diskemu with the drive's own queue: 32 commands at once are served out of their
# arrival order (the stats count them) and the data is right; with drive-queue=1 (the
# default), or a firmware window of one command (drive-window=1), nothing passes anything.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
diskemu_test

# 32 writes at scattered offsets at once, then 32 reads of them at once; each read
# returns its write.
cat > "$T/burst.py" <<'PY'
import nbd, os, random
rng = random.Random(5)
size = h.get_size()
offsets = rng.sample(range(0, size // 65536), 32)
data = {o: os.urandom(8192) for o in offsets}
def burst(issue):
    pending = {issue(o) for o in offsets}
    while pending:
        h.poll(-1)
        pending = {c for c in pending if not h.aio_command_completed(c)}
burst(lambda o: h.aio_pwrite(data[o], o * 65536))
bufs = {o: nbd.Buffer(8192) for o in offsets}
burst(lambda o: h.aio_pread(bufs[o], o * 65536))
for o in offsets:
    assert bufs[o].to_bytearray() == data[o], o
h.flush()
PY

check_stats() {  # FILE DEPTH PASSED-TEST [WINDOW]
  /usr/bin/python3 - "$@" <<'PY' || fail "stats $1: $(cat "$1")"
import json, sys
j = json.load(open(sys.argv[1]))
q = j["drive_queue"]
assert q["depth"] == int(sys.argv[2]), q
assert q["window"] == int(sys.argv[4] if len(sys.argv) > 4 else 0), q
assert eval(sys.argv[3], {"passed": q["passed"], "forced": q["forced"]}), q
assert j["requests"] >= 65, j["requests"]
PY
}

run_py "$T/burst.py" -t 64 "$P" model=hp97560 timescale=0.05 drive-queue=32 \
  drive-policy=satf stats="$T/q32.json"
check_stats "$T/q32.json" 32 "passed > 10"

# The same 32 commands held, but the policy sees only the oldest: arrival order.
run_py "$T/burst.py" -t 64 "$P" model=hp97560 timescale=0.05 drive-queue=32 \
  drive-policy=satf drive-window=1 stats="$T/w1.json"
check_stats "$T/w1.json" 32 "passed == 0" 1

run_py "$T/burst.py" -t 64 "$P" model=hp97560 timescale=0.05 stats="$T/q1.json"
check_stats "$T/q1.json" 1 "passed == 0 and forced == 0"
echo PASS
