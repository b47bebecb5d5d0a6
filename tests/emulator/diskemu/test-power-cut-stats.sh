#!/usr/bin/env bash
# diskemu's stats= file reports a power-cut-after= cut while the server runs (as after
# SIGUSR2), so a client can see the cut happened before it disconnects.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit /usr/bin/python3
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
/usr/bin/python3 -c 'import nbd' 2>/dev/null || skip "python3-libnbd is not installed"
make_tmpdir
cat > "$TMPDIR_TEST/client.py" <<'PY'
import json, sys, nbd
uri, stats = sys.argv[1], sys.argv[2]
h = nbd.NBD()
h.connect_uri(uri)
def cuts():
    try:
        return json.load(open(stats))["write_cache"]["power_cuts"]
    except (OSError, ValueError, KeyError):
        return None
for i in range(4):
    h.pwrite(b"w" * 4096, 4096 * i)
assert cuts() is None, "a stats file before any cut: %r" % cuts()
h.pwrite(b"w" * 4096, 4096 * 4)   # the 5th write: the cut, then the stats file
assert cuts() == 1, "after power-cut-after=5 the stats file says %r" % cuts()
h.shutdown()
print("stats file rewritten after the cut")
PY
nbdkit -U "$(nbdkit_sock)" "$DISKEMU_PLUGIN" model=hp97560 timescale=0.05 write-cache=1M \
  power-cut-after=5 stats="$TMPDIR_TEST/stats.json" \
  --run "/usr/bin/python3 '$TMPDIR_TEST/client.py' \"\$uri\" '$TMPDIR_TEST/stats.json'" \
  || fail "the stats file did not report the power-cut-after= cut while running"
