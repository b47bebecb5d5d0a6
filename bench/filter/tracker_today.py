#!/usr/bin/env python3
"""Figures of one live run of the filter over diskemu (bench/filter/tracker-today.sh).

  tracker_today.py run LOG.csv REPLAY.json WARMUP          -> one JSON line of a run
  tracker_today.py explain LOG.csv EMU-TRACE.txt WARMUP    -> where the error comes from
  tracker_today.py table RUNS.jsonl                        -> the medians, side by side

`run`: the share of service times (dispatch -> completion, the latency log's actual_us)
predicted within one sector (the log's sector_us), within 0.1 ms and within 1 ms; the
throughput (`disksched replay`) and the mean service time. The first WARMUP requests
(by id) are left out.

`explain`: the latency log joined, request by request, with diskemu's own trace
(`-v -D diskemu.trace=1`: each request's modelled arrival, start, completion and how late
the emulator's thread woke). Per request, the host's part of the observed service time
is host = actual - (done - arrive): the worker's wake-up and call into the plugin, the
emulator's lateness, the reply's way back to the filter. No prediction made at dispatch
can know it, so the share of |host - median(host)| within a sector is the most any
prediction can reach on this host (the ceiling). What is left of the error once host is
taken out, pred - (done - arrive) - median(host), is the tracker's own error about the
device (its head, its platter's phase, the drive's cache).
"""
import csv
import json
import re
import statistics
import sys


def read_log(path, warmup):
    """The log's requests by id, the failed ones left out, each with `core_dispatch_ns`:
    the time the prediction was made from. At sched-depth=1 that is the later of the
    request's arrival and the previous request's completion (the log's dispatch_ns is
    taken after the decision), so actual_us is rebuilt from it as `ctl stats` counts it."""
    rows = sorted(csv.DictReader(open(path)), key=lambda r: int(r["dispatch_ns"]))
    rows = [r for r in rows if not r["error"]]
    prev = None
    for r in rows:
        d = int(r["arrive_ns"]) if prev is None else max(int(r["arrive_ns"]), int(prev["complete_ns"]))
        r["core_dispatch_ns"] = d
        r["service_us"] = (int(r["complete_ns"]) - d) / 1000.0
        prev = r
    by_id = sorted(rows, key=lambda r: int(r["id"]))
    first = {id(r) for r in by_id[:warmup]}
    return [r for r in rows if id(r) not in first], rows


def shares(errors_us, sector_us):
    n = len(errors_us)
    if n == 0:
        return 0.0, 0.0, 0.0
    return (sum(abs(e) <= sector_us for e in errors_us) / n,
            sum(abs(e) <= 100.0 for e in errors_us) / n,
            sum(abs(e) <= 1000.0 for e in errors_us) / n)


def run(log, replay, warmup):
    rows, _ = read_log(log, warmup)
    sector = float(rows[0]["sector_us"])
    err = [float(r["predicted_us"]) - r["service_us"] for r in rows]
    s, t, m = shares(err, sector)
    j = json.load(open(replay))
    out = {"n": len(rows), "sector_us": sector, "within_sector": s, "within_100us": t,
           "within_1ms": m, "throughput": j["throughput_per_s"],
           "mean_service_ms": statistics.fmean(r["service_us"] for r in rows) / 1000.0,
           "mean_queue": statistics.fmean(float(r["queue_len"]) for r in rows),
           "p50_abs_err_us": statistics.median(abs(e) for e in err)}
    print(json.dumps(out))


