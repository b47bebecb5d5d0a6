#!/usr/bin/env bash
# The foreground/background bench's quick mode (bench/filter/foreground-background.sh
# --quick): under each scheduler the foreground job finished all its reads, one at a time
# (each reached the filter only after the previous one completed), and the
# background writer was stopped cleanly (drained, nothing failed); the filter ran the
# scheduler asked for and logged the classes the setup intends, reads of the foreground
# time-critical (op:read) and writes of the background's connection time-noncritical
# (export name, whatever the rule for plain writes); replay --time-limit (the bench's FG_LIMIT) stops a writer that would
# run forever. No timing is asserted: the timing claims are the bench's.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit /usr/bin/python3
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
make_tmpdir

bash "$TESTS_SRCDIR/../bench/filter/foreground-background.sh" --quick "$DISKSCHED_FILTER" \
  "$DISKEMU_PLUGIN" "$TMPDIR_TEST/out" > "$TMPDIR_TEST/bench.txt" 2>&1 \
  || fail "the bench failed: $(cat "$TMPDIR_TEST/bench.txt")"

/usr/bin/python3 - "$TMPDIR_TEST/out" <<'PY' || fail "$(cat "$TMPDIR_TEST/bench.txt")"
import csv, json, sys
out = sys.argv[1]
runs = [json.loads(line) for line in open(f"{out}/runs.jsonl")]
assert [r["sched"] for r in runs] == ["look", "fcfs", "priority"], runs
for r in runs:
    name = r["sched"].split(":")[0]
    assert r["fg_reads"] == 15 and r["fg_errors"] == 0, r
    assert r["bg_stopped"] and r["bg_errors"] == 0 and r["bg_writes_in_window"] > 0, r
    assert r["filter_classes"] == {"read": ["critical"], "write": ["noncritical"]}, r
    assert len(r["filter_schedulers"]) == 1, r
    assert r["filter_schedulers"][0].split(":")[0] == name, r
    # The foreground is a dependent loop: each read reaches the filter only after the
    # previous one completed (and after 10 ms of model time spent computing).
    d = f"{out}/{r['sched'].replace(':', '_').replace(',', '_').replace('=', '_')}-0"
    fg = json.load(open(f"{d}/fg.json"))
    assert fg["mean_queue_len"] == 1 and fg["elapsed_s"] >= 15 * 0.010, fg
    reads = sorted((int(x["arrive_ns"]), int(x["complete_ns"]))
                   for x in csv.DictReader(open(f"{d}/filter.csv")) if x["op"] == "read")
    assert len(reads) == 15, reads
    assert all(b[0] >= a[1] for a, b in zip(reads, reads[1:])), reads
table = open(f"{out}/table.txt").read().splitlines()
assert [line.split()[0] for line in table[1:]] == ["look", "fcfs", "priority"], table
print("ok: 3 schedulers, both jobs completed, classes and schedulers as intended")
PY

# The background's class comes from its connection's export name: a rule making plain
# writes critical leaves its writes noncritical.
SCHEDS=priority:timeout=0 SCHED_CLASSES=op:write=critical bash \
  "$TESTS_SRCDIR/../bench/filter/foreground-background.sh" --quick "$DISKSCHED_FILTER" \
  "$DISKEMU_PLUGIN" "$TMPDIR_TEST/rule" > "$TMPDIR_TEST/rule.txt" 2>&1 \
  || fail "the bench with SCHED_CLASSES failed: $(cat "$TMPDIR_TEST/rule.txt")"
grep -q '"filter_classes": {"read": \["critical"\], "write": \["noncritical"\]}' \
  "$TMPDIR_TEST/rule/runs.jsonl" || fail "export name not honoured: $(cat "$TMPDIR_TEST/rule/runs.jsonl")"

# FG_LIMIT's mechanism: replay --time-limit stops an endless writer, drained, reported.
nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=hp97560 timescale=0.2 \
  sched=look sched-timescale=0.2 \
  --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload closed:n=8,think=0ms,reads=0 \
         --requests 1000000000 --timescale 0.2 --time-limit 1s --quiet --json \
         > '$TMPDIR_TEST/limited.json'" || fail "replay --time-limit failed"
/usr/bin/python3 -c 'import json, sys; j = json.load(open(sys.argv[1]))
assert j["stopped"] and j["errors"] == 0 and 0 < j["requests"] < 1000000000, j' \
  "$TMPDIR_TEST/limited.json" || fail "--time-limit: $(cat "$TMPDIR_TEST/limited.json")"
out=$("$DISKSCHED" replay --nbd "nbd+unix:///?socket=$TMPDIR_TEST/none" --workload closed:n=1 \
  --time-limit 60 2>&1) && fail "replay --time-limit 60 (no unit) succeeded"
echo "$out" | grep -q -- '--time-limit.*60s' || fail "the bad --time-limit is not explained: $out"
echo ok
