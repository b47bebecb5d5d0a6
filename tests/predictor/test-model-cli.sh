#!/usr/bin/env bash
# `disksched model`: JSON keys and values, errors for bad models, distances and files.
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
py=/usr/bin/python3

show=$("$DISKSCHED" model show hp97560 --json)
echo "$show" | $py -c '
import json, sys
j = json.load(sys.stdin)
assert j["kind"] == "disk", j["kind"]
assert j["capacity_bytes"] == 1375617024, j["capacity_bytes"]
assert j["cylinders"] == 1964 and j["heads"] == 19 and j["sector_bytes"] == 512
assert abs(j["rpm"] - 4002) < 1e-9
assert abs(j["sector_time_ms"] - 0.2082) < 5e-5, j["sector_time_ms"]
z = j["zones"]
assert len(z) == 1 and z[0]["first_cylinder"] == 0 and z[0]["last_cylinder"] == 1963
assert z[0]["sectors_per_track"] == 72
' || fail "model show hp97560 --json"

# model list: every built-in with its kind, capacity and rpm; each name loads.
"$DISKSCHED" model list --json | $py -c '
import json, sys
rows = {r["name"]: r for r in json.load(sys.stdin)}
assert set(rows) >= {"hp97560", "hp97560-full", "gp93", "mems", "mems-table1", "sata7200-8tb",
                     "laptop5400-320gb", "sas15k-600gb"}, sorted(rows)
assert rows["hp97560"]["kind"] == "disk" and rows["hp97560"]["capacity_bytes"] == 1375617024
assert abs(rows["hp97560"]["rpm"] - 4002) < 1e-9 and abs(rows["sata7200-8tb"]["rpm"] - 7200) < 1e-6
assert rows["mems"]["kind"] == "mems" and rows["mems"]["rpm"] is None
assert "sata7200-8tb-4kn" in rows["sata7200-8tb"]["variants"] and "variants" not in rows["gp93"]
print("\n".join(rows))' > "$TMPDIR_TEST/names" || fail "model list --json"
while read -r name; do
  "$DISKSCHED" model show "$name" > /dev/null || fail "model list names '$name', which does not load"
done < "$TMPDIR_TEST/names"
"$DISKSCHED" model list | grep -q "^sata7200-8tb .* 7200$" || fail "model list: $("$DISKSCHED" model list)"

# model show: what the profile holds beyond the geometry. The datasheet drive's cache,
# bus and 4 KiB media sector; a profile whose zones set their own skews says "per zone"
# (not the unused profile-wide default) and shows each zone's.
"$DISKSCHED" model show sata7200-8tb --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["physical_sector_bytes"] == 4096 and j["sector_bytes"] == 512, j["physical_sector_bytes"]
assert j["cache"]["segments"] == 128, j["cache"]
assert isinstance(j["bus"], dict) and j["bus"]["read_sector_ms"] > 0, j["bus"]
assert "source" in j' || fail "model show sata7200-8tb: cache, bus, physical sector"
"$DISKSCHED" model show hp97560 --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["cache"] == "none (the platter alone)" and j["physical_sector_bytes"] == 512, j["cache"]'   || fail "model show hp97560: no cache"
cat > "$TMPDIR_TEST/skews.json" <<'JSON'
{"schema": "disksched-geometry", "version": 1, "name": "zone-skews", "heads": 2, "rpm": 5400,
 "zones": [{"first_cylinder": 0, "last_cylinder": 99, "sectors_per_track": 100, "track_skew_sectors": 12, "cylinder_skew_sectors": 20},
           {"first_cylinder": 100, "last_cylinder": 199, "sectors_per_track": 60, "track_skew_sectors": 7, "cylinder_skew_sectors": 11}],
 "seek": {"form": "table", "points": [[1, 1.5], [50, 4.0], [199, 9.0]]}}
JSON
"$DISKSCHED" model show "$TMPDIR_TEST/skews.json" --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["track_skew_sectors"] == "per zone" and j["cylinder_skew_sectors"] == "per zone", j
assert [z["track_skew_sectors"] for z in j["zones"]] == [12, 7], j["zones"]
assert [z["cylinder_skew_sectors"] for z in j["zones"]] == [20, 11], j["zones"]'   || fail "model show: per-zone skews"
"$DISKSCHED" model show "$TMPDIR_TEST/skews.json" | grep -q "^track_skew_sectors *per zone"   || fail "model show (text): per-zone skews"

