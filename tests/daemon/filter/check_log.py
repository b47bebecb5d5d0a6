"""Checks a disksched latency log against the filter's ordering promises.

usage: check_log.py LOG [EXPECTED_REQUESTS]

- every line has arrive <= dispatch <= issue <= complete;
- two overlapping requests of which one modifies data were dispatched in their order of
  arrival, the later only after the earlier completed (the overlap rule);
- with EXPECTED_REQUESTS, exactly that many lines."""

import csv
import sys

path = sys.argv[1]
rows = list(csv.DictReader(open(path)))
if len(sys.argv) > 2:
    assert len(rows) == int(sys.argv[2]), f"{len(rows)} log lines, expected {sys.argv[2]}"
for r in rows:
    a, d, i, c = (int(r[k]) for k in ("arrive_ns", "dispatch_ns", "issue_ns", "complete_ns"))
    assert a <= d <= i <= c, f"request {r['id']}: times out of order {a} {d} {i} {c}"

modifies = {"write", "trim", "zero"}
# Sweep by offset: requests sorted by start, compare with those still open.
by_start = sorted(rows, key=lambda r: int(r["offset"]))
checked = 0
for i, x in enumerate(by_start):
    xs, xe = int(x["offset"]), int(x["offset"]) + int(x["length"])
    for y in by_start[i + 1:]:
        ys = int(y["offset"])
        if ys >= xe:
            break
        if x["op"] not in modifies and y["op"] not in modifies:
            continue
        # Ids are handed out in order of arrival at the filter.
        first, second = (x, y) if int(x["id"]) < int(y["id"]) else (y, x)
        assert int(second["dispatch_ns"]) >= int(first["complete_ns"]), (
            f"overlapping requests {first['id']} ({first['op']}) and {second['id']} ({second['op']}): "
            f"the later was dispatched before the earlier completed")
        checked += 1
print(f"ok: {len(rows)} lines, {checked} overlapping pairs in arrival order")
