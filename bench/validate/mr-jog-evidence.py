#!/usr/bin/python3
"""Where the measured access times exceed the model, by what the request follows.

    python3 bench/validate/mr-jog-evidence.py DISKSCHED OUT_DIR [PROFILE_SUFFIX]

For each of the four DiskSim validation disks, reads OUT_DIR/NAME.json (the imported
profile that bench/validate/disksim-validate.sh writes; PROFILE_SUFFIX picks another,
e.g. '.x' for NAME.x.json), replays the trace with `disksched validate --json --worst N`
(every request, with its cylinder, head and the model's seek) and groups the requests
the model serves from the media (simulated misses) by the previous request's op and by
how far the model moves the arm for them: not at all (the track the head is on),
somewhat though they start on the previous request's cylinder (a head switch, or back
from where read-ahead took the arm), a short seek (<= 1.5 ms), a longer one. For each
group of 5 or more: how many, the mean measured and simulated access times, and the
excess of the measured distribution over the simulated one (difference of the medians,
and of the means, with the standard error of the latter). Reads after writes with no move are split further: by the write's
size, by whether the read lies ahead of the write's end or behind it, by the idle time
before the read.

A rotational wait after a fixed delay is still a uniform wait, so a delay the model
lacks shows as a shift of the whole distribution (medians and means alike), not as the
same difference on every request: per request the replay's rotational phase is not the
drive's.
"""
import json
import statistics
import subprocess
import sys

MIN_GROUP = 5  # smaller groups are left out
# name, file stem, DiskSim's demerit (ms) as its validation files state it
DISKS = [("HP C2247A", "hp_c2247a", 0.090), ("Seagate Cheetah 9LP", "cheetah9LP", 0.107),
         ("IBM 18ES", "ibm18es", 0.135), ("DEC RZ26", "dec_rz26", 0.340)]


def samples(disksched, profile, trace):
    out = subprocess.run([disksched, "validate", "--profile", profile, "--trace", trace,
                          "--json", "--worst", "1000000"], check=True, capture_output=True,
                         text=True).stdout
    j = json.loads(out)
    s = sorted(j["worst"], key=lambda r: r["request"])
    if len(s) != j["requests"]:
        sys.exit(f"{trace}: {len(s)} of {j['requests']} requests listed")
    # This file's demerit is the command's (bench/validate/demerit.cpp), on every request.
    mine = demerit([r["measured_ms"] for r in s], [r["simulated_ms"] for r in s])
    if abs(mine - j["demerit_ms"]) > 1e-9:
        sys.exit(f"{trace}: demerit {mine} here, {j['demerit_ms']} from disksched validate")
    return s


def move(prev, cur):
    """How the model moves the arm for `cur` (its simulated seek, with head switch): not
    at all; somewhat, though `cur` starts on the previous request's cylinder (a head
    switch, or back from where read-ahead took the arm); a seek."""
    if cur["seek_ms"] <= 0.0:
        return "no move"
    if prev["cylinder"] == cur["cylinder"]:
        return "same cylinder, moved"
    return "seek <= 1.5 ms" if cur["seek_ms"] <= 1.5 else "seek > 1.5 ms"


MOVES = ["no move", "same cylinder, moved", "seek <= 1.5 ms", "seek > 1.5 ms"]


def stats(group):
    m = [r["measured_ms"] for r in group]
    s = [r["simulated_ms"] for r in group]
    # The mean excess's standard error, the two samples taken as independent (their
    # rotational phases are).
    se = (statistics.variance(m) / len(m) + statistics.variance(s) / len(s)) ** 0.5
    return (len(group), statistics.fmean(m), statistics.fmean(s),
            statistics.median(m) - statistics.median(s), statistics.fmean(m) - statistics.fmean(s),
            se)


def row(label, group):
    n, m, s, med, mean, se = stats(group)
    return f"| {label} | {n} | {m:.3f} | {s:.3f} | {med:+.3f} | {mean:+.3f} ± {se:.3f} |"


def quantile(xs, p):
    """Type 7 (linear between order statistics), as percentile_sorted; xs sorted."""
    h = p * (len(xs) - 1)
    k = min(int(h), len(xs) - 2) if len(xs) > 1 else 0
    return xs[0] if len(xs) == 1 else xs[k] + (h - k) * (xs[k + 1] - xs[k])


def demerit(a, b):
    """The exact demerit of bench/validate/demerit.cpp (RMS distance of the inverse CDFs)."""
    a, b = sorted(a), sorted(b)
    ps = sorted({0.0, 1.0} | {k / (len(x) - 1) for x in (a, b) for k in range(1, len(x) - 1)})
    total, d0 = 0.0, quantile(a, 0.0) - quantile(b, 0.0)
    for p0, p1 in zip(ps, ps[1:]):
        d1 = quantile(a, p1) - quantile(b, p1)
        total += (p1 - p0) * (d0 * d0 + d0 * d1 + d1 * d1) / 3.0
        d0 = d1
    return max(total, 0.0) ** 0.5


