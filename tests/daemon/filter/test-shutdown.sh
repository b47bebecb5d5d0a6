#!/usr/bin/env bash
# Client disconnect and server shutdown with a full queue: 48 writes wait behind a
# 20 ms device (depth 1). The client vanishes (or the server is told to stop) once a
# few are acknowledged. Neither hangs, and every acknowledged write is there afterwards.
# nbdkit 1.32 itself may abort when the client vanishes (its known bug, see
# nbdkit_known_abort in lib.sh; about 1 run in 30 here): the writes go to a file, so
# then the server is started again on it and every acknowledged write must still be
# there. Any other death of the server fails.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client timeout
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
sock="$TMPDIR_TEST/nbd.sock"
pidfile="$TMPDIR_TEST/nbdkit.pid"
acked="$TMPDIR_TEST/acked"

# Writes 48 distinct 4 KiB blocks (block i holds byte i+1), records each acknowledged
# one in $acked, and after 6 acknowledgements either exits at once (disconnect) or
# signals the server (shutdown) and waits to be cut off.
cat > "$TMPDIR_TEST/writer.py" <<PY
import os, signal, sys
sys.path.insert(0, "$here")
import nbd, nbdio
uri, mode = sys.argv[1], sys.argv[2]
h = nbdio.connect(uri)
out = open("$acked", "w")
reqs = [nbdio.Request("write", i * 65536, data=bytes([i + 1]) * 4096) for i in range(48)]
cookies = {r.issue(h): r for r in reqs}
n = 0
try:
    while cookies:
        h.poll(-1)
        for c in list(cookies):
            if h.aio_command_completed(c):
                out.write(f"{cookies.pop(c).offset}\n")
                out.flush()
                n += 1
                if n == 6:
                    if mode == "disconnect":
                        os._exit(0)
                    os.kill(int(open("$pidfile").read()), signal.SIGTERM)
except nbd.Error as e:
    print("cut off as expected:", e)
PY
cat > "$TMPDIR_TEST/verify.py" <<PY
import sys
sys.path.insert(0, "$here")
import nbdio
offsets = [int(x) for x in open("$acked").read().split()]
assert len(offsets) >= 6, f"only {len(offsets)} acknowledged"
if sys.argv[1] == "nbd":
    h = nbdio.connect(sys.argv[2])
    read = lambda off: h.pread(4096, off)
else:
    f = open(sys.argv[2], "rb")
    read = lambda off: (f.seek(off), f.read(4096))[1]
for off in offsets:
    assert read(off) == bytes([off // 65536 + 1]) * 4096, f"acknowledged write at {off} lost"
print(f"ok: {len(offsets)} acknowledged writes are there")
PY

log="$TMPDIR_TEST/nbdkit.err"
# In the foreground, so that how it ended is known (wait).
start_server() {
  rm -f "$sock" "$pidfile"
  : > "$log"
  nbdkit -f -U "$sock" -P "$pidfile" --log=stderr -t 64 --filter="$DISKSCHED_FILTER" \
    --filter=delay "$@" wdelay=20ms sched=sstf 2> "$log" &
  server=$!
  for _ in $(seq 100); do [ -s "$pidfile" ] && break; sleep 0.1; done
  [ -s "$pidfile" ] || { cat "$log" >&2; fail "nbdkit did not start"; }
}
# server_ended WHAT: the server has exited; it must have exited cleanly.
server_ended() {
  local rc=0
  wait "$server" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$log" >&2; fail "$1: nbdkit exited with $rc"; }
}
# stop_server WHAT: SIGTERM, and it exits cleanly within 15 s.
stop_server() {
  kill "$server" 2>/dev/null || true
  for _ in $(seq 150); do kill -0 "$server" 2>/dev/null || { server_ended "$1"; return 0; }; sleep 0.1; done
  kill -9 "$server"; fail "$1: nbdkit did not exit within 15 s of SIGTERM"
}

uri="nbd+unix:///?socket=$sock"
disk="$TMPDIR_TEST/disk.img"

echo "== client disconnect"
truncate -s 64M "$disk"
start_server file "$disk"
timeout 20 /usr/bin/python3 "$TMPDIR_TEST/writer.py" "$uri" disconnect || fail "writer failed"
# The server goes on serving (the queued writes first), then a new client.
if ! timeout 30 /usr/bin/python3 "$TMPDIR_TEST/verify.py" nbd "$uri"; then
  kill -0 "$server" 2>/dev/null && { stop_server "after disconnect"; fail "after disconnect"; }
  rc=0; wait "$server" || rc=$?
  nbdkit_known_abort "$log" || { cat "$log" >&2; fail "after disconnect: nbdkit died (exit $rc)"; }
  echo "nbdkit $(nbdkit --version | awk '{print $2}') aborted in raw_send_socket (its known bug): started again on the same file"
  start_server file "$disk"
  timeout 30 /usr/bin/python3 "$TMPDIR_TEST/verify.py" nbd "$uri" || fail "after disconnect and restart"
fi
stop_server "after disconnect"

echo "== server shutdown"
rm -f "$disk" "$acked"
truncate -s 64M "$disk"
start_server file "$disk"
timeout 30 /usr/bin/python3 "$TMPDIR_TEST/writer.py" "$uri" shutdown || fail "writer hung"
for _ in $(seq 150); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
kill -0 "$server" 2>/dev/null && { kill -9 "$server"; fail "nbdkit did not exit within 15 s of SIGTERM"; }
server_ended "shutdown"
/usr/bin/python3 "$TMPDIR_TEST/verify.py" file "$disk" || fail "after shutdown"
