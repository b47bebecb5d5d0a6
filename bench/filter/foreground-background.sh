#!/usr/bin/env bash
# Ganger & Patt's point, live: a foreground job whose progress waits on its reads, beside
# a background writer flooding the disk, through nbdkit --filter=disksched on
# `diskemu model=hp97560`. The system's metric is how soon the foreground job is done,
# not the mean response time.
#   bench/filter/foreground-background.sh [--quick] FILTER.so DISKEMU.so [OUT_DIR]
# The foreground: `disksched replay --workload closed:n=1,think=FG_THINK,p=FG_P` on the
# default export, FG_READS 8 KiB reads (sequential: p=1), each issued only after the
# previous one completed and the job computed for FG_THINK (a file read and processed
# block by block). The filter's built-in rules make them time-critical (op:read): the job blocks
# on each one at once. The background: `closed:n=BG_DEPTH,think=0ms,reads=0`, uniform
# 8 KiB writes without FUA kept BG_DEPTH deep, connecting to the export `noncritical`
# (the connection says it is background; the built-in rule export:noncritical makes all
# its requests time-noncritical). It starts first and is stopped (SIGTERM: it drains
# its requests in flight) when the foreground is done.
# Each run is a fresh nbdkit; the schedulers take turns within each repetition, and
# the table shows medians. Foreground elapsed and mean read response are the
# foreground's own; background throughput counts the writes completed while the
# foreground ran (filter log, first read's arrival to last read's completion).
# Times are the disk's own (real time / timescale).
# Settings (environment): TIMESCALE (default 0.2: the disk runs five times as fast as
# in 1991, filter and replay told so), REPS (5), FG_READS (100), FG_THINK (10ms),
# FG_P (1), BG_DEPTH (32), SCHEDS ("look fcfs priority"), FG_LIMIT (model
# time, e.g. 60s; default none: both jobs stop issuing then, for a scheduler that
# starves the foreground), SCHED_CLASSES (the filter's sched-classes=, default its
# built-in rules). --quick: REPS=1, FG_READS=15. nbdkit -t 64, sched-depth=1.
. "$(dirname "$0")/common.sh"
quick=0
args=()
for a in "$@"; do
  case $a in
    --quick) quick=1 ;;
    -*) echo "bench: unknown option '$a' (the one option is --quick)" >&2; exit 2 ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} -ge 2 ] && [ ${#args[@]} -le 3 ] \
  || { echo "usage: $0 [--quick] FILTER.so DISKEMU.so [OUT_DIR]" >&2; exit 2; }
bench_paths "${args[0]}" "${args[1]}"
out=${args[2]:-$(mktemp -d /tmp/disksched-fgbg.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
timescale=${TIMESCALE:-0.2}
if [ $quick = 1 ]; then reps=${REPS:-1}; fg_reads=${FG_READS:-15}
else reps=${REPS:-5}; fg_reads=${FG_READS:-100}; fi
fg_think=${FG_THINK:-10ms}
fg_p=${FG_P:-1}
fg_limit=${FG_LIMIT:-}
[[ -z "$fg_limit" || "$fg_limit" =~ ^[0-9.]+(ns|us|ms|s)$ ]] \
  || { echo "bench: FG_LIMIT is a duration with a unit, e.g. FG_LIMIT=60s (got '$fg_limit')" >&2; exit 2; }
bg_depth=${BG_DEPTH:-32}
sched_classes=${SCHED_CLASSES:-}
scheds=${SCHEDS:-look fcfs priority}
fg_workload="closed:n=1,think=$fg_think,p=$fg_p,size=8k,reads=1"
bg_workload="closed:n=$bg_depth,think=0ms,size=8k,reads=0"

echo "settings: diskemu model=hp97560 timescale=$timescale; nbdkit -t 64 --filter=disksched"
echo "          sched-geometry=hp97560 sched-depth=1, sched-classes=${sched_classes:-(built-in)}"
echo "          foreground: $fg_workload, $fg_reads reads, export '' (reads: critical)"
echo "          background: $bg_workload, export 'noncritical' (noncritical)"
echo "          $reps repetition(s), schedulers interleaved: $scheds"
[ -z "$fg_limit" ] || echo "          both jobs stop issuing at $fg_limit (model time)"
report_load

# One run, inside nbdkit --run: background first, then the foreground; then stop the
# background and wait for it to drain.
cat > "$out/run.sh" <<'EOF'
set -euo pipefail
disksched=$1 socket=$2 dir=$3 ts=$4 rep=$5 fg=$6 fg_reads=$7 bg=$8 limit=$9
"$disksched" replay --nbd "nbd+unix:///noncritical?socket=$socket" --workload "$bg" \
  --requests 1000000000 --seed 2 --rep "$rep" --timescale "$ts" ${limit:+--time-limit "$limit"} \
  --quiet --json > "$dir/bg.json" &
bg_pid=$!
fg_rc=0
"$disksched" replay --nbd "nbd+unix:///?socket=$socket" --workload "$fg" \
  --requests "$fg_reads" --seed 1 --rep "$rep" --timescale "$ts" ${limit:+--time-limit "$limit"} \
  --quiet --json > "$dir/fg.json" || fg_rc=$?
# Stopped even if the foreground failed: nbdkit must not close a connection mid-request.
kill -TERM "$bg_pid" 2>/dev/null || true  # unless the time limit stopped it already
wait "$bg_pid"
exit "$fg_rc"
EOF

runs="$out/runs.jsonl"
: > "$runs"
for rep in $(seq 0 $((reps - 1))); do
  for sched in $scheds; do
    dir="$out/${sched//[:,=]/_}-$rep"  # one directory per spec, e.g. priority_timeout_0-0
    mkdir -p "$dir"
    rm -f "$dir/filter.csv"  # sched-log= appends to an existing log
    nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=hp97560 timescale="$timescale" \
      sched="$sched" sched-geometry=hp97560 sched-timescale="$timescale" \
      sched-log="$dir/filter.csv" ${sched_classes:+sched-classes="$sched_classes"} \
      --run "bash '$out/run.sh' '$disksched' \"\$unixsocket\" '$dir' $timescale $rep \
             '$fg_workload' $fg_reads '$bg_workload' '$fg_limit'" \
      || { echo "bench: the run of $sched (repetition $rep) failed" >&2; exit 1; }
    /usr/bin/python3 "$bench_dir/foreground_background.py" run "$sched" "$rep" "$timescale" \
      "$dir/filter.csv" "$dir/fg.json" "$dir/bg.json" "$runs"
  done
done
echo
/usr/bin/python3 "$bench_dir/foreground_background.py" table "$runs" | tee "$out/table.txt"
echo "(model time; fg = foreground job, bg = background writer while the foreground ran)"
echo "results: $out"
