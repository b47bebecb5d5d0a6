#!/usr/bin/env bash
# DiskSim's drives imported from its files as they are and replayed on their measured
# traces (`disksched validate`), exact in virtual time.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
make_tmpdir
d=$TMPDIR_TEST
data=$TESTS_SRCDIR/data/disksim-valid

# validate NAME CHECK.py: import data/NAME.parv, replay data/NAME.trace on it, and run
# CHECK.py (Python read from stdin) on the JSON result, loaded as `j`.
validate() {
  local name=$1
  "$DISKSCHED" model import "$data/$name.parv" -o "$d/$name.json" \
    < /dev/null > "$d/import.log" 2>&1 ||
    fail "model import: $(cat "$d/import.log")"
  "$DISKSCHED" validate --profile "$d/$name.json" --trace "$data/$name.trace" --json \
    < /dev/null > "$d/$name.v.json"
  /usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); exec(sys.stdin.read())' \
    "$d/$name.v.json" || fail "$name validation: $(head -c 600 "$d/$name.v.json")"
}

# The HP C2247A: within the DiskSim manual's bar (demerit <= 2% of the mean access time),
# and every read the drive served from its buffer (flag Hit) simulated as a hit.
validate hp_c2247a <<'PY'
assert j["requests"] == 9999
assert j["demerit_percent_of_mean"] <= j["bar_percent_of_mean"], j["demerit_ms"]
hit = next(c for c in j["classes"] if c["class"] == "read hit")
assert hit["simulated_hits"] == hit["requests"] == 1559, hit
PY

# The Seagate Cheetah 9LP (continuous read 4: DiskSim's DEC prefetch scheme): its demerit
# no worse than it was with that scheme (0.185 ms when it read ahead as level 3 does).
validate cheetah9LP <<'PY'
assert j["requests"] == 10000
assert j["demerit_ms"] <= 0.110, j["demerit_ms"]
PY
echo "ok"