"$DISKSCHED" model show fixed:ms=10 --json | $py -c '
import json, sys; j = json.load(sys.stdin); assert j["kind"] == "fixed" and j["service_ms"] == 10' \
  || fail "model show fixed"

"$DISKSCHED" model seek hp97560 1 383 384 1963 --json | $py -c '
import json, sys
got = json.load(sys.stdin)["seek_ms"]
want = [3.640, 11.068, 11.080, 22.923]
assert all(abs(a - b) < 5e-4 for a, b in zip(got, want)) and len(got) == 4, got
' || fail "model seek"

# A profile written by `model show`'s sibling format loads by path.
cat > "$TMPDIR_TEST/z.json" <<'JSON'
{"schema": "disksched-geometry", "version": 1, "name": "two-zone", "heads": 2, "rpm": 5400,
 "zones": [{"first_cylinder": 0, "last_cylinder": 99, "sectors_per_track": 100},
           {"first_cylinder": 100, "last_cylinder": 199, "sectors_per_track": 60}],
 "seek": {"form": "table", "points": [[1, 1.5], [50, 4.0], [199, 9.0]]}}
JSON
"$DISKSCHED" model show "$TMPDIR_TEST/z.json" --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["capacity_bytes"] == (100*2*100 + 100*2*60) * 512, j["capacity_bytes"]
assert [z["sectors_per_track"] for z in j["zones"]] == [100, 60]' || fail "profile by path"

# The map: CSV with the fraction reachable printed, and a PNG.
out=$("$DISKSCHED" model map hp97560 --from 0:0:0 -o "$TMPDIR_TEST/m.png")
echo "$out" | grep -q "reachable within 1 rotation" || fail "map prints reach: $out"
[ -s "$TMPDIR_TEST/m.png" ] && [ -s "$TMPDIR_TEST/m.csv" ] || fail "map wrote no png/csv"
rows=$(($(wc -l < "$TMPDIR_TEST/m.csv") - 1))
[ "$rows" -eq $((1964 * 72)) ] || fail "map has $rows rows"

# Errors: a message and a non-zero exit, never a crash.
expect_error() {
  local pattern=$1; shift
  local err rc=0
  err=$("$DISKSCHED" "$@" 2>&1 >/dev/null) || rc=$?
  [ "$rc" -ne 0 ] || fail "'$*' succeeded"
  [ "$rc" -lt 128 ] || fail "'$*' crashed (status $rc)"
  echo "$err" | grep -q -- "$pattern" || fail "'$*' said '$err', expected '$pattern'"
}
expect_error "unknown model 'hp9756'" model show hp9756
expect_error "distance 'x' is not an integer" model seek hp97560 x
expect_error "beyond the device" model seek hp97560 5000
expect_error "cannot open" model show "$TMPDIR_TEST/missing.json"
echo '{"version": 1}' > "$TMPDIR_TEST/bad.json"
expect_error "field 'heads' is missing" model show "$TMPDIR_TEST/bad.json"
expect_error "outside the disk" model map hp97560 --from 0:30:0 -o "$TMPDIR_TEST/x.csv"
expect_error "must end in .csv or .png" model map hp97560 --from 0:0:0 -o "$TMPDIR_TEST/x.txt"
echo "model CLI ok"

# MEMS: its own keys, the zone rules, and the map.
"$DISKSCHED" model show mems --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["kind"] == "mems" and j["tips"] == 6400 and j["active_tips"] == 1280, j
assert abs(j["settle_ms"] - 0.215) < 5e-4, j["settle_ms"]
assert j["capacity_bytes"] > 3.0e9 and j["sector_bytes"] == 512' || fail "model show mems"
for rule in all-pairs forward reference; do
  "$DISKSCHED" model zones mems --threshold-ms 0.4 --rule $rule --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["rule"] == sys.argv[1] and j["zone_x_bits"] > 0 and j["zone_y_bits"] > 0, j' $rule \
    || fail "model zones --rule $rule"
done
expect_error "rule" model zones mems --threshold-ms 0.4 --rule sideways
expect_error "not a MEMS device" model zones hp97560 --threshold-ms 0.4
out=$("$DISKSCHED" model map mems --from 1200:1200 -o "$TMPDIR_TEST/mems.csv")
echo "$out" | grep -q "equivalence regions" || fail "mems map: $out"
echo "mems CLI ok"

