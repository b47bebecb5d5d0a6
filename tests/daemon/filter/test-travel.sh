#!/usr/bin/env bash
# SCAN's trip to the edge reaches the plugin: before the first request of a new sweep,
# the filter's worker reads one sector on the disk's edge track (nbdkit's log filter,
# below the scheduler, shows it). LOOK turns at the last request and reads nothing extra.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
size=1375617024                 # the HP 97560's capacity (disksched model show hp97560)
track=$((72 * 512))             # bytes per track (72 sectors on every track)

cat > "$TMPDIR_TEST/sweep.py" <<PY
import sys
sys.path.insert(0, "$here")
import nbdio
h = nbdio.connect(sys.argv[1])
# One at a time: up to block 400000 (cylinder ~292), then down to block 8000: nothing
# lies above the head, so SCAN runs on to the last cylinder before it turns.
h.pread(4096, 400000 * 512)
h.pread(4096, 8000 * 512)
h.shutdown()
PY

run() {  # run SCHED LOG
  nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" --filter=log memory "$size" logfile="$2" \
    sched="$1" sched-geometry=hp97560 \
    --run "/usr/bin/python3 '$TMPDIR_TEST/sweep.py' \"\$uri\"" || fail "nbdkit run with $1 failed"
}

# Offsets of the one-sector reads the plugin saw.
stops() { grep -o 'Read id=[0-9]* offset=0x[0-9a-f]* count=0x200 ' "$1" |
          sed 's/.*offset=0x\([0-9a-f]*\).*/\1/' | while read -r x; do echo $((16#$x)); done; }

run scan "$TMPDIR_TEST/scan.log"
cat "$TMPDIR_TEST/scan.log"
mapfile -t s < <(stops "$TMPDIR_TEST/scan.log")
[ "${#s[@]}" -eq 1 ] || fail "SCAN: expected one edge read, saw ${#s[@]}"
[ "${s[0]}" -ge $((size - track)) ] || fail "SCAN: the edge read at ${s[0]} is not on the last track"
# The edge read comes between the two requests.
first=$(grep -n 'Read id=[0-9]* offset=0xc350000 ' "$TMPDIR_TEST/scan.log" | head -1 | cut -d: -f1)
edge=$(grep -n 'count=0x200 ' "$TMPDIR_TEST/scan.log" | head -1 | cut -d: -f1)
second=$(grep -n 'Read id=[0-9]* offset=0x3e8000 ' "$TMPDIR_TEST/scan.log" | head -1 | cut -d: -f1)
[ -n "$first" ] && [ -n "$edge" ] && [ -n "$second" ] || fail "SCAN: requests missing from the log"
[ "$first" -lt "$edge" ] && [ "$edge" -lt "$second" ] || fail "SCAN: the edge read is out of place"

run look "$TMPDIR_TEST/look.log"
mapfile -t l < <(stops "$TMPDIR_TEST/look.log")
[ "${#l[@]}" -eq 0 ] || fail "LOOK read ${#l[@]} extra sectors"
echo ok
