#!/usr/bin/env bash
# `disksched sim`, `sweep`, `repro`: JSON keys, byte-identical output from a seed, trace
# replay with a per-request log, errors naming the bad key, sweep files, repro tables.
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
py=/usr/bin/python3
d=$TMPDIR_TEST

# Same seed, same bytes; another seed, other bytes.
args=(sim --model hp97560 --sched satf --workload uniform --rate 50 --requests 500 --warmup 100 --reps 3 --json)
"$DISKSCHED" "${args[@]}" --seed 9 > "$d/a.json"
"$DISKSCHED" "${args[@]}" --seed 9 > "$d/b.json"
"$DISKSCHED" "${args[@]}" --seed 10 > "$d/c.json"
cmp -s "$d/a.json" "$d/b.json" || fail "sim --json differs between two runs with one seed"
cmp -s "$d/a.json" "$d/c.json" && fail "sim --json identical for different seeds"
$py - "$d/a.json" <<'PY' || fail "sim --json keys"
import json, sys
j = json.load(open(sys.argv[1]))
for k in ["requests", "throughput_per_s", "mean_ms", "p95_ms", "p99_ms", "max_ms", "std_ms",
          "sq_cv", "ci95_mean_ms", "mean_queue_len", "mean_seek_ms", "mean_rotation_ms",
          "mean_transfer_ms", "utilization"]:
    assert k in j and j[k] is not None, k
assert j["requests"] == 1500 and j["reps"] == 3, j
assert j["sched"].startswith("satf"), j["sched"]
assert abs(j["throughput_per_s"] - 50) < 5, j["throughput_per_s"]
assert 0 < j["utilization"] < 1 and j["ci95_mean_ms"] > 0
assert j["p95_ms"] <= j["p99_ms"] <= j["max_ms"]
PY

# A trace of our CSV format, replayed with its own timing; the log has every request.
{
  echo "time_ms,op,offset,length"
  for i in $(seq 0 199); do echo "$((i * 40)),R,$((i * 7919 * 4096)),4096"; done
} > "$d/t.csv"
# Its offsets reach 6.5 GB, beyond the 1.3 GB disk: refused unless folding is asked for,
# and then the folded share is said on stderr.
if "$DISKSCHED" sim --model hp97560 --workload "trace:csv:$d/t.csv" 2> "$d/err" > /dev/null; then
  fail "a trace beyond the device was folded silently"
fi
grep -q "lie beyond the device.*fold=1" "$d/err" || fail "fold refusal: $(cat "$d/err")"
"$DISKSCHED" sim --model hp97560 --sched sstf --workload "trace:csv:$d/t.csv,fold=1" --warmup 0 \
  --requests 0 --log "$d/log.csv" --json > "$d/t.json" 2> "$d/err"
grep -q "note: trace '$d/t.csv': folded 157 of 200 requests (78.5%)" "$d/err" ||
  fail "fold note: $(cat "$d/err")"
$py - "$d/t.json" "$d/log.csv" <<'PY' || fail "trace replay"
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j["requests"] == 200 and j["reps"] == 1, j
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 200
assert sorted(int(r["seq"]) for r in rows) == list(range(200))
assert all(abs(float(r["arrival_ms"]) - 40 * int(r["seq"])) < 1e-6 for r in rows)
PY

# A trace with classes (blkparse: reads and S writes sync, other writes async): the
# classes reach the scheduler and the results are split by class.
for i in $(seq 0 99); do
  printf '  8,0 0 %d %d.%03d000000 1 D %s %d + 8 [a]\n' "$((i + 1))" "$((i / 100))" \
    "$((i * 7 % 1000))" "$([ $((i % 3)) -eq 0 ] && echo W || echo RS)" "$((i * 104729 % 2000000))"
done | sort -k4,4n > "$d/c.blk"
"$DISKSCHED" sim --model hp97560 --sched priority --workload "trace:blkparse:$d/c.blk" \
  --json --log "$d/clog.csv" > "$d/c.json" 2> "$d/err" || fail "class trace: $(cat "$d/err")"
grep -q "note: blkparse: replaying the 100 D (issued) events" "$d/err" || fail "events note: $(cat "$d/err")"
$py - "$d/c.json" "$d/clog.csv" <<'PY' || fail "per-class results"
import csv, json, sys
j = json.load(open(sys.argv[1]))
c = j["classes"]
assert c["critical"]["count"] == 66 and c["noncritical"]["count"] == 34, c
assert "sync:critical" in c["map"], c
rows = list(csv.DictReader(open(sys.argv[2])))
assert sum(r["class"] == "noncritical" for r in rows) == 34
PY
"$DISKSCHED" sim --model hp97560 --sched priority --workload "trace:blkparse:$d/c.blk" \
  > "$d/c.txt" 2> /dev/null
