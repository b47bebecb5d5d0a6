#!/usr/bin/env bash
# Prediction: on `diskemu model=hp97560` in real time (timescale 1), the fraction of
# requests whose predicted service time (dispatch -> completion) is within one sector
# time (0.208 ms) of the actual one. Open Poisson arrivals of uniform 8 KiB reads
# (`disksched replay`), sched-depth=1, delta calibrated by the filter (the first 16
# completions run uncalibrated and are left out; counted in "all").
#   bench/filter/prediction.sh FILTER.so DISKEMU.so [REQUESTS]
# Target: >= 95% within one sector time. "emu late p99" is how late the emulator's own
# completions were (its stats): a busy host delays them, and no prediction can see that.
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
requests=${3:-500}
make_workdir

echo "settings: nbdkit -t 64 --filter=disksched diskemu model=hp97560 (timescale 1),"
echo "          sched-geometry=hp97560 sched-depth=1; disksched replay uniform 8 KiB reads,"
echo "          $requests requests per run after 20 warm-up"
report_load
echo
printf '%-22s %6s %10s %12s %12s %12s %14s\n' "scheduler @ rate" "n" "mean q" "within 1 sec" "(all)" "p95 |err| us" "emu late p99"
fracs=""
for run in "fcfs 30" "asatf:w=30 50"; do
  set -- $run
  log="$work/pred.csv"
  rm -f "$log"  # one log per run: sched-log= appends to an existing one
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=hp97560 stats="$work/emu.json" sched="$1" \
    sched-geometry=hp97560 sched-log="$log" \
    --run "'$disksched' replay --nbd \"\$uri\" --workload uniform --rate $2 \
      --warmup 20 --requests $requests --quiet --json" > "$work/replay.json"
  /usr/bin/python3 - "$log" "$1 @ $2/s" "$work/frac" <<'PY'
import csv, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["id"]))
def frac(rs):
    ok = [abs(float(r["predicted_us"]) - float(r["actual_us"])) <= float(r["sector_us"]) for r in rs]
    return sum(ok) / len(ok)
cal = rows[16:]
err = sorted(abs(float(r["predicted_us"]) - float(r["actual_us"])) for r in cal)
q = sum(float(r["queue_len"]) for r in rows) / len(rows)
import json, os
late = json.load(open(os.path.join(os.path.dirname(sys.argv[3]), "emu.json")))["lateness_us"]["p99"]
print(f"{sys.argv[2]:<22} {len(cal):6} {q:10.2f} {100 * frac(cal):11.1f}% {100 * frac(rows):11.1f}% "
      f"{err[int(0.95 * len(err))]:12.1f} {late:11.1f} us")
open(sys.argv[3], "w").write(f"{frac(cal)}\n")
PY
  f=$(cat "$work/frac")
  fracs+="$f "
done
echo
/usr/bin/python3 -c "import sys; v=[float(x) for x in sys.argv[1:]]; w=min(v); print(f'target: within one sector (0.208 ms) >= 95%   ours {100*w:.1f}% (worst run)   ' + ('MET' if w >= 0.95 else 'NOT MET'))" $fracs
