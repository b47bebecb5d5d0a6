#!/usr/bin/env bash
# The live head tracker on a drive of today: the filter at sched-depth=1 over diskemu in
# real time (timescale 1), a closed load of random 4 KiB reads (`disksched replay
# --workload closed:n=JOBS,size=4k`: JOBS requests always outstanding), FCFS and
# ASATF(30) interleaved, RUNS runs each. For each model: the share of service times
# (dispatch -> completion) predicted within one sector, within 0.1 ms and within 1 ms,
# the throughput and the mean service time (medians of the runs, each run beside), and
# ASATF's gain over FCFS, beside `disksched sim` on the same closed load (5 replications:
# the prediction exact). Then one ASATF run per model with the emulator's trace
# (`-v -D diskemu.trace=1`), joined request by request with the filter's latency log:
# how much of the error is the host's path (which no prediction made at dispatch can
# know: the ceiling) and how much the tracker's own (see tracker_today.py).
#   bench/filter/tracker-today.sh FILTER.so DISKEMU.so
# Settings (environment): MODELS ("sata7200-8tb sata7200-8tb-nocache hp97560": the drive
# of today with its buffer (read-ahead, write-behind) and without, and the 1991 disk as
# the reference), JOBS (16), REQUESTS (1500; the HP 97560 a third), WARMUP (100), RUNS (3),
# EXPLAIN (1: the traced runs; 0: none), RT (diskemu rt-priority=, 10; 0: off).
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
make_workdir
models=${MODELS:-sata7200-8tb sata7200-8tb-nocache hp97560}
jobs=${JOBS:-16}
requests=${REQUESTS:-1500}
warmup=${WARMUP:-100}
runs=${RUNS:-3}
explain=${EXPLAIN:-1}
rt=${RT:-10}
emu_rt=()
[ "$rt" -gt 0 ] && emu_rt=(rt-priority="$rt")
py=(/usr/bin/python3 "$bench_dir/tracker_today.py")
echo "settings: nbdkit -t 64 --filter=disksched diskemu MODEL (timescale 1 ${emu_rt[*]}),"
echo "          sched-geometry=MODEL sched-depth=1; disksched replay closed:n=$jobs,size=4k,"
echo "          $warmup warm-up + $requests measured (HP 97560: a third); FCFS and ASATF(30)"
echo "          interleaved, $runs runs each; models: $models"
report_load

# one MODEL SCHED N [NBDKIT-ARGS...]: one run; its log in $work/log.csv, stats in $work/stats.json
one() {
  local model=$1 sched=$2 n=$3
  shift 3
  rm -f "$work/log.csv" "$work/ctl.sock"
  nbdkit -U - -t 64 "$@" --filter="$filter" "$diskemu" model="$model" "${emu_rt[@]}" \
    sched="$sched" sched-geometry="$model" sched-depth=1 sched-log="$work/log.csv" \
    sched-control="$work/ctl.sock" \
    --run "'$disksched' replay --nbd \"\$uri\" --workload closed:n=$jobs,size=4k \
      --warmup $warmup --requests $n --quiet --json > '$work/replay.json' &&
      '$disksched' ctl --json '$work/ctl.sock' stats > '$work/stats.json'"
}

count_for() { case $1 in hp97560*) echo $(( requests / 3 )) ;; *) echo "$requests" ;; esac; }

: > "$work/runs.jsonl"
for model in $models; do
  n=$(count_for "$model")
  for ((i = 1; i <= runs; i++)); do
    for sched in fcfs asatf:w=30; do
      one "$model" "$sched" "$n" 2>"$work/nbdkit.err" ||
        { cat "$work/nbdkit.err" >&2; echo "bench: run failed ($model $sched)" >&2; exit 1; }
      "${py[@]}" run "$work/log.csv" "$work/replay.json" "$warmup" |
        /usr/bin/python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); d.update(model=sys.argv[1], sched=sys.argv[2]); print(json.dumps(d))' \
          "$model" "$sched" >> "$work/runs.jsonl"
    done
  done
done
# The same closed load in the simulator (virtual time: the prediction is exact there).
for model in $models; do
  for sched in fcfs asatf:w=30; do
    "$disksched" sim --model "$model" --workload closed:n=$jobs,size=4k --sched "$sched" \
      --warmup "$warmup" --requests "$(count_for "$model")" --reps 5 --json |
      /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({"sim": True, "model": sys.argv[1], "sched": sys.argv[2], "throughput": d["throughput_per_s"], "mean_service_ms": d["mean_service_ms"]}))' \
        "$model" "$sched" >> "$work/runs.jsonl"
  done
done
echo
"${py[@]}" table "$work/runs.jsonl"

if [ "$explain" = 1 ]; then
  for model in $models; do
    echo
    echo "where the error comes from: $model, ASATF(30), one run with diskemu's trace"
    one "$model" asatf:w=30 "$(count_for "$model")" -v -D diskemu.trace=1 2>"$work/trace.txt" ||
      { tail -5 "$work/trace.txt" >&2; echo "bench: traced run failed ($model)" >&2; exit 1; }
    "${py[@]}" explain "$work/log.csv" "$work/trace.txt" "$warmup"
  done
fi
echo
report_load
