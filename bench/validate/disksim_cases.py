#!/usr/bin/env python3
"""Helpers of disksim-cases.sh: a made-up validate trace, DiskSim 4.0's per-request times
read back from its run, and the table of DiskSim's figures beside ours.

  disksim_cases.py trace LO HI SEED N          a validate trace of N requests (stdout)
                                               within blocks LO .. HI - 1
  disksim_cases.py times TRACE IOS_OUT         TRACE with DiskSim's time for each request
  disksim_cases.py table OUT_DIR CASE...       the table (each CASE's files in OUT_DIR)

DiskSim's validate replay is closed: request i + 1 arrives its trace gap after request i
completes. Its "Output file for trace of I/O requests simulated" logs each arrival, so
request i's time is arrival(i + 1) - gap(i) - arrival(i); the trace ends with one request
more, whose time is not wanted.
"""
import json
import random
import sys


def trace(lo, hi, seed, n):
    """Reads and writes within blocks lo .. hi - 1, with the patterns a drive's buffer
    sees: sequential runs, re-reads, reads just past the last (read-ahead), random reads
    and writes, at gaps from none to several revolutions (idle read-ahead)."""
    rng = random.Random(seed)
    blocks = hi - lo
    lines, last, size = [], 0, 4
    for _ in range(n + 1):  # the last is only there to time the one before it
        k = rng.random()
        if k < 0.35:  # the next of a sequential run
            blk = last + size
        elif k < 0.45:  # the same blocks again
            blk = last
        elif k < 0.55:  # a little further on
            blk = last + size + rng.randint(1, 24)
        else:
            blk, size = rng.randrange(blocks), rng.choice([1, 2, 4, 8, 16])
        size = min(size, blocks - 1)
        if blk + size > blocks:
            blk = rng.randrange(blocks - size + 1)
        op = "W" if rng.random() < 0.2 else "R"
        gap_ms = rng.choice([0.0, 0.0, 0.3, 1.0, 2.5, 6.0, 15.0])
        lines.append(f"{op} Miss {lo + blk} {size} 10000.000 {gap_ms * 1000:.3f}")
        last = blk
    return "\n".join(lines) + "\n"


def times(trace_path, ios_path):
    rows = [l.split() for l in open(trace_path) if l.strip()]
    arrive = [float(l.split()[0]) for l in open(ios_path) if l.strip()]
    if len(arrive) != len(rows):
        sys.exit(f"{ios_path}: {len(arrive)} arrivals for {len(rows)} requests in {trace_path}")
    out = []
    for i in range(len(rows) - 1):
        r = rows[i]
        ms = arrive[i + 1] - float(r[5]) / 1000 - arrive[i]
        out.append(f"{r[0]} {r[1]} {r[2]} {r[3]} {ms * 1000:.3f} {r[5]}")
    return "\n".join(out) + "\n"


def table(out_dir, cases):
    head = (f"{'case':<20} {'requests':>8} {'DiskSim ms':>10} {'ours ms':>9} {'demerit':>9}"
            f" {'as rms':>9} {'DiskSim rms':>11} {'differ':>6}  largest difference")
    print(head)
    for case in cases:
        j = json.load(open(f"{out_dir}/{case}-validate.json"))
        theirs = open(f"{out_dir}/{case}.rms").read().split("=")[-1].strip()
        rows = j["worst"]
        differ = [r for r in rows if abs(r["measured_ms"] - r["simulated_ms"]) > 0.01]
        far = max(rows, key=lambda r: abs(r["measured_ms"] - r["simulated_ms"]))
        note = (f"request {far['request']}: DiskSim {far['measured_ms']:.3f}, ours "
                f"{far['simulated_ms']:.3f}" if differ else "")
        print(f"{case:<20} {j['requests']:>8} {j['mean_measured_ms']:>10.4f} "
              f"{j['mean_simulated_ms']:>9.4f} {j['demerit_ms']:>9.4f} "
              f"{j['demerit_histogram_ms']:>9.4f} {float(theirs):>11.6f} {len(differ):>6}  {note}")


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else ""
    if what == "trace" and len(sys.argv) == 6:
        sys.stdout.write(trace(*(int(a) for a in sys.argv[2:6])))
    elif what == "times" and len(sys.argv) == 4:
        sys.stdout.write(times(sys.argv[2], sys.argv[3]))
    elif what == "table" and len(sys.argv) >= 4:
        table(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
