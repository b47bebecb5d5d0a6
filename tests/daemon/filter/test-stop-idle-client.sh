#!/usr/bin/env bash
# SIGTERM while a client stays connected and idle, as nbdfuse and the kernel's client do:
# the server exits by itself within the man page's bound (10 s; still running at 15 s
# fails the test), and the writes diskemu held in its volatile write cache
# are in the backing file afterwards (an orderly stop writes the cache out; it is not a
# power cut). nbdkit 1.32 alone waits for that client for ever. The same with diskemu
# alone (it ends the connections itself). Then a client that keeps the filter busy: a
# second SIGTERM stops the server at once, long before the 10 s.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client timeout
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "DISKEMU_PLUGIN is not set (plugin not built)"
make_tmpdir
T=$TMPDIR_TEST
sock="$T/nbd.sock"
pidfile="$T/nbdkit.pid"
disk="$T/disk.img"
uri="nbd+unix:///?socket=$sock"

# Writes 16 blocks (acknowledged from the cache, no flush), says so, then holds the
# connection without a request until the server ends it.
cat > "$T/idle.py" <<'PY'
import sys, nbd
uri, ready = sys.argv[1:3]
h = nbd.NBD()
h.connect_uri(uri)
for i in range(16):
    h.pwrite(bytes([i + 1]) * 4096, i * 1048576)
open(ready, "w").close()
try:
    while not (h.aio_is_closed() or h.aio_is_dead()):
        h.poll(1000)
except nbd.Error as e:
    pass
print("the server ended the idle connection")
PY
# Keeps 8 reads in flight, so the filter is never idle, until the server ends it.
cat > "$T/busy.py" <<'PY'
import sys, nbd
uri, ready = sys.argv[1:3]
h = nbd.NBD()
h.connect_uri(uri)
n, said = 0, False
try:
    while True:
        while h.aio_in_flight() < 8:
            h.aio_pread(nbd.Buffer(4096), (n % 256) * 65536)
            n += 1
        h.poll(-1)
        while h.aio_peek_command_completed() > 0:
            h.aio_command_completed(h.aio_peek_command_completed())
        if n >= 40 and not said:
            open(ready, "w").close()
            said = True
except nbd.Error as e:
    print(f"cut off after {n} reads: {e}")
PY
in_file() {  # in_file: how many of the 16 blocks the backing file holds
  /usr/bin/python3 - "$disk" <<'PY'
import sys
f = open(sys.argv[1], "rb")
n = 0
for i in range(16):
    f.seek(i * 1048576)
    n += f.read(4096) == bytes([i + 1]) * 4096
print(n)
PY
}
start_server() {
  rm -f "$sock" "$pidfile"
  nbdkit -f -U "$sock" -P "$pidfile" --log=stderr "$@" 2> "$T/nbdkit.err" &
  server=$!
  wait_for '[ -s "$pidfile" ]'
}
# stopped_within SECONDS WHAT: waits for the server to exit, SECONDS at most (then it is
# killed and the test fails); it must have exited by itself, cleanly.
stopped_within() {
  local rc=0 t0=$SECONDS
  if ! timeout "$1" tail --pid="$server" -f /dev/null; then
    kill -9 "$server"; wait "$server" || true; cat "$T/nbdkit.err" >&2
    fail "$2: nbdkit was still running $1 s after SIGTERM"
  fi
  wait "$server" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$T/nbdkit.err" >&2; fail "$2: nbdkit exited with $rc"; }
  echo "$2: nbdkit exited cleanly after about $((SECONDS - t0)) s"
}

# idle_client_stop WHAT NBDKIT-ARGS...: cached writes, an idle client, SIGTERM.
idle_client_stop() {
  local what=$1; shift
  echo "== $what: an idle client stays connected"
  rm -f "$disk" "$T/ready"
  start_server "$@" model=hp97560 file="$disk" write-cache=8M
  timeout 60 /usr/bin/python3 "$T/idle.py" "$uri" "$T/ready" > "$T/idle.out" & client=$!
  wait_for '[ -e "$T/ready" ]'
  before=$(in_file)
  echo "before the stop, the file holds $before of 16 acknowledged blocks (the rest are in the cache)"
  [ "$before" -lt 16 ] || fail "every write was already in the file: the test shows nothing"
  kill -TERM "$server"
  stopped_within 15 "$what"
  wait "$client" || fail "$what: the idle client failed or hung"
  after=$(in_file)
  [ "$after" -eq 16 ] || fail "$what: after a clean stop the file holds $after of 16 acknowledged blocks"
  echo "ok: all 16 acknowledged blocks are in the file after the stop"
}
idle_client_stop "filter and diskemu" --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" sched=sstf
idle_client_stop "diskemu alone" "$DISKEMU_PLUGIN"

echo "== a busy client: the second signal stops at once"
start_server --filter="$DISKSCHED_FILTER" --filter=delay memory 64M rdelay=20ms sched=sstf
rm -f "$T/ready"
timeout 60 /usr/bin/python3 "$T/busy.py" "$uri" "$T/ready" & client=$!
wait_for '[ -e "$T/ready" ]'
kill -TERM "$server"
wait_for 'grep -q "signal again to stop at once" "$T/nbdkit.err"'
kill -TERM "$server"
stopped_within 5 "second signal"
wait "$client" || fail "the busy client failed or hung"
