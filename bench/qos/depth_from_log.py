#!/usr/bin/python3
"""One line of bench/qos/mount-depth.sh: the mean requests at the filter and at the drive.

  depth_from_log.py FILTER.csv FIO.terse NAME RUNTIME_S

Over fio's run (the log's last RUNTIME_S seconds, less one at the start and half a
second at the end: a file system's mkfs and the file's writes come before), by Little's
law: the time requests spent at the filter (arrival to completion) and at the drive
(dispatch to completion), summed, over the span.
"""
import csv
import sys


def main(log, terse, name, runtime_s):
    rows = []
    with open(log) as f:
        for r in csv.DictReader(f):
            if r["complete_ns"] and r["dispatch_ns"]:
                rows.append((int(r["arrive_ns"]), int(r["dispatch_ns"]), int(r["complete_ns"])))
    if not rows:
        sys.exit(f"{name}: the latency log {log} has no completed request")
    end = max(c for _, _, c in rows) - 0.5e9
    start = end - (float(runtime_s) - 1.5) * 1e9
    at_filter = at_drive = 0.0
    for a, d, c in rows:  # each request's time inside [start, end]
        at_filter += max(0.0, min(c, end) - max(a, start))
        at_drive += max(0.0, min(c, end) - max(d, start))
    iops = open(terse).read().split(";")[7]
    print(f"{name:<9} {at_filter / (end - start):10.1f} {at_drive / (end - start):10.1f} {iops:>8}")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    main(*sys.argv[1:])
