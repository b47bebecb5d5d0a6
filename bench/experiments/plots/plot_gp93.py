#!/usr/bin/python3
"""Ganger & Patt 1993 in the process-flow simulator: Figure 1 (execution time against
the timeout) and the lesson (each scheduler's execution time beside its mean response
time, the system's metric beside the I/O subsystem's). With --dn-flow: Deodhar & Naik's
SSWT threshold sweep in the same model, decisions free and charged."""
import argparse
import csv
import sys

from figure import plt, save, style


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def figure1(rows, table, out):
    fig, ax = plt.subplots(figsize=(8, 5))
    series = []
    for r in rows:
        if r["series"] not in series:
            series.append(r["series"])
    for s in series:
        pts = sorted((float(r["timeout_ms"]), float(r["execution_ms"]) / 1000) for r in rows if r["series"] == s)
        ax.plot([p[0] / 1000 for p in pts], [p[1] for p in pts], marker="o", label=s)
    for label, dash in (("Priority #1", ":"), ("Priority #1, no preempt", "--")):
        for r in table:
            if r["config"] == label:
                ax.axhline(float(r["execution_ms"]) / 1000, color="gray", linestyle=dash,
                           label=f"{label}, no timeout")
            if r["config"] == "Elevator":
                elev = float(r["execution_ms"]) / 1000
    ax.axhline(elev, color="black", linewidth=1, label="Elevator")
    ax.set_xscale("log")
    ax.set_title("GP Fig. 1: system performance using timeouts (ours)")
    style(ax, "timeout (s)", "execution time (s)")
    save(fig, out)


def lesson(table, out):
    fig, axes = plt.subplots(1, 3, figsize=(16, 5))
    labels = [r["config"] for r in table]
    ys = range(len(labels))
    for ax, key, scale, title in ((axes[0], "execution_ms", 1000, "execution time (s)"),
                                  (axes[1], "false_idle_ms", 1000, "false idle time (s)"),
                                  (axes[2], "mean_response_ms", 1, "mean response time, all requests (ms)")):
        vals = [float(r[key]) / scale for r in table]
        best = min(range(len(vals)), key=lambda i: vals[i])
        colors = ["tab:green" if i == best else "tab:blue" for i in ys]
        ax.barh(list(ys), vals, color=colors)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(labels if ax is axes[0] else [], fontsize=8)
        ax.invert_yaxis()
        ax.set_title(title)
        ax.grid(True, axis="x", alpha=0.3)
    save(fig, out, "The system's metric and the I/O subsystem's rank the schedulers differently (best in green)")


def dn_flow(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, key, ci, label in ((axes[0], "delay_ms", "ci95_delay_ms", "average delay (ms)"),
                               (axes[1], "execution_ms", "ci95_execution_ms", "execution time (ms)")):
        for how, color in (("free", "tab:blue"), ("1ns", "tab:gray"), ("measured", "tab:red")):
            pts = sorted((float(r["threshold"]), float(r[key]), float(r[ci])) for r in rows
                         if r["decisions"] == how and r["threshold"] != "")
            ax.errorbar([p[0] for p in pts], [p[1] for p in pts], yerr=[p[2] for p in pts], marker="o",
                        capsize=2, color=color, label=f"SSWT, decisions {how}")
            for r in rows:
                if r["decisions"] == how and r["threshold"] == "":
                    ax.axhline(float(r[key]), color=color, linestyle="--", alpha=0.6,
                               label=f"SSTF (by LBN), decisions {how}")
        style(ax, "SSWT threshold (dispatches)", label)
    save(fig, out, "DN's threshold sweep in the process-flow model (HP 97560, 32 boot-like processes)")


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--table")
    p.add_argument("--timeouts")
    p.add_argument("--dn-flow")
    p.add_argument("--out", required=True, help="output directory")
    args = p.parse_args()
    if args.dn_flow:
        dn_flow(read(args.dn_flow), args.out + "/threshold_sweep_flow.png")
        return 0
    if not (args.table and args.timeouts):
        p.error("--table and --timeouts are required (or --dn-flow)")
    table = read(args.table)
    figure1(read(args.timeouts), table, args.out + "/fig1_timeouts.png")
    lesson(table, args.out + "/lesson.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
