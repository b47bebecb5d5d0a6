#!/usr/bin/env bash
# The drives-of-today calibration bench (bench/experiments/drives-of-today.py) runs in the
# simulator: every st2000dm006 line within 15% of the measured drive, and the 5400 rpm
# drive gaining at depth 32 under the drive queue's defaults.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
make_tmpdir
out=$TMPDIR_TEST/bench.txt
/usr/bin/python3 "$TESTS_SRCDIR/../bench/experiments/drives-of-today.py" --disksched "$DISKSCHED" \
  --requests 2000 --rounds 10 > "$out" 2>&1 || fail "the bench: $(cat "$out")"
[ "$(grep -c ' ok$' "$out")" = 6 ] || fail "not every line within 15%: $(cat "$out")"
grep -q "(gains at depth 32)" "$out" || fail "no gain at depth 32: $(cat "$out")"
