#!/usr/bin/env bash
# A client that disconnects with 200 reads in flight, with and without the filter.
# nbdkit 1.32.4-1.32.5 may abort here in its own code (raw_send_socket: Assertion
# 'sock >= 0', fixed upstream in 1.33.10 / 1.34.0; see the filter's man page). Pinned:
# from 1.33.10 on the server must survive and serve the next client; on 1.32 it must
# either do that or die of exactly that assertion, never of anything else.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client timeout
make_tmpdir
sock="$TMPDIR_TEST/nbd.sock"
uri="nbd+unix:///?socket=$sock"

version=$(nbdkit --version | awk '{print $2}')
nbdkit_has_disconnect_fix && fixed=yes || fixed=no
echo "nbdkit $version; has the upstream fix: $fixed"

cat > "$TMPDIR_TEST/vanish.py" <<'PY'
import os, sys
import nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
bufs = [nbd.Buffer(4096) for _ in range(200)]
for i, b in enumerate(bufs):
    h.aio_pread(b, i * 65536)
# Wait for the first reply, so the rest are in the server, then vanish.
while h.aio_in_flight() == 200:
    h.poll(-1)
os._exit(0)
PY
cat > "$TMPDIR_TEST/next.py" <<'PY'
import sys
import nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
h.pwrite(b"\x42" * 4096, 0)
assert h.pread(4096, 0) == b"\x42" * 4096
h.shutdown()
PY

died=0
round() {  # NAME NBDKIT-ARGS...
  local name=$1; shift
  rm -f "$sock"
  nbdkit -f -U "$sock" -t 64 "$@" 2> "$TMPDIR_TEST/$name.err" &
  local pid=$!
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
  [ -S "$sock" ] || fail "$name: nbdkit did not start"
  timeout 30 /usr/bin/python3 "$TMPDIR_TEST/vanish.py" "$uri" || fail "$name: the client failed"
  if timeout 30 /usr/bin/python3 "$TMPDIR_TEST/next.py" "$uri" 2>/dev/null; then
    kill "$pid"
    local rc=0; wait "$pid" || rc=$?
    # It may still have died after serving the next client, from the same race.
    [ "$rc" -eq 0 ] || grep -q "raw_send_socket: Assertion" "$TMPDIR_TEST/$name.err" \
      || { cat "$TMPDIR_TEST/$name.err" >&2; fail "$name: nbdkit exited with $rc"; }
    echo "$name: the server served the next client"
  else
    local rc=0; wait "$pid" || rc=$?
    [ "$fixed" = no ] || fail "$name: nbdkit $version died (exit $rc) after a client vanished"
    nbdkit_known_abort "$TMPDIR_TEST/$name.err" || {
      cat "$TMPDIR_TEST/$name.err" >&2
      fail "$name: nbdkit died (exit $rc), and not of nbdkit 1.32's known assertion"
    }
    died=$((died + 1))
    echo "$name: nbdkit $version aborted in raw_send_socket (its known bug, exit $rc)"
  fi
}

for i in 1 2 3; do
  round "plain-$i" memory 64M
  round "filter-$i" --filter="$DISKSCHED_FILTER" memory 64M sched=sstf
done
echo "nbdkit aborted in $died of 6 rounds"
