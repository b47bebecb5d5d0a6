#!/usr/bin/env bash
# Is the issue's goal (issue 31: the reader's p99 within 2x its idle p99 while the scrub
# keeps half its solo MB/s) within reach, by the reader's think time? In the simulator,
# on the built-in 8 TB SATA drive with its queue of 32 (SATF, 1 s age limit, as diskemu's):
# one QD1 random 4 KiB reader thinking THINKS ms after each read, beside a scrub of 1 MiB
# sequential reads 16 deep (and WRITERS random 4 KiB writers, each writing every 80 ms),
# under qos with every background share of SHARES: the more the scrub is given, the
# longer the reader waits. Prints one line a point, each judged against the goal.
#
#   bash bench/experiments/qos-frontier.sh [DISKSCHED] [OUT]
#   THINKS=0,10,30 SHARES=0,10%,30%,50% WRITERS=0 REQUESTS=6000 WARMUP=3000 SEED=1
set -euo pipefail
disksched=${1:-build/tools/disksched}
out=${2:-$(mktemp -d)}
thinks=${THINKS:-0,10,30}
shares=${SHARES:-0,10%,30%,50%}
writers=${WRITERS:-0}
requests=${REQUESTS:-6000}
warmup=${WARMUP:-3000}
seed=${SEED:-1}
mkdir -p "$out"
sim() {  # sim NAME WORKLOAD SCHED
  "$disksched" sim --model sata7200-8tb --workload "$2" --sched "$3" --depth 32 --drive-queue 32 \
    --drive-policy satf --drive-age-limit 1s --reps 1 --requests "$requests" --warmup "$warmup" \
    --seed "$seed" --json > "$out/$1.json"
}
w="writers=$writers,writer-think=80ms"
sim solo "mixed:fg=0,bg=16,$w" fcfs
for t in ${thinks//,/ }; do
  sim "idle-$t" "mixed:fg=1,bg=0,$w,fg-think=${t}ms" fcfs
  for s in ${shares//,/ }; do
    sim "qos-$t-${s%\%}" "mixed:fg=1,bg=16,$w,fg-think=${t}ms" "qos:target=50ms,bg-share=$s"
  done
done
/usr/bin/python3 - "$out" "$thinks" "$shares" "$writers" <<'PY'
import json, sys
out, thinks, shares, writers = sys.argv[1:]
def cls(name, c):
    return json.load(open(f"{out}/{name}.json"))["classes"].get(c, {})
solo = cls("solo", "noncritical")["mb_per_s"]
print(f"sata7200-8tb (drive queue 32, SATF, age limit 1s), qos:target=50ms; scrub 16 deep alone "
      f"(FCFS, depth 32): {solo:.1f} MB/s; writers={writers}")
print("| think ms | bg-share | fg idle p99 ms | fg p50 ms | fg p99 ms | fg p99 / idle | scrub MB/s | scrub / solo | goal |")
print("|---|---|---|---|---|---|---|---|---|")
for t in thinks.split(","):
    idle = cls(f"idle-{t}", "critical")["p99_ms"]
    for s in shares.split(","):
        f, b = cls(f"qos-{t}-{s.rstrip('%')}", "critical"), cls(f"qos-{t}-{s.rstrip('%')}", "noncritical")
        lat, bw = f["p99_ms"] / idle, b.get("mb_per_s", 0.0) / solo
        goal = "met" if lat <= 2 and bw >= 0.5 else "missed"
        print(f"| {t} | {s} | {idle:.1f} | {f['p50_ms']:.1f} | {f['p99_ms']:.1f} | {lat:.2f}x | "
              f"{b.get('mb_per_s', 0.0):.1f} | {100 * bw:.0f}% | {goal} |")
PY
