#!/usr/bin/env bash
# A geometry far larger than the export (an 8 TB profile over a 1.3 GB disk) is served
# but warned about on stderr, once, and in `ctl show`; a geometry the size of the export
# is not.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit nbdinfo
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
[ -n "${DISKSCHED:-}" ] || skip "disksched was not built"
make_tmpdir

ctl=$TMPDIR_TEST/ctl.sock
nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1375617024 sched=fcfs \
  sched-geometry=sata7200-8tb sched-control="$ctl" \
  --run "nbdinfo --size \"\$uri\" >/dev/null && nbdinfo --size \"\$uri\" >/dev/null && '$DISKSCHED' ctl '$ctl' show --json" \
  >"$TMPDIR_TEST/out" 2>"$TMPDIR_TEST/err" || fail "served no export: $(cat "$TMPDIR_TEST/err")"
n=$(grep -c "does not fit the export" "$TMPDIR_TEST/err" || true)
[ "$n" -eq 1 ] || fail "expected one warning for two connections, got $n: $(cat "$TMPDIR_TEST/err")"
grep -Eq "sched-geometry=sata7200-8tb describes 8000[0-9]{9} bytes but export .. is 1375617024 bytes" \
  "$TMPDIR_TEST/err" || fail "the warning names no sizes: $(cat "$TMPDIR_TEST/err")"

nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1375617024 sched=fcfs \
  sched-geometry=hp97560 sched-control="$ctl.2" \
  --run "nbdinfo --size \"\$uri\" >/dev/null && '$DISKSCHED' ctl '$ctl.2' show --json" \
  >"$TMPDIR_TEST/out2" 2>"$TMPDIR_TEST/err2" \
  || fail "hp97560 over its own size: $(cat "$TMPDIR_TEST/err2")"
! grep -q "does not fit" "$TMPDIR_TEST/err2" || fail "warned for a fitting geometry: $(cat "$TMPDIR_TEST/err2")"
grep -q '"warnings": \[\]' "$TMPDIR_TEST/out2" || fail "ctl show warns for a fitting geometry: $(cat "$TMPDIR_TEST/out2")"
/usr/bin/python3 -c '
import json, sys
w = json.load(open(sys.argv[1]))["warnings"]
assert len(w) == 1 and "does not fit the export" in w[0], w' "$TMPDIR_TEST/out" \
  || fail "ctl show has no warning: $(cat "$TMPDIR_TEST/out")"

echo "geometry fit: warned once for 8 TB over 1.3 GB, silent for a fit"
