#!/usr/bin/env bash
# `disksched predicts`: what a profile predicts beside the drive, in virtual time. A
# profile extracted within its checks exits 0; one whose extraction failed its checks
# still shows its table but exits non-zero, names what failed, and is saved marked partial.
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
d=$TMPDIR_TEST

"$DISKSCHED" predicts laptop5400-320gb --extract -o "$d/laptop.json" > "$d/out" 2> "$d/err" \
  || fail "laptop5400 extracted within its checks, but predicts failed: $(cat "$d/err")"
grep -q "QD32/QD1\|QD32" "$d/out" || fail "no table: $(cat "$d/out")"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert not p["source"].get("partial"), p["source"]' \
  "$d/laptop.json" || fail "a profile that passed is marked partial"

# sas15k's zone crossings (a cylinder of seek is 1.7 us there) are measured within its
# checks too; on a budget too short for its zones the extraction fails.
"$DISKSCHED" predicts sas15k-600gb --extract -o "$d/sas-full.json" > "$d/out" 2> "$d/err" \
  || fail "sas15k extracted within its checks, but predicts failed: $(cat "$d/err")"
if "$DISKSCHED" predicts sas15k-600gb --extract --budget 60 -o "$d/sas.json" > "$d/out" 2> "$d/err"; then
  fail "sas15k's extraction on a 60 s budget measures part of its zones, yet predicts exited 0"
fi
grep -q "extraction FAILED: zones" "$d/err" || fail "the failure is not named: $(cat "$d/err")"
grep -q "QD32" "$d/out" || fail "the table is not shown for a failed extraction"
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); assert p["source"]["partial"] is True' \
  "$d/sas.json" || fail "the failed extraction's profile is not marked partial"
echo "ok: predicts exits 0 for a checked profile, 1 (naming the failure) for a failed one"