# DiskSim import: the four validation disks, what is ignored, and a malformed file.
valid="$TESTS_SRCDIR/data/disksim-valid"
for disk in hp_c2247a:2054864 cheetah9LP:17783240 ibm18es:17916240 dec_rz26:2050860; do
  name=${disk%%:*} blocks=${disk##*:}
  out=$("$DISKSCHED" model import "$valid/$name.parv" -o "$TMPDIR_TEST/$name.json" 2>"$TMPDIR_TEST/$name.err") \
    || fail "model import $name: $(cat "$TMPDIR_TEST/$name.err")"
  echo "$out" | grep -q "$blocks blocks" || fail "model import $name: $out"
  grep -q "^model import: ignored (not modelled): disksim_disk .*: Never disconnect (" \
    "$TMPDIR_TEST/$name.err" || fail "model import $name: no ignored keys listed"
  # The cache is the drive's now (predictor/import/disksim_drive), not an ignored key.
  ! grep -q ": Number of buffer segments (" "$TMPDIR_TEST/$name.err" \
    || fail "model import $name: the cache keys are listed as ignored"
  "$DISKSCHED" model show "$TMPDIR_TEST/$name.json" --json | $py -c '
import json, sys; j = json.load(sys.stdin)
assert j["capacity_bytes"] == int(sys.argv[1]) * 512, j["capacity_bytes"]' "$blocks" \
    || fail "model show $name.json"
done
"$DISKSCHED" model import --diskspecs "$valid/hp_c2247a.diskspecs" \
  --model "$valid/hp_c2247a_validate.model" -o "$TMPDIR_TEST/pair.json" 2>/dev/null \
  | grep -q "2054864 blocks" || fail "model import --diskspecs --model"
printf 'dm_disk D {\n  Number of data surfaces = 2\n  Number of cylinders = 3\n}\n' > "$TMPDIR_TEST/bad.model"
expect_error "bad.model:3: expected ',' or '}' after the value of 'Number of data surfaces', found the word 'Number'" \
  model import "$TMPDIR_TEST/bad.model" -o "$TMPDIR_TEST/bad.json"
expect_error "give FILE" model import -o "$TMPDIR_TEST/none.json"

# DiskSim's command-line overrides (--set), in model import and in validate, which
# imports DiskSim files itself; a component or key that names nothing is an error.
"$DISKSCHED" model import "$valid/hp_c2247a.parv" --set 'disk0:Enable caching in buffer=0' \
  --set 'disk0:Model:Block count=2000000' -o "$TMPDIR_TEST/off.json" >/dev/null 2>&1 \
  || fail "model import --set"
$py - "$TMPDIR_TEST/off.json" <<'PY' || fail "model import --set: the overrides are not in the profile"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["cache"]["segments"] == 0, p["cache"]
assert p["capacity_sectors"] == 2000000, p.get("capacity_sectors")
assert p["source"]["overrides"] == ["disk0:Enable caching in buffer=0", "disk0:Model:Block count=2000000"]
PY
expect_error "no component named 'disk9' in .*hp_c2247a.parv (it has: statfoo, bus0, bus1, disk0, driver0, ctlr0)" \
  model import "$valid/hp_c2247a.parv" --set 'disk9:Enable caching in buffer=0' -o "$TMPDIR_TEST/x.json"
expect_error "the block disksim_disk HP_C2247A_validate (.*hp_c2247a.diskspecs:1) has no key 'Enable cache'" \
  model import "$valid/hp_c2247a.parv" --set 'disk0:Enable cache=0' -o "$TMPDIR_TEST/x.json"
head -n 200 "$valid/hp_c2247a.trace" > "$TMPDIR_TEST/short.trace"
for how in parv json; do
  profile=$TMPDIR_TEST/off.json
  [ $how = parv ] && profile=$valid/hp_c2247a.parv
  extra=()
  [ $how = parv ] && extra=(--set 'disk0:Enable caching in buffer=0' --set 'disk0:Model:Block count=2000000')
  "$DISKSCHED" validate --profile "$profile" "${extra[@]}" --trace "$TMPDIR_TEST/short.trace" --json \
    > "$TMPDIR_TEST/v-$how.json" 2>/dev/null || fail "validate --profile ($how)"
done
$py - "$TMPDIR_TEST/v-parv.json" "$TMPDIR_TEST/v-json.json" <<'PY' || fail "validate --set differs from model import --set"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["requests"] == 200 and a["simulated_hits"] == 0, a["simulated_hits"]
assert a["demerit_ms"] == b["demerit_ms"], (a["demerit_ms"], b["demerit_ms"])
PY
expect_error "overrides apply to DiskSim files" validate --profile hp97560 --set 'disk0:x=1' \
  --trace "$TMPDIR_TEST/short.trace"
echo "model import ok"
