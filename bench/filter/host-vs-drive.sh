#!/usr/bin/env bash
# One live point of the host-vs-drive comparison (bench/experiments/host-vs-drive.sh has the
# sweep): `disksched replay` issues Poisson arrivals of 4 KiB random reads (seed 1,
# replication 0) through nbdkit --filter=disksched on diskemu, and `disksched sim` runs the
# same arrivals in virtual time, two ways:
#   (a) sched=fcfs sched-depth=32 over diskemu drive-queue=32 drive-policy=satf
#   (b) sched=asatf:w=30 sched-depth=1 with the geometry, over diskemu without a queue
# Prints mean and p99 response, live beside simulated, and (b)'s predictions within one
# sector (ctl stats).
#   bench/filter/host-vs-drive.sh FILTER.so DISKEMU.so
# Settings (environment): MODEL (sata7200-8tb-nocache: measured before the profile had its buffer), RATE (150), WARMUP (200), REQUESTS (1500),
# RUNS (live runs of each way, 3). Timescale 1; nbdkit -t 64.
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
make_workdir
model=${MODEL:-sata7200-8tb-nocache}
rate=${RATE:-150}
warmup=${WARMUP:-200}
requests=${REQUESTS:-1500}
runs=${RUNS:-3}
echo "settings: diskemu model=$model, timescale 1; replay and sim: uniform 4 KiB reads at"
echo "          $rate/s, seed 1 rep 0, $warmup warm-up + $requests measured; nbdkit -t 64"
report_load
replay=("$disksched" replay --workload uniform:size=4k --rate "$rate" --seed 1 --rep 0
        --warmup "$warmup" --requests "$requests" --max-queue 400 --quiet --json)
show() {  # show LABEL JSON-FILE [STATS-FILE]
  /usr/bin/python3 - "$@" <<'PY'
import json, sys
label, path = sys.argv[1:3]
j = json.load(open(path))
line = f"  {label:34} mean {j['mean_ms']:7.1f} ms  p99 {j['p99_ms']:7.1f} ms  {j['throughput_per_s']:6.1f} req/s"
if j.get("saturated"):
    line += "  SATURATED"
if len(sys.argv) > 3:
    s = json.load(open(sys.argv[3]))
    line += f"  within one sector {100 * s['prediction_within_sector']:.1f}%"
print(line)
PY
}
sim_a=(--sched fcfs --depth 32 --drive-queue 32 --drive-policy satf)
sim_b=(--sched asatf:w=30)
for way in a b; do
  declare -n args="sim_$way"
  "$disksched" sim --model "$model" --workload uniform:size=4k --rate "$rate" --seed 1 --reps 1 \
    --warmup "$warmup" --requests "$requests" --json "${args[@]}" > "$work/sim-$way.json"
done
show "(a) sim" "$work/sim-a.json"
show "(b) sim" "$work/sim-b.json"
for ((i = 1; i <= runs; i++)); do
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model="$model" drive-queue=32 drive-policy=satf \
    sched=fcfs sched-depth=32 \
    --run "$(printf '%q ' "${replay[@]}") --nbd \"\$uri\" > '$work/a.json'" 2>/dev/null
  show "(a) live, host FCFS, drive SATF 32" "$work/a.json"
  rm -f "$work/ctl.sock"
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model="$model" \
    sched=asatf:w=30 sched-geometry="$model" sched-control="$work/ctl.sock" \
    --run "$(printf '%q ' "${replay[@]}") --nbd \"\$uri\" > '$work/b.json' &&
           '$disksched' ctl --json '$work/ctl.sock' stats > '$work/b-stats.json'" 2>/dev/null
  show "(b) live, host ASATF(30), depth 1" "$work/b.json" "$work/b-stats.json"
done
report_load
