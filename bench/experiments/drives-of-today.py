#!/usr/bin/env python3
"""Calibration bench of the drives of today, in the simulator (virtual time, exact).

Prints, for the st2000dm006 profile, our figure beside each one measured on the real
drive (Seagate ST2000DM006 through ublk and fio, as published with ublk-disksim's
validation; ../shared/reference/real-drives.md), with the gap in percent, and the 5400 rpm
laptop drive's random-read IOPS at queue depth 1 and 32 with the drive's queue at its
defaults (it must gain at 32). docs/drives-of-today.md carries the table and the reading.

    bench/experiments/drives-of-today.py [--disksched build/tools/disksched] [--requests N] [--rounds N]

Nothing here needs a device or root; a run takes about a minute.
"""
import argparse
import csv
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

KIB4 = 4096
MEASURED = {  # the ST2000DM006 as measured (ms, IOPS)
    "qd1_mean": 17.3, "qd1_median": 17.4, "qd1_p99": 28.7, "qd32_iops": 82.0,
    "flush8": 103.0, "flush64": 656.0,
}
TOLERANCE = 0.15


def run(disksched, args, log=None):
    cmd = [disksched, "sim"] + args + ["--json"]
    if log:
        cmd += ["--log", log]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def responses(log, op=None):
    with open(log) as f:
        return [float(r["response_ms"]) for r in csv.DictReader(f) if op is None or r["op"] == op]


def percentile(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def qd1_reads(disksched, model, n, tmp):
    log = os.path.join(tmp, "qd1.csv")
    run(disksched, ["--model", model, "--workload", "closed:n=1,size=4k,align=4k", "--sched", "fcfs",
                    "--requests", str(n), "--warmup", "200", "--reps", "1"], log)
    r = responses(log)
    return statistics.mean(r), statistics.median(r), percentile(r, 0.99)


def iops(disksched, model, depth, n, extra=()):
    j = run(disksched, ["--model", model, "--workload", f"closed:n={depth},size=4k,align=4k",
                        "--sched", "fcfs", "--depth", str(depth), "--drive-queue", str(depth),
                        "--requests", str(n), "--warmup", "500", "--reps", "3"] + list(extra))
    return float(j["throughput_per_s"])


def flush_after(disksched, model, writes, rounds, capacity, tmp):
    """Rounds of `writes` scattered 4 KiB writes back to back, then a flush (fio: QD1
    writes, then fsync); the mean of the flushes' response times."""
    rng = random.Random(writes)
    trace = os.path.join(tmp, f"flush{writes}.csv")
    with open(trace, "w") as f:
        t = 0.0
        for _ in range(rounds):
            for _ in range(writes):
                f.write(f"{t:.3f},W,{rng.randrange(capacity // KIB4) * KIB4},{KIB4}\n")
                t += 0.1
            f.write(f"{t:.3f},F,0,{KIB4}\n")
            t += 5000.0  # the drive idle and empty before the next round
    log = os.path.join(tmp, f"flush{writes}.log.csv")
    run(disksched, ["--model", model, "--workload", f"trace:csv:{trace}", "--sched", "fcfs"], log)
    return statistics.mean(responses(log, "flush"))


def line(name, ours, measured, unit):
    gap = (ours - measured) / measured
    verdict = "ok" if abs(gap) <= TOLERANCE else "GAP (docs/drives-of-today.md)"
    print(f"  {name:<34} {ours:9.1f} {measured:9.1f} {unit:<5} {gap:+7.1%}  {verdict}")
    return abs(gap) <= TOLERANCE


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--disksched", default=os.environ.get("DISKSCHED", "build/tools/disksched"))
    ap.add_argument("--requests", type=int, default=5000, help="measured requests per run")
    ap.add_argument("--rounds", type=int, default=20, help="flush rounds per N")
    a = ap.parse_args()
    model = "st2000dm006"
    info = json.loads(subprocess.run([a.disksched, "model", "show", model, "--json"], check=True,
                                     capture_output=True, text=True).stdout)
    capacity = int(info.get("capacity_bytes", 2000398934016))
    with tempfile.TemporaryDirectory() as tmp:
        mean, median, p99 = qd1_reads(a.disksched, model, a.requests, tmp)
        # The firmware reorders about 4 of the commands it holds (the measured drive).
        qd32 = iops(a.disksched, model, 32, a.requests, ["--drive-policy", "satf", "--drive-window", "4"])
        f8 = flush_after(a.disksched, model, 8, a.rounds, capacity, tmp)
        f64 = flush_after(a.disksched, model, 64, a.rounds, capacity, tmp)
        print(f"{model} in the simulator beside the measured ST2000DM006 (within {TOLERANCE:.0%}?)")
        print(f"  {'':<34} {'ours':>9} {'measured':>9} {'':<5} {'gap':>7}")
        ok = [line("QD1 random 4 KiB read, mean", mean, MEASURED["qd1_mean"], "ms"),
              line("QD1 random 4 KiB read, median", median, MEASURED["qd1_median"], "ms"),
              line("QD1 random 4 KiB read, p99", p99, MEASURED["qd1_p99"], "ms"),
              line("QD32 random 4 KiB read (window 4)", qd32, MEASURED["qd32_iops"], "IOPS"),
              line("flush after 8 scattered 4 KiB writes", f8, MEASURED["flush8"], "ms"),
              line("flush after 64 scattered 4 KiB writes", f64, MEASURED["flush64"], "ms")]
        laptop = "laptop5400-320gb"
        q1 = iops(a.disksched, laptop, 1, a.requests)
        q32 = iops(a.disksched, laptop, 32, a.requests)
        print(f"{laptop}, the drive's queue at its defaults (policy satf, age limit 1 s, all held reordered):")
        print(f"  QD1 {q1:.1f} IOPS, QD32 {q32:.1f} IOPS: x{q32 / q1:.2f} "
              f"({'gains' if q32 > q1 else 'DOES NOT GAIN'} at depth 32)")
    return 0 if q32 > q1 else 1


if __name__ == "__main__":
    sys.exit(main())
