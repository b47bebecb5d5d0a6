#!/usr/bin/python3
"""The live QoS bench's results (bench/qos/live.sh): one run's figures, the table of medians, the plot.

  live_table.py run NAME REP DIR LOAD    one JSON line from DIR/fio.json and DIR/filter.csv
  live_table.py line RUNS.jsonl          the last run, one line
  live_table.py table RUNS.jsonl PNG [FG]  medians per way, the goal checked, the plot (FG: the
                                         reader, as the footnote names it)
  live_table.py sim DIR                  the simulator's runs (DIR/sim-*.json) as a table
"""
import csv
import json
import statistics
import sys

WAYS = {
    "a": "(a) FCFS at the host, depth 32",
    "b": "(b) mq-deadline + ionice on loop/nbdfuse, FCFS 32",
    "c": "(c) disksched qos (sched-background=scrub)",
    "c30": "(c) qos, bg-share=30%",
    "cl": "(c) qos on loop/nbdfuse, one mount a class",
}
PATH_OF = {"a": "nbd", "b": "loop", "c": "nbd", "c30": "nbd", "cl": "loop"}


def job_figures(job):
    """Latency (ms, arrival at fio to completion) and throughput of one fio job."""
    side = job["read"] if job["read"]["total_ios"] > 0 else job["write"]
    lat = side["lat_ns"]
    pct = lat.get("percentile", {})
    return {
        "p50_ms": pct.get("50.000000", 0) / 1e6,
        "p99_ms": pct.get("99.000000", 0) / 1e6,
        "mean_ms": lat["mean"] / 1e6,
        "mb_s": side["bw_bytes"] / 1e6,
        "iops": side["iops"],
    }


def filter_depth(path):
    """Mean requests at the filter (arrival to completion) and at the drive (dispatch to
    completion) over the log's span, by Little's law."""
    first, last, at_filter, at_drive = None, None, 0, 0
    with open(path) as f:
        for r in csv.DictReader(f):
            if not r["complete_ns"] or not r["dispatch_ns"]:
                continue
            a, d, c = int(r["arrive_ns"]), int(r["dispatch_ns"]), int(r["complete_ns"])
            first = a if first is None else min(first, a)
            last = c if last is None else max(last, c)
            at_filter += c - a
            at_drive += c - d
    if first is None or last <= first:
        return {"at_filter": 0.0, "at_drive": 0.0}
    return {"at_filter": at_filter / (last - first), "at_drive": at_drive / (last - first)}


def side_by_side(path):
    """Each job's MB/s and IOPS at the filter while the foreground ran (its first to last
    completion; the whole log without one). fio divides a job's bytes by the job's own
    time: a scrub starved while the reader runs and served after the reader's job has
    ended shows a throughput it never had beside it (way b's idle class). Jobs by shape:
    4 KiB reads the reader's, longer reads the scrub's (pieces of its 1 MiB), writes the
    writer's."""
    done = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if not r["complete_ns"] or not r["dispatch_ns"] or r["error"]:
                continue
            job = "writer" if r["op"] == "write" else "fg" if int(r["length"]) <= 4096 else "scrub"
            done.append((job, int(r["complete_ns"]), int(r["length"])))
    fg = [c for j, c, _ in done if j == "fg"]
    span = (min(fg), max(fg)) if len(fg) > 1 else (min(c for _, c, _ in done), max(c for _, c, _ in done))
    secs = (span[1] - span[0]) / 1e9
    out = {}
    for job in ("fg", "scrub", "writer"):
        inside = [n for j, c, n in done if j == job and span[0] <= c <= span[1]]
        if inside and secs > 0:
            out[job] = {"mb_s": sum(inside) / 1e6 / secs, "iops": len(inside) / secs}
    return {"beside_fg": out, "beside_fg_s": secs}


def cmd_run(name, rep, d, load):
    fio = json.load(open(f"{d}/fio.json"))
    rec = {"name": name, "rep": int(rep), "load": float(load)}
    for job in fio["jobs"]:
        rec[job["jobname"]] = job_figures(job)
    rec.update(filter_depth(f"{d}/filter.csv"))
    rec.update(side_by_side(f"{d}/filter.csv"))
    print(json.dumps(rec))


