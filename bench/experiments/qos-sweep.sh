#!/usr/bin/env bash
# Latency targets over a drive that queues (issue 31), in the simulator: one QD1 random
# 4 KiB reader (time-critical) beside a scrub of 1 MiB sequential reads (time-noncritical)
# whose depth is swept, on the built-in 8 TB SATA drive with its own queue of 32 (SATF,
# 1 s age limit, as diskemu's) and 32 sent from the host, two ways:
#   (a) FCFS at the host, depth 32 (the README's recommendation for a drive that queues)
#   (c) qos:target=50ms (schedulers/classes/qos.cpp; docs/qos.md)
#   (s) the same with bg-share=30% (the scrub takes 30 % of the dispatches under contention)
# Prints, per scrub depth, the foreground's p50/p99/mean and the scrub's MB/s, and the
# foreground alone (the idle drive); writes qos-sweep.csv and qos-sweep.png into OUT.
#
#   bash bench/experiments/qos-sweep.sh [DISKSCHED] [OUT]
#   MODEL=sata7200-8tb DEPTHS=0,1,2,4,8,16,32 QOS=qos:target=50ms SHARE=30% REQUESTS=6000 WARMUP=3000
#   WRITERS=0 SEED=1 THINK=0 (the reader's think time after each read, ms) AGE=1s
set -euo pipefail
disksched=${1:-build/tools/disksched}
out=${2:-$(mktemp -d)}
model=${MODEL:-sata7200-8tb}
depths=${DEPTHS:-0,1,2,4,8,16,32}
qos=${QOS:-qos:target=50ms}
share=${SHARE:-30%}
requests=${REQUESTS:-6000}
warmup=${WARMUP:-3000}
writers=${WRITERS:-0}
seed=${SEED:-1}
think=${THINK:-0}
age=${AGE:-1s}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
drive=(--depth 32 --drive-queue 32 --drive-policy satf --drive-age-limit "$age")

declare -A ways=([a]="fcfs" [c]="$qos" [s]="$qos,bg-share=$share")
for way in a c s; do
  for n in ${depths//,/ }; do
    "$disksched" sim --model "$model" --workload "mixed:fg=1,bg=$n,writers=$writers,fg-think=${think}ms" \
      --sched "${ways[$way]}" "${drive[@]}" --reps 1 --requests "$requests" --warmup "$warmup" \
      --seed "$seed" --json > "$out/$way-$n.json"
  done
done

/usr/bin/python3 - "$out" "$model" "$depths" "$qos" "$requests" "$warmup" "$writers" "$share" "$think" "$age" <<'PY'
import json, sys
out, model, depths, qos, requests, warmup, writers, share, think, age = sys.argv[1:]
names = {"a": "(a) FCFS, depth 32", "c": f"(c) {qos}", "s": f"(c) {qos},bg-share={share}"}
rows = []
for way in ["a", "c", "s"]:
    for n in [int(d) for d in depths.split(",")]:
        j = json.load(open(f"{out}/{way}-{n}.json"))
        fg = j["classes"].get("critical", {})
        bg = j["classes"].get("noncritical", {})
        c = j.get("scheduler_counters", {})
        rows.append((way, n, fg.get("p50_ms", float("nan")), fg.get("p99_ms", float("nan")),
                     fg.get("mean_ms", float("nan")), bg.get("mb_per_s", 0.0),
                     bg.get("max_wait_ms", 0.0), c.get("qos_depth", "")))
print(f"model {model} (drive queue 32, SATF, age limit {age}; 32 from the host), workload "
      f"mixed:fg=1,bg=N,writers={writers},fg-think={think}ms; {warmup} warm-up + {requests} "
      "measured requests, replication 0")
print("| way | scrub depth | fg p50 ms | fg p99 ms | fg mean ms | bg MB/s | bg max wait ms | qos depth at end |")
print("|---|---|---|---|---|---|---|---|")
for way, n, p50, p99, mean, mbs, wait, d in rows:
    print(f"| {names[way]} | {n} | {p50:.1f} | {p99:.1f} | {mean:.1f} | {mbs:.1f} | {wait:.0f} | {d} |")
with open(f"{out}/qos-sweep.csv", "w") as f:
    f.write("way,scrub_depth,fg_p50_ms,fg_p99_ms,fg_mean_ms,bg_mb_s,bg_max_wait_ms,qos_depth\n")
    for r in rows:
        f.write(",".join(str(x) for x in r) + "\n")
print(f"wrote {out}/qos-sweep.csv")
PY
/usr/bin/python3 "$here/plots/plot_qos.py" "$out/qos-sweep.csv" "$out/qos-sweep.png" "$qos on $model"