TRACE = re.compile(r"diskemu: #(\d+) (\w+) off=(\d+) len=(\d+).*? arrive=([\d.]+) start=([\d.]+) "
                   r"done=([\d.]+) ms .*?late=(-?\d+) ns( hit)?")


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def explain(log, trace, warmup):
    kept, rows = read_log(log, warmup)
    emu = []
    for line in open(trace, errors="replace"):
        m = TRACE.search(line)
        if m:
            emu.append(m)
    emu.sort(key=lambda m: int(m.group(1)))
    if len(emu) != len(rows):
        sys.exit(f"explain: {len(rows)} requests in the log but {len(emu)} in the emulator's trace")
    for r, m in zip(rows, emu):
        if int(r["offset"]) != int(m.group(3)):
            sys.exit(f"explain: request {r['id']} at offset {r['offset']} met the emulator's "
                     f"#{m.group(1)} at {m.group(3)}: the orders differ")
    keep = {id(r) for r in kept}
    pairs = [(r, m) for r, m in zip(rows, emu) if id(r) in keep]
    sector = float(rows[0]["sector_us"])
    ns = lambda r, k: int(r[k])
    dev_ns = lambda m, g: float(m.group(g)) * 1e6  # device ms -> ns (timescale 1)
    # Device time 0 on the monotonic clock: the plugin is called after the worker's issue
    # time, so the latest issue - arrival bounds it from below (within a microsecond or so).
    offset = max(ns(r, "issue_ns") - dev_ns(m, 5) for r, m in zip(rows, emu))
    pred = [float(r["predicted_us"]) for r, _ in pairs]
    service = [r["service_us"] for r, _ in pairs]
    device = [(dev_ns(m, 7) - dev_ns(m, 5)) / 1e3 for _, m in pairs]
    wait = [(dev_ns(m, 6) - dev_ns(m, 5)) / 1e3 for _, m in pairs]
    late = [int(m.group(8)) / 1e3 for _, m in pairs]
    # There: from the prediction's time to the device's start (the decision, the worker's
    # wake-up, the call into the plugin). The platter turns meanwhile, so as long as the
    # target sector is still ahead it costs nothing: the rotational wait is that much shorter.
    there = [(dev_ns(m, 5) + offset - r["core_dispatch_ns"]) / 1e3 for r, m in pairs]
    # Back: from the device's modelled completion to the filter's timestamp (the
    # emulator's lateness, the reply's way back). It adds to the service time seen, and
    # the completions the tracker anchors the platter on carry it too.
    back = [(ns(r, "complete_ns") - dev_ns(m, 7) - offset) / 1e3 for r, m in pairs]
    hit = [m.group(9) is not None for _, m in pairs]
    b0 = statistics.median(back)
    jitter = [b - b0 for b in back]
    err = [p - s for p, s in zip(pred, service)]
    own = [e + j for e, j in zip(err, jitter)]
    n = len(pairs)

    def spread(name, v, centre=None):
        c = statistics.median(v) if centre is None else centre
        d = [abs(x - c) for x in v]
        print(f"  {name:44} median {statistics.median(v):9.1f} us   |x - median| p50 {pct(d, .5):7.1f}"
              f"  p90 {pct(d, .9):8.1f}  p99 {pct(d, .99):8.1f} us")

    def line(name, v):
        s, t, m = shares(v, sector)
        print(f"  {name:44} within a sector {100 * s:5.1f}%   0.1 ms {100 * t:5.1f}%   1 ms {100 * m:5.1f}%")

    print(f"  {n} requests after {warmup} warm-up; one sector {sector:.2f} us; "
          f"{sum(hit)} served from the drive's buffer; {sum(w > 0.5 for w in wait)} waited at the device")
    spread("there: prediction's time -> device start", there)
    spread("back: device completion -> filter's time", back)
    spread("  of it: the emulator's lateness", late, 0.0)
    line("prediction (as ctl stats counts it)", err)
    line("ceiling: the way back's jitter alone", jitter)
    line("the tracker's own error (way back taken out)", own)
    if any(hit):
        line("  ... on requests served from the buffer", [e for e, h in zip(own, hit) if h])
        line("  ... on the others", [e for e, h in zip(own, hit) if not h])
    big = sorted(abs(e) for e in own if abs(e) > sector)
    if big:
        rot = sum(e > 1000.0 for e in big)
        print(f"  the tracker's errors beyond a sector: {len(big)}, |error| p50 {pct(big, .5):.1f} us, "
              f"p90 {pct(big, .9):.1f} us; {rot} of them over 1 ms (a sector missed or caught: a rotation)")


def table(path):
    runs = [json.loads(l) for l in open(path) if l.strip()]
    sim = {(r["model"], r["sched"]): r for r in runs if r.get("sim")}
    runs = [r for r in runs if not r.get("sim")]
    keys = {}
    for r in runs:
        keys.setdefault((r["model"], r["sched"]), []).append(r)
    models = list(dict.fromkeys(r["model"] for r in runs))
    med = lambda rs, k: statistics.median(r[k] for r in rs)
    print(f"{'model':24} {'sched':12} {'runs':>4} {'sector':>8} {'in sector':>10} {'in 0.1 ms':>10} "
          f"{'in 1 ms':>8} {'req/s':>8} {'mean svc':>9} {'queue':>6} {'sim req/s':>10} {'sim svc':>8}")
    for model in models:
        gain = {}
        for sched in ("fcfs", "asatf:w=30"):
            rs = keys.get((model, sched), [])
            if not rs:
                continue
            gain[sched] = (med(rs, "throughput"), med(rs, "mean_service_ms"))
            print(f"{model:24} {sched:12} {len(rs):4} {med(rs, 'sector_us'):6.1f}us "
                  f"{100 * med(rs, 'within_sector'):9.1f}% {100 * med(rs, 'within_100us'):9.1f}% "
                  f"{100 * med(rs, 'within_1ms'):7.1f}% {med(rs, 'throughput'):8.1f} "
                  f"{med(rs, 'mean_service_ms'):6.2f} ms {med(rs, 'mean_queue'):6.1f}" +
                  (f" {sim[model, sched]['throughput']:10.1f} {sim[model, sched]['mean_service_ms']:5.2f} ms"
                   if (model, sched) in sim else ""))
            if len(rs) > 1:
                print(f"{'':37} runs: " + "  ".join(
                    f"{100 * r['within_sector']:.1f}%/{r['throughput']:.1f}" for r in rs))
        if len(gain) == 2:
            (tf, sf), (ta, sa) = gain["fcfs"], gain["asatf:w=30"]
            line = (f"{model:24} ASATF(30) over FCFS: throughput {100 * (ta / tf - 1):+.1f}%, "
                    f"mean service {sf:.2f} -> {sa:.2f} ms ({100 * (sa / sf - 1):+.1f}%)")
            if (model, "fcfs") in sim and (model, "asatf:w=30") in sim:
                sf_, sa_ = sim[model, "fcfs"], sim[model, "asatf:w=30"]
                line += (f"; simulated {100 * (sa_['throughput'] / sf_['throughput'] - 1):+.1f}%, "
                         f"live ASATF at {100 * ta / sa_['throughput']:.1f}% of the simulated")
            print(line)


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "run":
        run(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "explain":
        explain(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif cmd == "table":
        table(sys.argv[2])
    else:
        sys.exit(f"tracker_today.py: unknown command '{cmd}' (run, explain, table)")
