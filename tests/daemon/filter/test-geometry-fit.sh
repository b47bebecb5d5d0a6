#!/usr/bin/env bash
# A geometry far larger than the export (an 8 TB profile over a 1.3 GB disk) is served
# but warned about on stderr, once; a geometry the size of the export is not.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit nbdinfo
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
make_tmpdir

nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1375617024 sched=fcfs \
  sched-geometry=sata7200-8tb --run 'nbdinfo --size "$uri" && nbdinfo --size "$uri"' \
  >"$TMPDIR_TEST/out" 2>"$TMPDIR_TEST/err" || fail "served no export: $(cat "$TMPDIR_TEST/err")"
n=$(grep -c "does not fit the export" "$TMPDIR_TEST/err" || true)
[ "$n" -eq 1 ] || fail "expected one warning for two connections, got $n: $(cat "$TMPDIR_TEST/err")"
grep -Eq "sched-geometry=sata7200-8tb describes 8000[0-9]{9} bytes but export .. is 1375617024 bytes" \
  "$TMPDIR_TEST/err" || fail "the warning names no sizes: $(cat "$TMPDIR_TEST/err")"

nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1375617024 sched=fcfs \
  sched-geometry=hp97560 --run 'nbdinfo --size "$uri"' >/dev/null 2>"$TMPDIR_TEST/err2" \
  || fail "hp97560 over its own size: $(cat "$TMPDIR_TEST/err2")"
! grep -q "does not fit" "$TMPDIR_TEST/err2" || fail "warned for a fitting geometry: $(cat "$TMPDIR_TEST/err2")"
echo "geometry fit: warned once for 8 TB over 1.3 GB, silent for a fit"
