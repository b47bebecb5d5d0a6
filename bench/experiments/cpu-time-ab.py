#!/usr/bin/env python3
"""CPU time (user + system) of two or more binaries on the same arguments, runs taken in
turn so that the host's load falls on each alike; prints each one's median and its ratio
to the first's. The old-against-new timing of `disksched sim`:

  bench/experiments/cpu-time-ab.py -n 15 OLD/disksched build/tools/disksched -- \
      sim --model hp97560 --sched fcfs --rate 30 --workload uniform --reps 200
"""
import argparse
import os
import statistics
import sys


def cpu_seconds(binary, args):
    """One run, its output discarded; the child's user + system time from wait4."""
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        try:
            os.execv(binary, [binary] + args)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{binary} {' '.join(args)}: exit status {os.waitstatus_to_exitcode(status)}")
    return usage.ru_utime + usage.ru_stime


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: cpu-time-ab.py [-n RUNS] BINARY BINARY... -- ARGS...")
    cut = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=11, help="runs of each binary (default 11)")
    parser.add_argument("binaries", nargs="+")
    opts = parser.parse_args(argv[:cut])
    args = argv[cut + 1:]
    if opts.n < 1:
        sys.exit("-n must be at least 1")
    times = {b: [] for b in opts.binaries}
    for i in range(opts.n):
        for b in opts.binaries:
            times[b].append(cpu_seconds(b, args))
        print(f"\rrun {i + 1}/{opts.n}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    first = statistics.median(times[opts.binaries[0]])
    load = os.getloadavg()[0]
    print(f"median CPU seconds (user + system) of {opts.n} runs in turn, load {load:.1f}:")
    for b in opts.binaries:
        m = statistics.median(times[b])
        print(f"  {m:8.4f} s  {first / m:5.2f}x  {b}")


if __name__ == "__main__":
    main()