def same_cylinder_reads(s, after):
    """Which requests are reads on the cylinder the previous request was on, served from
    the media, after an op in `after`."""
    out = [False] * len(s)
    for i in range(1, len(s)):
        prev, cur = s[i - 1], s[i]
        out[i] = (prev["op"] in after and cur["op"] == "read" and not cur["simulated_hit"] and
                  prev["cylinder"] == cur["cylinder"])
    return out


def held_out(s, after):
    """What a fixed delay on same-cylinder reads after `after` would buy, estimated on
    the odd-numbered requests, judged on the even-numbered ones.

    The delay: the median excess of those reads over the model on the odd half
    (difference of the medians); applied to the even half's such reads as a shift of
    their simulated times (a fixed delay before a uniform rotational wait shifts its
    distribution by the delay), and the even half's demerit compared without and with
    it. An estimate of the effect, not a replay with the delay in the model.
    Returns (reads estimated on, delay, even reads shifted, demerit before, after)."""
    which = same_cylinder_reads(s, after)
    est = [r for r, f in zip(s, which) if f and r["request"] % 2 == 1]
    even = [(r, f) for r, f in zip(s, which) if r["request"] % 2 == 0]
    measured = [r["measured_ms"] for r, _ in even]
    before = demerit(measured, [r["simulated_ms"] for r, _ in even])
    if len(est) < MIN_GROUP:
        return len(est), None, 0, before, before
    d = (statistics.median([r["measured_ms"] for r in est]) -
         statistics.median([r["simulated_ms"] for r in est]))
    applied = max(d, 0.0)  # a delay cannot be negative
    after_d = demerit(measured, [r["simulated_ms"] + (applied if f else 0.0) for r, f in even])
    return len(est), d, sum(f for _, f in even), before, after_d


def held_out_row(name, s, theirs):
    cells = [name]
    for after in (("write",), ("read", "write")):
        n, d, shifted, before, after_d = held_out(s, after)
        if after == ("write",):
            cells.append(f"{before:.4f}")
        cells += [str(n), "too few" if d is None else f"{d:+.3f}", str(shifted), f"{after_d:.4f}"]
    cells.append(f"{theirs}")
    return "| " + " | ".join(cells) + " |"


def main():
    disksched, out = sys.argv[1], sys.argv[2]
    suffix = sys.argv[3] if len(sys.argv) > 3 else ""
    data = __file__.rsplit("/bench/", 1)[0] + "/tests/data/disksim-valid"
    summary = []
    for name, stem, theirs in DISKS:
        trace = f"{data}/{stem}.trace"
        s = samples(disksched, f"{out}/{stem}{suffix}.json", trace)
        think = [float(line.split()[5]) / 1000 for line in open(trace) if line.strip()]
        groups = {}
        split = {}
        for prev, cur in zip(s, s[1:]):
            if cur["simulated_hit"]:
                continue  # served from the buffer: no mechanism in it
            key = (prev["op"], cur["op"], move(prev, cur))
            groups.setdefault(key, []).append(cur)
            if key != ("write", "read", "no move"):
                continue
            gap = "ahead of" if cur["block"] >= prev["block"] + prev["blocks"] else "behind"
            idle = think[prev["request"] - 1]
            for label in (f"after a write of {'<= 8' if prev['blocks'] <= 8 else '> 8'} blocks",
                          f"{gap} the write's end",
                          "idle < 30 ms before it" if idle < 30 else
                          "idle 30-45 ms" if idle < 45 else "idle >= 45 ms"):
                split.setdefault(label, []).append(cur)
        print(f"\n### {name}\n")
        print("| previous -> this, the model's move | requests | measured ms | simulated ms | "
              "median excess ms | mean excess ms ± s.e. |")
        print("|---|---|---|---|---|---|")
        for a, b in [("write", "read"), ("read", "read"), ("read", "write"), ("write", "write")]:
            for p in MOVES:
                g = groups.get((a, b, p), [])
                if len(g) >= MIN_GROUP:
                    print(row(f"{a[0].upper()} -> {b[0].upper()}, {p}", g))
        for label in sorted(split):
            if len(split[label]) >= MIN_GROUP:
                print(row(f"W -> R, no move, {label}", split[label]))
        summary.append(held_out_row(name, s, theirs))
    print("\n### A fixed delay on same-cylinder reads, estimated on the odd requests, judged "
          "on the even ones\n")
    print("| disk | even half's demerit, imported | after writes: reads estimated on | delay ms | "
          "even reads shifted | even half's demerit | after reads or writes: reads estimated on | "
          "delay ms | even reads shifted | even half's demerit | DiskSim's (full trace) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(summary))


if __name__ == "__main__":
    main()
