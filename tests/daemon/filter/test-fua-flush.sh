#!/usr/bin/env bash
# FUA passes through the scheduler to the plugin (nbdkit's log filter below shows it);
# a flush reaches the plugin after every write acknowledged before it; and a flush does
# not wait for writes still queued (NBD only asks it to cover acknowledged ones).
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
log="$TMPDIR_TEST/nbdkit.log"

cat > "$TMPDIR_TEST/fua.py" <<PY
import sys
sys.path.insert(0, "$here")
import nbd, nbdio
h = nbdio.connect(sys.argv[1])
h.pwrite(b"a" * 4096, 0, nbd.CMD_FLAG_FUA)
h.pwrite(b"b" * 4096, 4096)
h.zero(4096, 8192, nbd.CMD_FLAG_FUA)
h.trim(4096, 12288, nbd.CMD_FLAG_FUA)
h.flush()
h.shutdown()
PY
nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" --filter=log memory 1M logfile="$log" sched=sstf \
  --run "/usr/bin/python3 '$TMPDIR_TEST/fua.py' \"\$uri\"" || fail "nbdkit run failed"
cat "$log"
grep -q 'Write id=1 offset=0x0 count=0x1000 fua=1' "$log" || fail "FUA write lost its flag"
grep -q 'Write id=2 offset=0x1000 count=0x1000 fua=0' "$log" || fail "plain write gained FUA"
grep -q 'Zero id=3 offset=0x2000 count=0x1000 trim=.* fua=1' "$log" || fail "FUA zero lost its flag"
grep -q 'Trim id=4 offset=0x3000 count=0x1000 fua=1' "$log" || fail "FUA trim lost its flag"
# The flush starts after the acknowledged writes returned.
flush_line=$(grep -n 'Flush id=5' "$log" | head -1 | cut -d: -f1)
last_write=$(grep -n '\.\.\.Write id=2 return=0' "$log" | cut -d: -f1)
[ -n "$flush_line" ] && [ "$last_write" -lt "$flush_line" ] || fail "flush before an acknowledged write"

# Ten 50 ms writes queue behind each other (depth 1); a flush issued after them
# completes long before the last of them.
cat > "$TMPDIR_TEST/flush.py" <<PY
import sys
sys.path.insert(0, "$here")
import nbdio
h = nbdio.connect(sys.argv[1])
order = []
reqs = [nbdio.Request("write", i * 65536, data=bytes([i]) * 4096) for i in range(10)]
reqs.append(nbdio.Request("flush"))
nbdio.run(h, reqs, depth=11, on_complete=lambda r: order.append(r.kind))
assert all(r.ok for r in reqs)
pos = order.index("flush")
print("completion order:", order)
assert pos < 5, f"the flush waited for {pos} queued writes"
h.shutdown()
PY
nbdkit -U "$(nbdkit_sock)" -t 32 --filter="$DISKSCHED_FILTER" --filter=delay memory 1M wdelay=50ms sched=fcfs \
  --run "/usr/bin/python3 '$TMPDIR_TEST/flush.py' \"\$uri\"" || fail "flush waited for queued writes"
echo ok
