#!/usr/bin/env bash
# An injected error (nbdkit's error filter below the scheduler fails a quarter of the
# reads) fails only that request: every other read returns the right data, the queue
# keeps moving, the latency log records exactly the failed reads, and once injection
# stops everything reads back.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
trigger="$TMPDIR_TEST/inject"
lat="$TMPDIR_TEST/lat.csv"

cat > "$TMPDIR_TEST/errors.py" <<PY
import os, random, sys
sys.path.insert(0, "$here")
import nbdio
h = nbdio.connect(sys.argv[1])
rng = random.Random(5)
blocks = {i * 65536: rng.randbytes(4096) for i in range(64)}
writes = [nbdio.Request("write", off, data=d) for off, d in blocks.items()]
nbdio.run(h, writes, 16)
assert all(w.ok for w in writes), "a write failed with only read errors injected"
open("$trigger", "w").close()
reads = [nbdio.Request("read", off, 4096) for off in blocks for _ in range(4)]
rng.shuffle(reads)
nbdio.run(h, reads, 32)
failed = [r for r in reads if not r.ok]
good = [r for r in reads if r.ok]
assert failed, "no error was injected"
assert good, "every read failed"
for r in good:
    assert r.result == blocks[r.offset], f"read at {r.offset} returned wrong data"
os.unlink("$trigger")
again = [nbdio.Request("read", off, 4096) for off in blocks]
nbdio.run(h, again, 32)
assert all(r.ok and r.result == blocks[r.offset] for r in again), "reads fail after injection stopped"
print(f"{len(failed)} of {len(reads)} reads failed alone")
open("$TMPDIR_TEST/failed", "w").write(str(len(failed)))
h.shutdown()
PY
nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" --filter=error memory 8M \
  error-pread-rate=25% error-pread=EIO error-pread-file="$trigger" \
  sched=sstf sched-log="$lat" \
  --run "/usr/bin/python3 '$TMPDIR_TEST/errors.py' \"\$uri\"" 2>"$TMPDIR_TEST/stderr" \
  || { cat "$TMPDIR_TEST/stderr"; fail "error test failed"; }
failed=$(cat "$TMPDIR_TEST/failed")
logged=$(grep -c ',EIO$' "$lat")
[ "$logged" -eq "$failed" ] || fail "the log has $logged failed requests, the client saw $failed"
grep ',EIO$' "$lat" | grep -qv ',read,' && fail "a request other than a read is logged as failed"
/usr/bin/python3 "$here/check_log.py" "$lat" $((64 + 256 + 64)) || fail "log check"
echo "ok: $failed failures, each logged"
