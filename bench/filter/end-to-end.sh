#!/usr/bin/env bash
# Scheduling end to end, live vs simulated: `disksched replay` issues Poisson arrivals
# of uniform 8 KiB reads (seed 1, replication 0) through nbdkit --filter=disksched on
# `diskemu model=hp97560`, and `disksched sim` runs the same arrivals in virtual time,
# for FCFS and ASATF(30) at a range of rates. From each mean-response-vs-rate curve: the
# rate sustained at a mean response target; the gain of ASATF(30) over FCFS live, as a
# fraction of the simulator's gain.
#   bench/filter/end-to-end.sh FILTER.so DISKEMU.so [OUT_DIR]
# Settings (environment): TIMESCALE (default 0.5: the disk runs twice as fast as real,
# filter and replay told so), WARMUP (100), REQUESTS (400), TARGETS (mean response, ms;
# default 100,200). nbdkit -t 64, sched-depth=1, one NBD connection.
# Target: live gain / simulated gain >= 0.9.
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
out=${3:-$(mktemp -d /tmp/disksched-e2e.XXXXXX)}
mkdir -p "$out"
timescale=${TIMESCALE:-0.5}
warmup=${WARMUP:-100}
requests=${REQUESTS:-400}
targets=${TARGETS:-100,200}

declare -A rates=([fcfs]="25 30 35 38 41 44" [asatf:w=30]="40 45 50 55 60 65 70")
echo "settings: diskemu model=hp97560 timescale=$timescale; nbdkit -t 64 --filter=disksched"
echo "          sched-geometry=hp97560 sched-depth=1; replay and sim: uniform 8 KiB reads,"
echo "          seed 1 rep 0, $warmup warm-up + $requests measured + keep-warm; targets $targets ms"
report_load

results="$out/results.json"
echo '{"live": {}, "sim": {}}' > "$results"
add() {  # add WORLD SCHED RATE JSON
  /usr/bin/python3 - "$results" "$@" <<'PY'
import json, sys
path, world, sched, rate, doc = sys.argv[1:]
res = json.load(open(path))
d = json.loads(doc)
sat = bool(d["saturated"]) or d["mean_ms"] is None
res[world].setdefault(sched, []).append(
    {"rate": float(rate), "mean_ms": d["mean_ms"], "saturated": sat,
     "throughput_per_s": d["throughput_per_s"], "mean_queue_len": d["mean_queue_len"]})
json.dump(res, open(path, "w"), indent=1)
print(f"  {world:4} {sched:11} {float(rate):5g}/s: mean {d['mean_ms'] or float('nan'):8.1f} ms, "
      f"throughput {d['throughput_per_s'] or 0:5.1f}/s, queue {d['mean_queue_len'] or 0:5.1f}"
      + ("  SATURATED" if sat else ""))
PY
}
for sched in fcfs asatf:w=30; do
  for rate in ${rates[$sched]}; do
    sim=$("$disksched" sim --sched "$sched" --rate "$rate" --workload uniform --seed 1 \
            --reps 1 --warmup "$warmup" --requests "$requests" --max-queue 200 --json)
    add sim "$sched" "$rate" "$sim"
    rm -f "$out/live-${sched%%:*}-$rate.csv"  # sched-log= appends to an existing log
    live=$(nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=hp97560 timescale="$timescale" \
             sched="$sched" sched-geometry=hp97560 sched-timescale="$timescale" \
             sched-log="$out/live-${sched%%:*}-$rate.csv" \
             --run "'$disksched' replay --nbd \"\$uri\" --workload uniform --rate $rate \
               --seed 1 --rep 0 --warmup $warmup --requests $requests --timescale $timescale \
               --max-queue 200 --quiet --json")
    add live "$sched" "$rate" "$live"
    if echo "$live" | grep -q '"saturated": true'; then break; fi
  done
done
/usr/bin/python3 "$bench_dir/end_to_end.py" "$results" "$targets" "$out/end-to-end.png"
echo "results: $out"
