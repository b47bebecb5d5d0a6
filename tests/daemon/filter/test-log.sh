#!/usr/bin/env bash
# The latency log as a careless or hostile user meets it (issue 15, items 4 and 5):
# sched-log= refuses a disk image (untouched) and a FIFO with no reader (at once, not a
# hang), appends to an existing latency log, follows a moved log on `ctl reopen`, and
# `ctl show` counts what was written; `disksched log summary` skips a cut last line
# and says so.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
lat="$TMPDIR_TEST/lat.csv"
ctl="$TMPDIR_TEST/ctl.sock"

# Four 4 KiB reads through the filter.
cat > "$TMPDIR_TEST/io.py" <<'PY'
import sys
import nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
for i in range(4):
    h.pread(4096, i * 4096)
h.shutdown()
PY
serve() {
  timeout 30 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 16M "$@" \
    --run "/usr/bin/python3 '$TMPDIR_TEST/io.py' \"\$uri\""
}
rows() { /usr/bin/python3 -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$1"; }

# A disk image given by mistake is refused and left as it was.
img="$TMPDIR_TEST/disk.img"
head -c 1048576 /dev/urandom > "$img"
before=$(md5sum < "$img")
if out=$(serve sched-log="$img" 2>&1); then fail "a disk image was accepted as sched-log: $out"; fi
echo "$out" | grep -q "is not a disksched latency log" || fail "image refused without saying why: $out"
[ "$(md5sum < "$img")" = "$before" ] || fail "the disk image was changed"
[ "$(stat -c %s "$img")" = 1048576 ] || fail "the disk image was truncated"

# A FIFO nobody reads: refused at once (the old filter hung start-up here).
mkfifo "$TMPDIR_TEST/fifo"
rc=0
out=$(serve sched-log="$TMPDIR_TEST/fifo" 2>&1) || rc=$?
[ "$rc" != 124 ] || fail "start-up hung on a FIFO with no reader"
[ "$rc" != 0 ] || fail "a FIFO was accepted as sched-log"
echo "$out" | grep -q "is a FIFO" || fail "FIFO refused without saying why: $out"

# Two runs, one log: the second appends.
serve sched-log="$lat" || fail "first run failed"
serve sched-log="$lat" || fail "second run failed"
[ "$(rows "$lat")" = 8 ] || fail "after two runs of 4 reads the log has $(rows "$lat") lines"
[ "$(grep -c '^id,op,' "$lat")" = 1 ] || fail "the header was written twice"

# logrotate: move the log away, `ctl reopen`, and the next lines go to a new file.
rm -f "$lat"
cat > "$TMPDIR_TEST/rotate.sh" <<SH
set -e
/usr/bin/python3 '$TMPDIR_TEST/io.py' "\$uri"
"$DISKSCHED" ctl '$ctl' show --json > '$TMPDIR_TEST/show1.json'
mv '$lat' '$lat.1'
"$DISKSCHED" ctl '$ctl' reopen
/usr/bin/python3 '$TMPDIR_TEST/io.py' "\$uri"
SH
timeout 30 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 16M sched-log="$lat" \
  sched-control="$ctl" --run "uri=\"\$uri\" bash '$TMPDIR_TEST/rotate.sh'" \
  || fail "the rotation run failed"
/usr/bin/python3 - "$TMPDIR_TEST/show1.json" "$lat" <<'PY' || fail "ctl show has no log status"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["log_path"] == sys.argv[2], s
assert s["log_dropped"] == 0 and s["log_write_errors"] == 0 and s["log_error"] is None, s
PY
[ "$(rows "$lat.1")" = 4 ] || fail "the rotated log has $(rows "$lat.1") lines, expected 4"
[ "$(rows "$lat")" = 4 ] || fail "the reopened log has $(rows "$lat") lines, expected 4"

# A full file system (a file-size limit stands in for it: writes past 100 KiB fail, and
# SIGXFSZ, ignored here, stays ignored in nbdkit): the failure is reported once, and the
# lines that did land are whole.
cat > "$TMPDIR_TEST/many.py" <<'PY'
import sys
import nbd
h = nbd.NBD()
h.connect_uri(sys.argv[1])
for i in range(2000):
    h.pread(512, (i % 64) * 4096)
h.shutdown()
PY
rm -f "$lat"
( trap '' XFSZ; ulimit -f 100
  timeout 60 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 16M sched-log="$lat" \
    --run "/usr/bin/python3 '$TMPDIR_TEST/many.py' \"\$uri\"" ) 2> "$TMPDIR_TEST/full.err" \
  || fail "the run on a full log failed: $(cat "$TMPDIR_TEST/full.err")"
reports=$(grep -c "sched-log: .*write failed" "$TMPDIR_TEST/full.err" || true)
[ "$reports" = 1 ] || fail "write failures reported $reports times: $(cat "$TMPDIR_TEST/full.err")"
"$DISKSCHED" log summary "$lat" > /dev/null 2> "$TMPDIR_TEST/notes" \
  || fail "the summary rejected the log of a full file system: $(cat "$TMPDIR_TEST/notes")"
[ ! -s "$TMPDIR_TEST/notes" ] || fail "the full log has a cut line: $(cat "$TMPDIR_TEST/notes")"
[ "$(rows "$lat")" -lt 2000 ] || fail "the file-size limit did not bite"
echo "full file system: $(rows "$lat") of 2000 lines written, the failure reported once"

# A log whose last line was cut (the disk filled up, the server was killed).
head -c -20 "$lat.1" > "$TMPDIR_TEST/cut.csv"
"$DISKSCHED" log summary "$TMPDIR_TEST/cut.csv" > "$TMPDIR_TEST/summary" 2> "$TMPDIR_TEST/notes" \
  || fail "the summary rejected a log with a cut last line: $(cat "$TMPDIR_TEST/notes")"
grep -q "the last line is cut" "$TMPDIR_TEST/notes" || fail "the cut line was skipped silently"
grep -q "^requests 3 " "$TMPDIR_TEST/summary" || fail "summary: $(head -1 "$TMPDIR_TEST/summary")"
echo ok
