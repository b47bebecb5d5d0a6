"""Scheduling end to end: the same open workload (Poisson arrivals of uniform 8 KiB
reads, the same seed) live through nbdkit on the emulated HP 97560 and in the
simulator; the throughput ASATF(30) sustains over FCFS at equal mean response, live as
a fraction of the simulator's.

usage: end_to_end.py RESULTS.json TARGETS_MS PNG

RESULTS.json: {"live"|"sim": {SCHED: [{"rate", "mean_ms", "saturated"}, ...]}}.
The rate sustained at a mean response target is interpolated linearly between the
rates run (as `disksched sweep` does)."""
import json
import math
import sys

res = json.load(open(sys.argv[1]))
targets = [float(t) for t in sys.argv[2].split(",")]


def sustained(points, target):
    pts = sorted(points, key=lambda p: p["rate"])
    prev = None
    for p in pts:
        v = math.inf if p["saturated"] else p["mean_ms"]
        if v > target:
            if prev is None:
                return None
            v0 = prev["mean_ms"]
            if math.isinf(v):
                return prev["rate"]
            return prev["rate"] + (p["rate"] - prev["rate"]) * (target - v0) / (v - v0)
        prev = p
    return None  # never reached the target: the sweep did not go high enough


print()
print(f"{'rate':>6} " + " ".join(f"{w + ' ' + s:>22}" for w in ("live", "sim") for s in ("FCFS", "ASATF(30)")))
rates = sorted({p["rate"] for w in res.values() for s in w.values() for p in s})
scheds = list(res["live"].keys())
for r in rates:
    cells = []
    for w in ("live", "sim"):
        for s in scheds:
            p = next((p for p in res[w][s] if p["rate"] == r), None)
            cells.append("" if p is None else ("saturated" if p["saturated"] else f"{p['mean_ms']:.1f} ms"))
    print(f"{r:6g} " + " ".join(f"{c:>22}" for c in cells))

print()
print(f"{'mean response target':>22} {'live FCFS':>10} {'live ASATF':>11} {'live gain':>10} "
      f"{'sim FCFS':>9} {'sim ASATF':>10} {'sim gain':>9} {'live/sim':>9}")
ratios = []
for t in targets:
    lf, la = (sustained(res["live"][s], t) for s in scheds)
    sf, sa = (sustained(res["sim"][s], t) for s in scheds)
    if None in (lf, la, sf, sa):
        print(f"{t:20g}ms  (a series never reached {t} ms: extend the rates)")
        continue
    lg, sg = la / lf - 1, sa / sf - 1
    ratios.append(lg / sg)
    print(f"{t:20g}ms {lf:10.1f} {la:11.1f} {100 * lg:9.1f}% {sf:9.1f} {sa:10.1f} {100 * sg:8.1f}% "
          f"{lg / sg:9.2f}")
print("(rates in requests per second of disk time)")
if ratios:
    worst = min(ratios)
    print(f"\ntarget: live gain / simulated gain >= 0.9   ours {worst:.2f} (worst target)   "
          + ("MET" if worst >= 0.9 else "NOT MET"))

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for w, style in (("live", "-o"), ("sim", "--s")):
        for s, colour in zip(scheds, ("tab:red", "tab:blue")):
            pts = sorted((p for p in res[w][s] if not p["saturated"]), key=lambda p: p["rate"])
            ax.plot([p["rate"] for p in pts], [p["mean_ms"] for p in pts], style, color=colour,
                    label=f"{s} {w}")
    for t in targets:
        ax.axhline(t, color="grey", lw=0.5)
    ax.set_xlabel("arrival rate (requests/s, disk time)")
    ax.set_ylabel("mean response (ms)")
    ax.set_yscale("log")
    ax.set_title("HP 97560, uniform 8 KiB reads: live (nbdkit + diskemu) vs simulator")
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[3], dpi=120)
    print(f"plot: {sys.argv[3]}")
except ImportError:
    print("(matplotlib not installed: no plot)")
