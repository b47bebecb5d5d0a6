#!/usr/bin/python3
"""Plots a `disksched sweep` CSV.

--kind rate:  mean (top) and 95th percentile (bottom) response time against the
              arrival rate, one line per scheduler, 95% CI error bars (JW Fig. 10).
--kind param: mean, standard deviation and 95th percentile against the swept
              parameter, one panel per series (JW Fig. 12).
Saturated points (and rates skipped after one) are left out.
"""
import argparse
import csv
import math
import sys

from figure import plt, save, style


def number(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


def load(path):
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["series"], []).append(row)
    return series


def usable(row):
    return row["ran"] == "1" and row["saturated"] == "0"


def plot_rate(series, args):
    fig, axes = plt.subplots(2, 1, figsize=(8, 9), sharex=True)
    for ax, key, ci, label, cap in (
        (axes[0], "mean_ms", "ci95_mean_ms", "mean response time (s)", args.ymax_mean),
        (axes[1], "p95_ms", "ci95_p95_ms", "95th percentile response time (s)", args.ymax_p95),
    ):
        for name, rows in series.items():
            rows = [r for r in rows if usable(r)]
            xs = [number(r["rate"]) for r in rows]
            ys = [number(r[key]) / 1000 for r in rows]
            es = [number(r[ci]) / 1000 if r[ci] else 0 for r in rows]
            ax.errorbar(xs, ys, yerr=es, marker="o", markersize=3, capsize=2, label=name)
        ax.set_ylabel(label)
        ax.set_ylim(0, cap / 1000)
        style(ax, legend=False)
    axes[1].set_xlabel("arrival rate (requests/s)")
    axes[0].legend(fontsize=8, ncol=2)
    axes[0].set_title(args.title)
    save(fig, args.out)


def plot_param(series, args):
    n = len(series)
    fig, axes = plt.subplots(n, 1, figsize=(8, 4 * n), squeeze=False)
    for ax, (name, rows) in zip(axes[:, 0], series.items()):
        rows = [r for r in rows if usable(r)]
        xs = [number(r["x"]) for r in rows]
        for key, label in (("mean_ms", "mean"), ("std_ms", "standard deviation"),
                           ("p95_ms", "95th percentile")):
            ax.plot(xs, [number(r[key]) / 1000 for r in rows], marker="o", markersize=3,
                    label=label)
        rate = rows[0]["rate"] if rows else "?"
        ax.set_title(f"{args.title}: {name} at {rate} requests/s")
        style(ax, args.param, "response time (s)")
    save(fig, args.out)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--csv", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--title", default="")
    p.add_argument("--kind", choices=["rate", "param"], default="rate")
    p.add_argument("--param", default="parameter")
    p.add_argument("--ymax-mean", type=float, default=1000.0, help="ms")
    p.add_argument("--ymax-p95", type=float, default=2500.0, help="ms")
    args = p.parse_args()
    series = load(args.csv)
    if not series:
        print(f"{args.csv}: no rows", file=sys.stderr)
        return 1
    (plot_rate if args.kind == "rate" else plot_param)(series, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
