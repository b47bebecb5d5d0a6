#!/usr/bin/python3
"""Plot a seek curve measured by `disksched extract --plot`: the measured points and the fit.

usage: seek_plot.py SEEK.csv OUT.png TITLE
The CSV has the columns distance, measured_ms, fitted_ms.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, out, title = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    d = [int(r["distance"]) for r in rows]
    m = [float(r["measured_ms"]) for r in rows]
    fit = sorted(zip(d, [float(r["fitted_ms"]) for r in rows]))
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(d, m, "o", ms=4, label="measured (reach threshold)")
    ax.plot([p[0] for p in fit], [p[1] for p in fit], "-", label="fitted curve")
    ax.set_xscale("symlog", linthresh=16)
    ax.set_xlabel("seek distance (cylinders)")
    ax.set_ylabel("seek time (ms)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
