"""The qos sweep (bench/experiments/qos-sweep.sh): the foreground's p99 and the scrub's MB/s
against the scrub's depth, FCFS at depth 32 beside the qos controller.

    python3 plot_qos.py qos-sweep.csv out.png TITLE"""
import csv
import sys

from figure import plt, save, style

rows = list(csv.DictReader(open(sys.argv[1])))
names = {"a": "(a) FCFS, depth 32", "c": "(c) qos", "s": "(c) qos, bg-share"}
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for way, name in names.items():
    pts = [r for r in rows if r["way"] == way and int(r["scrub_depth"]) > 0]
    x = [int(r["scrub_depth"]) for r in pts]
    left.plot(x, [float(r["fg_p99_ms"]) for r in pts], marker="o", label=name)
    right.plot(x, [float(r["bg_mb_s"]) for r in pts], marker="o", label=name)
idle = [r for r in rows if r["way"] == "a" and int(r["scrub_depth"]) == 0]
if idle:
    left.axhline(float(idle[0]["fg_p99_ms"]), color="grey", linestyle=":", label="idle drive")
for ax in (left, right):
    ax.set_xscale("log", base=2)
style(left, "scrub depth (1 MiB sequential reads outstanding)", "foreground p99 (ms)")
style(right, "scrub depth (1 MiB sequential reads outstanding)", "scrub MB/s")
save(fig, sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
print("wrote", sys.argv[2])
