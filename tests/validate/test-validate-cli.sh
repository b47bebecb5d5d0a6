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
grep -q "carries no measured times; validate reads validate, srt, msr, blkparse" "$d/err" \
  || fail "--format error: $(cat "$d/err")"
if "$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" --plot "$d/x.svg" 2> "$d/err"; then
  fail "--plot x.svg was accepted"
fi
grep -q "ending in .png" "$d/err" || fail "--plot error: $(cat "$d/err")"

# Traces measured on running systems, open at their own times (values worked by hand in
# tests/data/measured/README.md).
m="$TESTS_SRCDIR/data/measured"
check_open() {  # FORMAT FILE MS REQUESTS DEPTH_MAX DEMERIT CLASSES...
  local format=$1 file=$2 ms=$3
  shift 3
  "$DISKSCHED" validate --profile "fixed:ms=$ms" --format "$format" --trace "$m/$file" --json \
    --plot "$d/$format.png" > "$d/$format.json" 2> "$d/$format.err" \
    || fail "validate --format $format: $(cat "$d/$format.err")"
  /usr/bin/python3 - "$d/$format.json" "$@" <<'PY' || fail "validate --format $format --json"
import json, sys
j = json.load(open(sys.argv[1]))
requests, depth_max, demerit = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
assert j["replay"] == "open" and j["requests"] == requests, j
assert j["depth_max"] == depth_max and j["depth"] == depth_max and j["firmware"] == "fcfs", j
assert abs(j["demerit_ms"] - demerit) < 1e-4, j["demerit_ms"]
assert [c["class"] for c in j["classes"]] == sys.argv[5:], j["classes"]
assert all("in_flight" in w and "origin" in w for w in j["worst"])
PY
  [ "$(wc -l < "$d/$format.csv")" -eq $(($1 + 1)) ] || fail "$format.csv: expected $1 requests"
}
check_open msr msr-fixed4.csv 4 4 3 0.4714 read write
check_open srt srt-fixed3.srt 3 4 1 0.7071 read write "read sync" "read readahead" \
  "write sync" "write async"
check_open blkparse blkparse-fixed2.txt 2 4 2 0.9860 read write "read sync" "read readahead" \
  "write sync" "write async"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["unmeasured"] == 1, j' \
  "$d/blkparse.json" || fail "blkparse: the D without its C is not counted as unmeasured"
"$DISKSCHED" validate --profile fixed:ms=2 --format blkparse --trace "$m/blkparse-fixed2.txt" \
  > "$d/b.txt" 2> "$d/b.err"
grep -q "open at the trace's own issue times, firmware fcfs, drive queue depth 2" "$d/b.txt" \
  || fail "blkparse header: $(cat "$d/b.txt")"
grep -q "^compared: measured C - D" "$d/b.txt" || fail "blkparse: what is compared"
grep -q "note: blkparse: 4 of the 5 D events paired" "$d/b.err" || fail "blkparse note: $(cat "$d/b.err")"

# A trace of two devices needs --device; a trace without C events has nothing to compare.
sed 's/^  8,0 /  8,16 /' "$m/blkparse-fixed2.txt" | head -n 2 | cat "$m/blkparse-fixed2.txt" - > "$d/two.txt"
if "$DISKSCHED" validate --profile fixed:ms=2 --format blkparse --trace "$d/two.txt" 2> "$d/err"; then
  fail "a trace of two devices was accepted without --device"
fi
grep -q "requests for 2 devices (8388608, 8388624); choose one with --device N" "$d/err" \
  || fail "device error: $(cat "$d/err")"
"$DISKSCHED" validate --profile fixed:ms=2 --format blkparse --trace "$d/two.txt" --device 8388608 \
  --json > "$d/two.json" || fail "--device 8388608"
/usr/bin/python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["requests"] == 4, j' \
  "$d/two.json" || fail "--device: the other device's requests were compared"
grep -v " C " "$m/blkparse-fixed2.txt" > "$d/noc.txt"
if "$DISKSCHED" validate --profile fixed:ms=2 --format blkparse --trace "$d/noc.txt" 2> "$d/err"; then
  fail "a trace without C events was accepted"
fi
grep -q "no request carries measured times (no D event has its C event" "$d/err" \
  || fail "no-C error: $(cat "$d/err")"
if "$DISKSCHED" validate --profile fixed:ms=2 --format msr --trace "$m/msr-fixed4.csv" --firmware nope \
  2> "$d/err"; then
  fail "--firmware nope was accepted"
fi
grep -q "^disksched: --firmware 'nope': unknown scheduler 'nope'" "$d/err" || fail "firmware error: $(cat "$d/err")"
if "$DISKSCHED" validate --profile hp97560 --trace "$d/short.trace" --depth 4 2> "$d/err"; then
  fail "--depth with a DiskSim validate trace was accepted"
fi
grep -q "replayed closed at depth 1" "$d/err" || fail "--depth error: $(cat "$d/err")"
echo "ok"
