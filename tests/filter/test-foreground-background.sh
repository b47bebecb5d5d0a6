#!/usr/bin/env bash
# The foreground/background bench's quick mode (bench/filter/foreground-background.sh
# --quick): under each scheduler the foreground job finished all its reads and the
# background writer was stopped cleanly (drained, nothing failed); the filter ran the
# scheduler asked for and logged the classes the setup intends, reads of the foreground
# time-critical (op:read) and writes of the background's connection time-noncritical
# (export name). No timing is asserted: the timing claims are the bench's.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit /usr/bin/python3
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
make_tmpdir

bash "$TESTS_SRCDIR/../bench/filter/foreground-background.sh" --quick "$DISKSCHED_FILTER" \
  "$DISKEMU_PLUGIN" "$TMPDIR_TEST/out" > "$TMPDIR_TEST/bench.txt" 2>&1 \
  || fail "the bench failed: $(cat "$TMPDIR_TEST/bench.txt")"

/usr/bin/python3 - "$TMPDIR_TEST/out" <<'PY' || fail "$(cat "$TMPDIR_TEST/bench.txt")"
import json, sys
out = sys.argv[1]
runs = [json.loads(line) for line in open(f"{out}/runs.jsonl")]
assert [r["sched"] for r in runs] == ["look", "fcfs", "priority:timeout=0"], runs
for r in runs:
    name = r["sched"].split(":")[0]
    assert r["fg_reads"] == 15 and r["fg_errors"] == 0, r
    assert r["bg_stopped"] and r["bg_errors"] == 0 and r["bg_writes_in_window"] > 0, r
    assert r["filter_classes"] == {"read": ["critical"], "write": ["noncritical"]}, r
    assert len(r["filter_schedulers"]) == 1, r
    assert r["filter_schedulers"][0].split(":")[0] == name, r
table = open(f"{out}/table.txt").read().splitlines()
assert [line.split()[0] for line in table[1:]] == ["look", "fcfs", "priority:timeout=0"], table
print("ok: 3 schedulers, both jobs completed, classes and schedulers as intended")
PY
echo ok
