#!/usr/bin/env bash
# Integrity under every registered scheduler: concurrent random writes (32 in flight),
# then concurrent reads of the same places, checked byte for byte; a read issued after
# an acknowledged write, while the queue is full, returns the new data; and the latency
# log shows every overlapping pair dispatched in arrival order. A 1 ms delay below the
# filter keeps a queue in front of the scheduler.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"

"$DISKSCHED" sched list --json > "$TMPDIR_TEST/algorithms.json"
/usr/bin/python3 - "$TMPDIR_TEST/algorithms.json" > "$TMPDIR_TEST/list" <<'PY'
import json, sys
for a in json.load(open(sys.argv[1])):
    print(a["default_spec"], "mems" if a["needs_mems"] else "hp97560")
PY
count=$(wc -l < "$TMPDIR_TEST/list")
[ "$count" -ge 6 ] || fail "only $count schedulers registered"

n=0
while read -r spec geometry; do
  log="$TMPDIR_TEST/lat-$n.csv"
  out=$(timeout 60 nbdkit -U "$(nbdkit_sock)" -t 64 --filter="$DISKSCHED_FILTER" --filter=delay \
          memory 64M rdelay=1ms wdelay=1ms \
          sched="$spec" sched-geometry="$geometry" sched-log="$log" \
          --run "/usr/bin/python3 '$here/integrity.py' \"\$uri\" $n 32 128" 2>&1) \
    || fail "scheduler $spec on $geometry: $out"
  # 128 writes + 128 reads + 32 background reads + the write and the read after it.
  check=$(/usr/bin/python3 "$here/check_log.py" "$log" 290 2>&1) || fail "scheduler $spec: $check"
  echo "$spec ($geometry): $out; $check"
  n=$((n + 1))
done < "$TMPDIR_TEST/list"
echo "all $n schedulers kept the data"
