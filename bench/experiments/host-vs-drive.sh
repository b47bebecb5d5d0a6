#!/usr/bin/env bash
# Host scheduling against a drive that queues: the same workload at the same
# rates through the simulator, four ways, on an emulated drive (default: the built-in
# 8 TB 7200 rpm SATA profile):
#   (a) FCFS at the host, 32 at the drive, the drive's own SATF (age limit 500ms)
#   (a0) the same without the drive's age limit
#   (b) ASATF(30) at the host, depth 1, no queue in the drive
#   (c) both: ASATF(30) at the host with 32 at the drive, the drive's SATF
#   (c4) the same with 4 at the drive
#   ref: FCFS at the host, depth 1 (nobody reorders)
# Prints, per way, the rate sustained at each mean-response target (interpolated between
# the simulated rates, as the sweeps do) with the p99 response there, and the mean and p99
# at one common rate.
#
#   bash bench/experiments/host-vs-drive.sh [DISKSCHED] [MODEL]
#   RATES=40:260:10 REPS=10 REQUESTS=2000 WORKLOAD=uniform:size=4k TARGETS=30,50,100,200 AT=150
set -euo pipefail
disksched=${1:-build/tools/disksched}
model=${2:-sata7200-8tb-nocache}
rates=${RATES:-40:260:10}
reps=${REPS:-10}
requests=${REQUESTS:-2000}
workload=${WORKLOAD:-uniform:size=4k}
targets=${TARGETS:-30,50,100,200}
at=${AT:-150}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

declare -A ways=(
  [a]="--sched fcfs --depth 32 --drive-queue 32 --drive-policy satf"
  [a0]="--sched fcfs --depth 32 --drive-queue 32 --drive-policy satf --drive-age-limit none"
  [b]="--sched asatf:w=30 --depth 1"
  [c]="--sched asatf:w=30 --depth 32 --drive-queue 32 --drive-policy satf"
  [c4]="--sched asatf:w=30 --depth 4 --drive-queue 4 --drive-policy satf"
  [ref]="--sched fcfs --depth 1"
)
IFS=: read -r lo hi step <<<"$rates"
for way in a a0 b c c4 ref; do
  for ((r = lo; r <= hi; r += step)); do
    # shellcheck disable=SC2086
    "$disksched" sim --model "$model" --workload "$workload" --rate "$r" --reps "$reps" \
      --requests "$requests" --warmup 1000 --json ${ways[$way]} > "$out/$way-$r.json"
    if grep -q '"saturated": true' "$out/$way-$r.json"; then break; fi
  done
done

/usr/bin/python3 - "$out" "$model" "$workload" "$targets" "$at" "$reps" "$requests" <<'PY'
import glob, json, os, sys
out, model, workload, targets, at, reps, requests = sys.argv[1:]
targets = [float(t) for t in targets.split(",")]
at = float(at)
names = {
    "a": "(a) host FCFS, drive queue 32 SATF",
    "a0": "(a) without the drive's age limit",
    "b": "(b) host ASATF(30), drive queue 1",
    "c": "(c) host ASATF(30) + drive queue 32 SATF",
    "c4": "(c) host ASATF(30) + drive queue 4 SATF",
    "ref": "host FCFS, drive queue 1",
}
print(f"model {model}, workload {workload}, {reps} replications x {requests} measured requests, "
      f"host depth 32 where the drive queues 32 (4 for the last (c)), drive age limit 500ms")
head = "| way | " + " | ".join(f"req/s at mean <= {t:g} ms (p99 there)" for t in targets) + \
       f" | mean / p99 at {at:g} req/s |"
print(head)
print("|" + "---|" * (len(targets) + 2))
for way in ["a", "a0", "b", "c", "c4", "ref"]:
    pts = []
    for f in glob.glob(f"{out}/{way}-*.json"):
        j = json.load(open(f))
        rate = float(os.path.basename(f)[len(way) + 1:-5])
        sat = j.get("saturated", False)
        pts.append((rate, float("inf") if sat else j["mean_ms"], float("inf") if sat else j["p99_ms"]))
    pts.sort()
    cells = []
    for t in targets:
        cell = f"< {pts[0][0]:g}"
        for i, (r, m, p) in enumerate(pts):
            if m > t:
                if i > 0:
                    r0, m0, p0 = pts[i - 1]
                    if m == float("inf"):
                        cell = f"{r0:.0f}-{r:.0f} ({p0:.0f} ms at {r0:.0f})"
                    else:
                        x = (t - m0) / (m - m0)
                        cell = f"{r0 + x * (r - r0):.1f} ({p0 + x * (p - p0):.0f} ms)"
                break
        else:
            cell = f">= {pts[-1][0]:g} ({pts[-1][2]:.0f} ms)"
        cells.append(cell)
    here = [p for p in pts if p[0] == at]
    if here and here[0][1] != float("inf"):
        cells.append(f"{here[0][1]:.1f} / {here[0][2]:.0f} ms")
    else:
        cells.append("saturated")
    print(f"| {names[way]} | " + " | ".join(cells) + " |")
PY
