#!/usr/bin/env bash
# bench/validate/mr-jog-evidence.py on the four imported DiskSim validation disks: it runs
# (its demerit equals `disksched validate`'s on every trace, which it checks itself),
# groups the IBM 18ES's reads after writes on the track the head is on, and prints the
# out-of-sample table for all four disks.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
make_tmpdir
d=$TMPDIR_TEST
data=$TESTS_SRCDIR/data/disksim-valid
for stem in hp_c2247a cheetah9LP ibm18es dec_rz26; do
  "$DISKSCHED" model import "$data/$stem.parv" -o "$d/$stem.json" > "$d/import.log" 2>&1 ||
    fail "model import $stem: $(cat "$d/import.log")"
done
/usr/bin/python3 "$TESTS_SRCDIR/../bench/validate/mr-jog-evidence.py" "$DISKSCHED" "$d" \
  > "$d/out.md" 2> "$d/err.log" || fail "mr-jog-evidence.py: $(cat "$d/err.log")"
/usr/bin/python3 - "$d/out.md" <<'PY' || fail "mr-jog-evidence.py output: $(head -c 1500 "$d/out.md")"
import sys
text = open(sys.argv[1]).read()
ibm = text.split("### IBM 18ES")[1].split("###")[0]
row = next(l for l in ibm.splitlines() if l.startswith("| W -> R, no move |"))
assert int(row.split("|")[2]) > 0, row
table = text.split("judged on the even ones")[1]
rows = [l for l in table.splitlines() if l.startswith("| ") and not l.startswith("| disk")]
assert [r.split("|")[1].strip() for r in rows] == [
    "HP C2247A", "Seagate Cheetah 9LP", "IBM 18ES", "DEC RZ26"], rows
PY
echo "ok"
