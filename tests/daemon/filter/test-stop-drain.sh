#!/usr/bin/env bash
# SIGTERM with a full queue: 256 writes from one client, 16 worker threads (so 240 of
# them still wait in the socket) and a 5 ms device. The server stops only after every
# one is answered, each acknowledged and on the disk; it then exits by itself, within
# the documented bound. Without the filter's graceful stop nbdkit failed most of them
# with ESHUTDOWN.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client timeout
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
sock="$TMPDIR_TEST/nbd.sock"
pidfile="$TMPDIR_TEST/nbdkit.pid"
disk="$TMPDIR_TEST/disk.img"
truncate -s 64M "$disk"

cat > "$TMPDIR_TEST/writer.py" <<PY
import os, signal, sys
sys.path.insert(0, "$here")
import nbd, nbdio
h = nbdio.connect(sys.argv[1])
reqs = [nbdio.Request("write", i * 65536, data=bytes([i % 255 + 1]) * 4096) for i in range(256)]
cookies = {r.issue(h): r for r in reqs}
acked, failed, signalled = [], [], False
try:
    while cookies:
        h.poll(-1)
        for c in list(cookies):
            if h.aio_command_completed(c):
                acked.append(cookies.pop(c).offset)
                if len(acked) == 6 and not signalled:
                    os.kill(int(open("$pidfile").read()), signal.SIGTERM)
                    signalled = True
except nbd.Error as e:
    failed.append(str(e))
print(f"{len(acked)} acknowledged, {len(cookies)} unanswered, failed: {failed[:3]}")
with open("$TMPDIR_TEST/acked", "w") as out:
    out.write("".join(f"{o}\n" for o in acked))
sys.exit(0 if len(acked) == 256 else 1)
PY

nbdkit -U "$sock" -P "$pidfile" --log=stderr -t 16 --filter="$DISKSCHED_FILTER" --filter=delay \
  file "$disk" wdelay=5ms sched=sstf
for _ in $(seq 100); do [ -s "$pidfile" ] && break; sleep 0.1; done
[ -s "$pidfile" ] || fail "nbdkit did not start"
pid=$(cat "$pidfile")
timeout 60 /usr/bin/python3 "$TMPDIR_TEST/writer.py" "nbd+unix:///?socket=$sock" \
  || { kill -9 "$pid" 2>/dev/null; fail "not every write queued at SIGTERM was served"; }
# The documented bound: 10 s after the signal (the writes took about 1.3 s of it).
for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -9 "$pid"; fail "nbdkit did not exit within 15 s of SIGTERM"; }
/usr/bin/python3 - "$disk" "$TMPDIR_TEST/acked" <<'PY'
import sys
f = open(sys.argv[1], "rb")
for off in map(int, open(sys.argv[2]).read().split()):
    f.seek(off)
    assert f.read(4096) == bytes([off // 65536 % 255 + 1]) * 4096, f"acknowledged write at {off} lost"
print("ok: all 256 acknowledged writes are on the disk")
PY
