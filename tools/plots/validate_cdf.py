#!/usr/bin/python3
"""Plot the measured and simulated access-time CDFs written by `disksched validate --plot`.

usage: validate_cdf.py SAMPLES.csv OUT.png TITLE
The CSV has a header with the columns measured_ms and simulated_ms (one row a request).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def cdf(xs):
    xs = sorted(xs)
    n = len(xs)
    # The curve the demerit measures: order statistic k at p = k / (n - 1).
    return xs, [k / (n - 1) if n > 1 else 1.0 for k in range(n)]


def main():
    src, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
    measured, simulated = [], []
    with open(src, newline="") as f:
        for row in csv.DictReader(f):
            measured.append(float(row["measured_ms"]))
            simulated.append(float(row["simulated_ms"]))
    fig, ax = plt.subplots(figsize=(8, 5))
    for xs, label, style in ((measured, "measured", "-"), (simulated, "simulated", "--")):
        x, p = cdf(xs)
        ax.plot(x, p, style, label=label, linewidth=1.2)
    ax.set_xlabel("access time (ms)")
    ax.set_ylabel("fraction of requests")
    ax.set_ylim(0, 1)
    ax.set_xlim(left=0)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="lower right")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
