#!/usr/bin/python3
"""The numbers of bench/filter/foreground-background.sh.

  foreground_background.py run SCHED REP TIMESCALE FILTER_LOG FG.json BG.json RUNS.jsonl
      appends one run to RUNS.jsonl as one JSON line, and says it in one line: the foreground job's elapsed time and mean read
      response (from its replay), the background's write throughput while the
      foreground ran (from the filter's latency log), the classes and scheduler the
      filter logged
  foreground_background.py table RUNS.jsonl
      the medians per scheduler, in the order first run, with the ratio to LOOK

Times are model time (the disk's own: real time / timescale).
"""
import csv
import json
import statistics
import sys


def run(sched, rep, timescale, log_path, fg_path, bg_path, runs_path):
    timescale = float(timescale)
    fg = json.load(open(fg_path))
    bg = json.load(open(bg_path))
    rows = list(csv.DictReader(open(log_path)))
    reads = [r for r in rows if r["op"] == "read"]
    writes = [r for r in rows if r["op"] == "write"]
    # The foreground's window: its first read's arrival to its last read's completion.
    start = min(int(r["arrive_ns"]) for r in reads)
    end = max(int(r["complete_ns"]) for r in reads)
    in_window = [w for w in writes if start < int(w["complete_ns"]) <= end and not w["error"]]
    window_s = (end - start) / 1e9 / timescale
    classes = {}
    for r in rows:
        classes.setdefault(r["op"], set()).add(r["class"])
    r = {
        "sched": sched,
        "rep": int(rep),
        "fg_reads": fg["requests"],
        "fg_errors": fg["errors"],
        "fg_stopped": fg["stopped"],
        "fg_elapsed_s": fg["elapsed_s"],
        "fg_mean_read_ms": fg["mean_ms"],
        "bg_writes": bg["requests"],
        "bg_errors": bg["errors"],
        "bg_stopped": bg["stopped"],
        "bg_writes_in_window": len(in_window),
        "bg_mb_per_s": sum(int(w["length"]) for w in in_window) / 1e6 / window_s,
        "bg_req_per_s": len(in_window) / window_s,
        "filter_classes": {op: sorted(c) for op, c in sorted(classes.items())},
        "filter_schedulers": sorted({r["scheduler"] for r in rows}),
    }
    with open(runs_path, "a") as f:
        f.write(json.dumps(r) + "\n")
    print(f"  {sched:20} rep {rep}: foreground {r['fg_elapsed_s']:7.2f} s "
          f"({r['fg_reads']} reads{', STOPPED' if r['fg_stopped'] else ''}), mean read "
          f"{r['fg_mean_read_ms']:7.1f} ms; background {r['bg_mb_per_s']:.3f} MB/s")


def table(runs_path):
    runs = [json.loads(line) for line in open(runs_path) if line.strip()]
    order = list(dict.fromkeys(r["sched"] for r in runs))
    med = {}
    for s in order:
        mine = [r for r in runs if r["sched"] == s]
        med[s] = {k: statistics.median(r[k] for r in mine)
                  for k in ("fg_reads", "fg_elapsed_s", "fg_mean_read_ms", "bg_mb_per_s",
                            "bg_req_per_s")}
        med[s]["runs"] = len(mine)
        # A run stopped at the time limit did not finish: its elapsed time is a bound.
        med[s]["stopped"] = any(r.get("fg_stopped") for r in mine)
    base = med.get("look")
    print(f"{'scheduler':<20} {'runs':>4} {'fg reads':>8} {'fg elapsed (s)':>14} {'vs LOOK':>7} "
          f"{'fg mean read (ms)':>17} {'bg MB/s':>7} {'bg req/s':>8} {'vs LOOK':>7}")
    for s in order:
        m = med[s]
        fg_ratio = f"{m['fg_elapsed_s'] / base['fg_elapsed_s']:.2f}" if base else "-"
        elapsed = (">" if m["stopped"] else "") + f"{m['fg_elapsed_s']:.2f}"
        if m["stopped"]:
            fg_ratio = ">" + fg_ratio if base else fg_ratio
        bg_ratio = f"{m['bg_mb_per_s'] / base['bg_mb_per_s']:.2f}" if base else "-"
        print(f"{s:<20} {m['runs']:>4} {m['fg_reads']:>8g} {elapsed:>14} {fg_ratio:>7} "
              f"{m['fg_mean_read_ms']:>17.1f} {m['bg_mb_per_s']:>7.3f} {m['bg_req_per_s']:>8.1f} "
              f"{bg_ratio:>7}")


if __name__ == "__main__":
    if len(sys.argv) == 9 and sys.argv[1] == "run":
        run(*sys.argv[2:])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
