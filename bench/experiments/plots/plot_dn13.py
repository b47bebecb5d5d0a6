#!/usr/bin/python3
"""Deodhar & Naik style threshold sweep: average delay, average response time and
total seek distance of SSWT against its threshold, with SSTF as a reference line."""
import argparse
import csv
import sys

from figure import plt, save, style


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--csv", required=True)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    sstf = None
    rows = []
    with open(args.csv, newline="") as f:
        for row in csv.DictReader(f):
            if row["threshold"] == "":
                sstf = row
            else:
                rows.append(row)
    rows.sort(key=lambda r: float(r["threshold"]))
    xs = [float(r["threshold"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    for ax, key, ci, label in ((axes[0], "delay_ms", "ci95_delay_ms", "average delay (ms)"),
                               (axes[1], "response_ms", "ci95_response_ms", "average response time (ms)"),
                               (axes[2], "seek_lbn", None, "total seek distance (LBN)")):
        ys = [float(r[key]) for r in rows]
        es = [float(r[ci]) for r in rows] if ci else None
        ax.errorbar(xs, ys, yerr=es, marker="o", capsize=2, label="SSWT")
        if sstf:
            ax.axhline(float(sstf[key]), color="gray", linestyle="--", label="SSTF (by LBN)")
        style(ax, "SSWT threshold (dispatches)", label)
    save(fig, args.out, "SSWT threshold sweep on a synthetic boot-like workload (HP 97560)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
