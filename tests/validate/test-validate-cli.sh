#!/usr/bin/env bash
# `disksched validate` end to end on the first 300 requests of the HP C2247A's trace:
# the JSON fields, the classes the flags allow, the PNG and CSV, and the errors.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "python3-matplotlib is not installed"
make_tmpdir
d=$TMPDIR_TEST
head -n 300 "$TESTS_SRCDIR/data/disksim-valid/hp_c2247a.trace" > "$d/short.trace"

"$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" --json --worst 5 \
  --plot "$d/cdf.png" > "$d/v.json"
/usr/bin/python3 - "$d/v.json" "$d/short.trace" <<'PY' || fail "validate --json fields"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ["trace", "profile", "model", "requests", "mean_measured_ms", "mean_simulated_ms",
          "demerit_ms", "demerit_grid_ms", "demerit_percent_of_mean", "bar_percent_of_mean",
          "classes", "worst", "plot"]:
    assert k in j, k
assert j["requests"] == 300 and j["model"] == "hp97560", j
measured = [float(l.split()[4]) / 1000 for l in open(sys.argv[2])]
assert abs(j["mean_measured_ms"] - sum(measured) / len(measured)) < 1e-9, j["mean_measured_ms"]
assert 0 < j["demerit_ms"] and abs(j["demerit_ms"] - j["demerit_grid_ms"]) < 0.05, j
assert abs(j["demerit_percent_of_mean"] - 100 * j["demerit_ms"] / j["mean_measured_ms"]) < 1e-9
# The C2247A's reads say Hit or Miss: three classes, adding up to all requests.
assert [c["class"] for c in j["classes"]] == ["read hit", "read miss", "write"], j["classes"]
assert sum(c["requests"] for c in j["classes"]) == 300
w = j["worst"]
assert len(w) == 5
gaps = [abs(r["measured_ms"] - r["simulated_ms"]) for r in w]
assert gaps == sorted(gaps, reverse=True), gaps
assert all("simulated_hits" in c for c in j["classes"]) and j["simulated_hits"] == 0  # no cache
for k in ["request", "op", "flag", "block", "blocks", "measured_ms", "simulated_ms", "issue_ms", "simulated_hit",
          "cylinder", "head", "seek_ms", "rotation_ms", "transfer_ms"]:
    assert k in w[0], k
for r in w:  # the breakdown adds up to the simulated time
    parts = sum(r[k] for k in ["overhead_ms", "seek_ms", "rotation_ms", "transfer_ms", "completion_ms"])
    assert abs(parts - r["simulated_ms"]) < 1e-9, r
PY
head -c 8 "$d/cdf.png" | od -An -c | grep -q "P   N   G" || fail "cdf.png is not a PNG"
[ "$(wc -l < "$d/cdf.csv")" -eq 301 ] || fail "cdf.csv: expected a header and 300 requests"

# The human form names the figures.
"$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" > "$d/v.txt"
grep -q "^demerit .* ms .* of the measured mean" "$d/v.txt" || fail "no demerit line: $(cat "$d/v.txt")"
grep -q "^read miss " "$d/v.txt" || fail "no read miss row"

# Errors name what was wrong.
printf 'R Hit 100 8 1000 0\nR Hit 100 8 fast 0\n' > "$d/bad.trace"
if "$DISKSCHED" validate --profile hp97560 --trace "$d/bad.trace" 2> "$d/err"; then
  fail "a malformed trace was accepted"
fi
grep -q "bad.trace:2: field 'access_us'" "$d/err" || fail "trace error: $(cat "$d/err")"
if "$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" --format ascii 2> "$d/err"; then
  fail "--format ascii was accepted"
fi
grep -q "only 'validate'" "$d/err" || fail "--format error: $(cat "$d/err")"
if "$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" --plot "$d/x.svg" 2> "$d/err"; then
  fail "--plot x.svg was accepted"
fi
grep -q "ending in .png" "$d/err" || fail "--plot error: $(cat "$d/err")"
echo "ok"