grep -q "^per class" "$d/c.txt" || fail "per-class table: $(cat "$d/c.txt")"
# Without classes (a CSV trace, or classes=none) there is no per-class section.
"$DISKSCHED" sim --model hp97560 --workload "trace:blkparse:$d/c.blk,classes=none" --json \
  2> /dev/null | $py -c 'import json,sys; assert "classes" not in json.load(sys.stdin)' ||
  fail "classes=none still split by class"

# A malformed trace line: the error names the file, the line and the field.
printf '0,R,0,4096\n5,R,notanumber,4096\n' > "$d/bad.csv"
if "$DISKSCHED" sim --workload "trace:csv:$d/bad.csv" 2> "$d/err"; then fail "bad trace accepted"; fi
grep -q "$d/bad.csv:2: field 'offset'" "$d/err" || fail "trace error: $(cat "$d/err")"
# A bad workload key and a bad scheduler stop before any work.
if "$DISKSCHED" sim --workload uniform:sise=8k 2> "$d/err"; then fail "bad key accepted"; fi
grep -q "unknown parameter 'sise'" "$d/err" || fail "workload error: $(cat "$d/err")"
if "$DISKSCHED" sim --sched nosuch 2> "$d/err"; then fail "bad scheduler accepted"; fi
grep -q "unknown scheduler 'nosuch'" "$d/err" || fail "scheduler error: $(cat "$d/err")"

# The drive's own queue: depth 1 is the device without one (the same numbers); a
# reordering drive under a FCFS host answers faster; bad values name the option.
dq=(sim --model hp97560 --workload uniform --rate 38 --requests 400 --warmup 100 --reps 2 --json)
"$DISKSCHED" "${dq[@]}" --sched satf > "$d/dq0.json"
"$DISKSCHED" "${dq[@]}" --sched satf --drive-queue 1 > "$d/dq1.json"
"$DISKSCHED" "${dq[@]}" --sched fcfs --depth 32 --drive-queue 32 --drive-policy fcfs > "$d/dqf.json"
"$DISKSCHED" "${dq[@]}" --sched fcfs --depth 32 --drive-queue 32 --drive-policy satf > "$d/dqs.json"
$py - "$d" <<'PY' || fail "sim --drive-queue"
import json, sys
d = sys.argv[1]
j0, j1, jf, js = (json.load(open(f"{d}/{n}.json")) for n in ["dq0", "dq1", "dqf", "dqs"])
assert "drive_queue" not in j0 and j1["drive_queue"]["depth"] == 1, j1
for k in ["mean_ms", "p99_ms", "throughput_per_s"]:
    assert j0[k] == j1[k], (k, j0[k], j1[k])
assert js["drive_queue"] == {"depth": 32, "policy": js["drive_queue"]["policy"], "window": 0, "age_limit": "1000ms"}
assert js["drive_queue"]["policy"].startswith("satf"), js
assert js["mean_ms"] < jf["mean_ms"], (js["mean_ms"], jf["mean_ms"])
PY
if "$DISKSCHED" sim --drive-queue 4 --drive-policy nosuch 2> "$d/err" > /dev/null; then
  fail "a bad --drive-policy was accepted"
fi
grep -q -- "--drive-policy nosuch: unknown scheduler" "$d/err" || fail "drive policy error: $(cat "$d/err")"
if "$DISKSCHED" sim --drive-queue 4 --drive-age-limit 500 2> "$d/err" > /dev/null; then
  fail "a bare --drive-age-limit was accepted"
fi
grep -q -- "--drive-age-limit 500: .*500ms" "$d/err" || fail "drive age limit error: $(cat "$d/err")"

# A small sweep: CSV rows for every scheduler and rate, and the sustained-rate table.
"$DISKSCHED" sweep --model hp97560 --sched fcfs --sched satf --rates 20:60:20 --reps 2 \
  --requests 300 --warmup 100 -o "$d/sweep" --no-plot -q > "$d/sweep.out"
[ "$(grep -c '^' "$d/sweep/sweep.csv")" -eq 7 ] || fail "sweep.csv rows: $(cat "$d/sweep/sweep.csv")"
grep -q "^satf,mean,300," "$d/sweep/sustained.csv" || fail "sustained.csv"
grep -q "rate sustained at" "$d/sweep.out" || fail "sweep table"

# The reproductions run end to end (a smoke test of the commands, not of the results).
for paper in jw91 hong03 dn13; do
  "$DISKSCHED" repro "$paper" --quick --no-plot -q -o "$d/$paper" > "$d/$paper.out"
  grep -Eq "^[0-9]+ claims: [0-9]+ agree" "$d/$paper.out" || fail "repro $paper table"
  [ -s "$d/$paper/claims.md" ] && [ -s "$d/$paper/claims.csv" ] || fail "repro $paper files"
done
echo OK
