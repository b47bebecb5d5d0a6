#!/usr/bin/env bash
# Request classes: from the export name, from the client's I/O priority (ionice), from
# FUA and the op by default, and from sched-classes= rules; the latency log shows them.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client ionice
make_tmpdir
lat="$TMPDIR_TEST/lat.csv"

cat > "$TMPDIR_TEST/io.py" <<'PY'
import sys
import nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
h.pread(4096, 0)
h.pwrite(b"x" * 4096, 4096)
h.pwrite(b"y" * 4096, 8192, nbd.CMD_FLAG_FUA)
h.shutdown()
PY
run() {
  rm -f "$lat"  # a new log per run (sched-log= appends to an existing one)
  timeout 30 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 16M sched=priority \
    sched-log="$lat" "$@" --run "$CLIENT" || fail "run $* failed"
}
classes() { tail -n +2 "$lat" | cut -d, -f2,6 | tr '\n' ' '; }

CLIENT="/usr/bin/python3 $TMPDIR_TEST/io.py \"\$uri\""
run
[ "$(classes)" = "read,critical write,noncritical write,critical " ] || fail "defaults: $(classes)"
CLIENT="/usr/bin/python3 $TMPDIR_TEST/io.py \"nbd+unix:///noncritical?socket=\$unixsocket\""
run
[ "$(classes)" = "read,noncritical write,noncritical write,noncritical " ] || fail "export: $(classes)"
CLIENT="ionice -c 3 /usr/bin/python3 $TMPDIR_TEST/io.py \"\$uri\""
run
[ "$(classes)" = "read,noncritical write,noncritical write,noncritical " ] || fail "ionice idle: $(classes)"
CLIENT="/usr/bin/python3 $TMPDIR_TEST/io.py \"nbd+unix:///db?socket=\$unixsocket\""
run sched-classes='export:db=limited:250ms,op:read=limited:40ms'
[ "$(classes)" = "read,limited:250ms write,limited:250ms write,limited:250ms " ] || fail "rule: $(classes)"
CLIENT="/usr/bin/python3 $TMPDIR_TEST/io.py \"\$uri\""
run sched-classes='op:read=limited:40ms,fua=noncritical,op:write=critical'
[ "$(classes)" = "read,limited:40ms write,critical write,noncritical " ] || fail "op rules: $(classes)"
# sched-background=: that export's requests are noncritical, the others keep the rules,
# and without sched= the scheduler is qos.
rm -f "$lat"
timeout 30 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 16M \
  sched-background=scrub sched-log="$lat" \
  --run "/usr/bin/python3 $TMPDIR_TEST/io.py \"nbd+unix:///scrub?socket=\$unixsocket\" &&
         /usr/bin/python3 $TMPDIR_TEST/io.py \"\$uri\"" || fail "sched-background run failed"
[ "$(classes)" = "read,noncritical write,noncritical write,noncritical read,critical write,noncritical write,critical " ] ||
  fail "sched-background: $(classes)"
tail -n +2 "$lat" | grep -v -q ',"qos:target=50ms,' && fail "sched-background: not qos: $(tail -1 "$lat")"
echo ok
