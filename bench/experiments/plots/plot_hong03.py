#!/usr/bin/python3
"""Hong et al. Fig. 5 style: mean response time and squared coefficient of variation
against the trace scaling factor, for the server-like and user-like workloads."""
import argparse
import csv
import math
import sys

from figure import plt, save, style


def load(path, base_rate):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["ran"] != "1" or row["saturated"] != "0":
                continue
            scale = float(row["rate"]) / base_rate
            series.setdefault(row["series"], []).append(
                (scale, float(row["mean_ms"]), float(row["sq_cv"])))
    return series


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--server", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--server-rate", type=float, required=True)
    p.add_argument("--user-rate", type=float, required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--ymax", type=float, default=50.0, help="mean response axis limit, ms")
    args = p.parse_args()
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    for col, (path, rate, name) in enumerate(((args.server, args.server_rate, "server-like (p=0.005)"),
                                              (args.user, args.user_rate, "user-like (p=0.829)"))):
        series = load(path, rate)
        for label, pts in series.items():
            pts.sort()
            xs = [x for x, _, _ in pts]
            axes[0][col].plot(xs, [m for _, m, _ in pts], marker="o", markersize=3, label=label)
            axes[1][col].plot(xs, [c for _, _, c in pts], marker="o", markersize=3, label=label)
        axes[0][col].set_title(f"mean response time, {name}")
        axes[0][col].set_ylabel("ms")
        axes[0][col].set_ylim(0, args.ymax)
        axes[1][col].set_title(f"squared coefficient of variation, {name}")
        for ax in (axes[0][col], axes[1][col]):
            style(ax, "trace scaling factor", legend=False)
    axes[0][0].legend(fontsize=7, ncol=2)
    save(fig, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