def read_runs(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def cmd_line(path):
    r = read_runs(path)[-1]
    parts = [f"{r['name']} rep {r['rep']}:"]
    if "fg" in r:
        f = r["fg"]
        parts.append(f"fg p50 {f['p50_ms']:.1f} p99 {f['p99_ms']:.1f} mean {f['mean_ms']:.1f} ms")
    if "scrub" in r:
        parts.append(f"scrub {r['scrub']['mb_s']:.1f} MB/s (fio), "
                     f"{r['beside_fg'].get('scrub', {}).get('mb_s', 0):.1f} beside fg")
    if "writer" in r:
        parts.append(f"writer {r['writer']['iops']:.0f}/s")
    parts.append(f"at drive {r['at_drive']:.1f}, load {r['load']:.1f}")
    print(" ".join(parts), flush=True)


def median_of(runs, name, job, field):
    vals = [r[job][field] for r in runs if r["name"] == name and job in r]
    return statistics.median(vals) if vals else None


def median_beside(runs, name, job, field="mb_s"):
    """The median of a job's figure at the filter while the foreground ran (0 when the
    job completed nothing then)."""
    vals = [r["beside_fg"].get(job, {}).get(field, 0.0) for r in runs
            if r["name"] == name and "beside_fg" in r]
    return statistics.median(vals) if vals else None


def fmt(v, digits=1):
    return "" if v is None else f"{v:.{digits}f}"


def idle_rows(runs, names):
    for path_name in ("nbd", "loop"):
        for job in ("fg", "scrub"):
            n = f"idle-{path_name}-{job}"
            if n not in names:
                continue
            drive = statistics.median(r["at_drive"] for r in runs if r["name"] == n)
            label = f"idle drive, {job} alone ({'fio nbd engine' if path_name == 'nbd' else 'loop on nbdfuse'})"
            mbs = median_beside(runs, n, "scrub") if job == "scrub" else None
            print(f"| {label} | {fmt(median_of(runs, n, job, 'p50_ms'))} | "
                  f"{fmt(median_of(runs, n, job, 'p99_ms'))} | {fmt(median_of(runs, n, job, 'mean_ms'))} | "
                  f"{fmt(mbs)} | {fmt(median_of(runs, n, job, 'mb_s'))} | | {drive:.1f} | | | |")


def way_row(runs, way):
    p = PATH_OF[way]
    idle_p99 = median_of(runs, f"idle-{p}-fg", "fg", "p99_ms")
    solo = median_beside(runs, f"idle-{p}-scrub", "scrub")
    p99 = median_of(runs, way, "fg", "p99_ms")
    mbs = median_beside(runs, way, "scrub")
    drive = statistics.median(r["at_drive"] for r in runs if r["name"] == way)
    r_lat = p99 / idle_p99 if idle_p99 else None
    r_bw = mbs / solo if solo and mbs is not None else None
    met = r_lat is not None and r_bw is not None and r_lat <= 2 and r_bw >= 0.5
    goal = "met" if met else "missed" + (f" (p99 {r_lat:.1f}x" if r_lat else "") + \
        (f", scrub {100 * r_bw:.0f}%)" if r_bw is not None else ")")
    print(f"| {WAYS[way]} | {fmt(median_of(runs, way, 'fg', 'p50_ms'))} | {fmt(p99)} | "
          f"{fmt(median_of(runs, way, 'fg', 'mean_ms'))} | {fmt(mbs)} | "
          f"{fmt(median_of(runs, way, 'scrub', 'mb_s'))} | "
          f"{fmt(median_beside(runs, way, 'writer', 'iops'), 0)} | {drive:.1f} | {fmt(r_lat, 2)}x | "
          f"{fmt(None if r_bw is None else 100 * r_bw, 0)}% | {goal} |")
    return (way, p99, mbs, idle_p99, solo)


def cmd_table(path, png, fg_label="QD1 random 4 KiB reads"):
    runs = read_runs(path)
    names = list(dict.fromkeys(r["name"] for r in runs))
    reps = max(r["rep"] for r in runs) + 1
    loads = [r["load"] for r in runs]
    print(f"medians of {reps} run(s); load average {min(loads):.1f} to {max(loads):.1f} "
          f"(median {statistics.median(loads):.1f}) on {len(runs)} runs")
    print("| way | fg p50 ms | fg p99 ms | fg mean ms | scrub MB/s beside fg | scrub MB/s (fio) "
          "| writer IOPS beside fg | at drive | fg p99 / idle | scrub / solo | goal |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    idle_rows(runs, names)
    rows = [way_row(runs, way) for way in names if way in WAYS]
    print(f"(fg: {fg_label}, arrival at fio to completion; scrub: 1 MiB sequential reads; "
          "beside fg: completed at the filter between the reader's first and last completion "
          "(the scrub alone: over its own run); (fio): the job's bytes over its own time; "
          "at drive: mean requests between the filter's dispatch and completion; goal: fg p99 "
          "<= 2x idle and scrub beside fg >= half its solo MB/s, each over its own path)")
    plot(rows, png)


def plot(rows, png):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plot)")
        return
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    labels = [w for w, *_ in rows]
    x = range(len(rows))
    ax1.bar(x, [r[1] for r in rows], color="tab:red")
    for i, r in enumerate(rows):
        if r[3] is not None:  # the idle figure over the way's path
            ax1.hlines(2 * r[3], i - 0.4, i + 0.4, colors="k", linestyles="dashed")
    ax1.set_yscale("log")
    ax1.set_xticks(list(x), labels)
    ax1.set_ylabel("foreground p99 (ms), dashed: 2x idle")
    ax2.bar(x, [r[2] or 0 for r in rows], color="tab:blue")
    for i, r in enumerate(rows):
        if r[4] is not None:
            ax2.hlines(r[4] / 2, i - 0.4, i + 0.4, colors="k", linestyles="dashed")
    ax2.set_xticks(list(x), labels)
    ax2.set_ylabel("scrub MB/s beside fg, dashed: half its solo")
    fig.suptitle("sata7200-8tb (diskemu, drive queue 32), QD1 reader + scrub + writer, medians")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print(f"plot: {png}")


def cmd_sim(d):
    """The simulator's runs (sim-NAME.json in D) as the live table's rows."""
    def cls(name, c):
        return json.load(open(f"{d}/sim-{name}.json"))["classes"].get(c, {})
    idle_p99 = cls("idle-fg", "critical").get("p99_ms")
    solo = cls("idle-scrub", "noncritical").get("mb_per_s")
    print("| way (simulated) | fg p50 ms | fg p99 ms | fg mean ms | scrub MB/s | fg p99 / idle | scrub / solo |")
    print("|---|---|---|---|---|---|---|")
    f = cls("idle-fg", "critical")
    print(f"| idle drive, fg alone | {fmt(f.get('p50_ms'))} | {fmt(idle_p99)} | {fmt(f.get('mean_ms'))} | | | |")
    print(f"| idle drive, scrub alone | | | | {fmt(solo)} | | |")
    for way in ("a", "c", "c30"):
        f, b = cls(way, "critical"), cls(way, "noncritical")
        print(f"| {WAYS[way]} | {fmt(f.get('p50_ms'))} | {fmt(f.get('p99_ms'))} | "
              f"{fmt(f.get('mean_ms'))} | {fmt(b.get('mb_per_s'))} | "
              f"{fmt(f['p99_ms'] / idle_p99, 2)}x | {fmt(100 * b.get('mb_per_s', 0) / solo, 0)}% |")


def main(argv):
    if len(argv) >= 6 and argv[1] == "run":
        cmd_run(*argv[2:6])
    elif len(argv) == 3 and argv[1] == "line":
        cmd_line(argv[2])
    elif len(argv) in (4, 5) and argv[1] == "table":
        cmd_table(*argv[2:])
    elif len(argv) == 3 and argv[1] == "sim":
        cmd_sim(argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
