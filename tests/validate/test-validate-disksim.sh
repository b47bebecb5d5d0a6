#!/usr/bin/env bash
# The HP C2247A imported from DiskSim's files as they are, replayed on its measured trace:
# within the DiskSim manual's bar (demerit <= 2% of the mean access time), and every read
# the drive served from its buffer (flag Hit) simulated as a hit. Exact in virtual time.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
make_tmpdir
d=$TMPDIR_TEST
data=$TESTS_SRCDIR/data/disksim-valid
"$DISKSCHED" model import "$data/hp_c2247a.parv" -o "$d/c2247a.json" > "$d/import.log" 2>&1 ||
  fail "model import: $(cat "$d/import.log")"
"$DISKSCHED" validate --profile "$d/c2247a.json" --trace "$data/hp_c2247a.trace" --json > "$d/v.json"
/usr/bin/python3 - "$d/v.json" <<'PY' || fail "HP C2247A validation: $(head -c 600 "$d/v.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["requests"] == 9999
assert j["demerit_percent_of_mean"] <= j["bar_percent_of_mean"], j["demerit_ms"]
hit = next(c for c in j["classes"] if c["class"] == "read hit")
assert hit["simulated_hits"] == hit["requests"] == 1559, hit
PY

# The Seagate Cheetah 9LP (continuous read 4: DiskSim's DEC prefetch scheme): its demerit
# no worse than it was with that scheme (0.185 ms when it read ahead as level 3 does).
"$DISKSCHED" model import "$data/cheetah9LP.parv" -o "$d/cheetah.json" > "$d/import.log" 2>&1 ||
  fail "model import: $(cat "$d/import.log")"
"$DISKSCHED" validate --profile "$d/cheetah.json" --trace "$data/cheetah9LP.trace" --json > "$d/c.json"
/usr/bin/python3 - "$d/c.json" <<'PY' || fail "Cheetah 9LP validation: $(head -c 600 "$d/c.json")"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["requests"] == 10000
assert j["demerit_ms"] <= 0.110, j["demerit_ms"]
PY
echo "ok"
