#!/usr/bin/env bash
# The live QoS bench's figures (bench/qos/live_table.py): a job's throughput beside the
# reader counts only what completed at the filter while the reader ran, so a scrub
# starved during the reader and served after it (way b's idle class) shows what it had
# beside it, not fio's figure over its own time.
. "$TESTS_SRCDIR/lib.sh"
requires /usr/bin/python3
make_tmpdir
d=$TMPDIR_TEST/run
mkdir -p "$d"
# One second of the reader (4 KiB reads completing at 0 ms and 1000 ms), one 1 MiB scrub
# read completing beside it (500 ms), three after it (1500 to 2500 ms), one write beside it.
{
  echo "id,op,offset,length,flags,class,arrive_ns,dispatch_ns,issue_ns,complete_ns,predicted_us,actual_us,sector_us,queue_len,scheduler,error"
  echo "0,read,0,4096,,critical,0,0,0,0,,,,1,fcfs,"
  echo "1,read,1048576,1048576,,noncritical,0,0,0,500000000,,,,1,fcfs,"
  echo "2,write,8192,4096,,noncritical,0,0,0,600000000,,,,1,fcfs,"
  echo "3,read,4096,4096,,critical,0,0,0,1000000000,,,,1,fcfs,"
  for i in 1 2 3; do
    echo "$((3 + i)),read,$((1048576 * (i + 1))),1048576,,noncritical,0,0,0,$((1000000000 + 500000000 * i)),,,,1,fcfs,"
  done
} > "$d/filter.csv"
job() {
  echo "{\"jobname\": \"$1\", \"read\": {\"total_ios\": 1, \"bw_bytes\": $2, \"iops\": 1, \"lat_ns\": {\"mean\": 1e6, \"percentile\": {\"50.000000\": 1e6, \"99.000000\": 2e6}}}, \"write\": {\"total_ios\": 0}}"
}
echo "{\"jobs\": [$(job fg 4096), $(job scrub 2000000)]}" > "$d/fio.json"
/usr/bin/python3 "$TESTS_SRCDIR/../bench/qos/live_table.py" run c 0 "$d" 1.0 > "$TMPDIR_TEST/run.json" \
  || fail "live_table.py run: $(cat "$TMPDIR_TEST/run.json")"
/usr/bin/python3 - "$TMPDIR_TEST/run.json" <<'PY' || fail "beside the reader: $(cat "$TMPDIR_TEST/run.json")"
import json, sys
r = json.load(open(sys.argv[1]))
b = r["beside_fg"]
assert abs(r["beside_fg_s"] - 1.0) < 1e-9, r["beside_fg_s"]
assert abs(b["scrub"]["mb_s"] - 1.048576) < 1e-6, b        # one of the four scrub reads
assert abs(b["writer"]["iops"] - 1.0) < 1e-9, b
assert abs(r["scrub"]["mb_s"] - 2.0) < 1e-9, r["scrub"]    # fio's own figure, kept beside it
PY
# The table judges the goal by the figure beside the reader.
cp "$TMPDIR_TEST/run.json" "$TMPDIR_TEST/runs.jsonl"
sed -e 's/"name": "c"/"name": "idle-nbd-scrub"/' "$TMPDIR_TEST/run.json" >> "$TMPDIR_TEST/runs.jsonl"
/usr/bin/python3 "$TESTS_SRCDIR/../bench/qos/live_table.py" table "$TMPDIR_TEST/runs.jsonl" \
  "$TMPDIR_TEST/live.png" > "$TMPDIR_TEST/table.md" 2>&1 || { cat "$TMPDIR_TEST/table.md"; fail "table"; }
grep -q '^| (c) disksched qos (sched-background=scrub) |.*| 1.0 | 2.0 |' "$TMPDIR_TEST/table.md" \
  || fail "the row of way c: $(cat "$TMPDIR_TEST/table.md")"
echo "ok"
