"""Dispatch gaps from a disksched latency log: for each request dispatched while the
device was busy with the previous one (it arrived before that one completed, and the
filter's depth is 1), the time from the previous completion to its dispatch (the
scheduler's decision) and to its issue (the worker woke and called the plugin: the
time the device sat idle).

usage: gaps.py LOG LABEL"""
import csv
import sys

rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["dispatch_ns"]))
decide, idle = [], []
for prev, cur in zip(rows, rows[1:]):
    pc = int(prev["complete_ns"])
    if int(cur["arrive_ns"]) >= pc or int(cur["dispatch_ns"]) < pc:
        continue  # the device went idle, or depth > 1
    decide.append((int(cur["dispatch_ns"]) - pc) / 1e3)
    idle.append((int(cur["issue_ns"]) - pc) / 1e3)


def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, max(0, int(round(p * len(v) + 0.5)) - 1))]


if not idle:
    print(f"{sys.argv[2]:<34} no busy-device dispatches")
    sys.exit(0)
print(f"{sys.argv[2]:<34} {len(idle):8} {q(decide, .5):10.1f} {q(decide, .99):10.1f} "
      f"{q(idle, .5):10.1f} {q(idle, .99):10.1f}")
open(sys.argv[1] + ".p50", "w").write(f"{q(decide, .5)} {q(idle, .5)}\n")
