#!/usr/bin/env bash
# Rotation period refinement: `diskemu model=hp97560 rpm-error=E` spins (1 + E) times as
# fast as the profile the filter is given (sched-geometry=hp97560), in real time
# (timescale 1). The fraction of requests whose predicted service time is within one
# sector time (0.208 ms) of the actual one, with the period refined from completions
# (the default) and with the profile's period kept (control command `period fixed`),
# on the same arrivals. Open Poisson arrivals of uniform 8 KiB reads (`disksched
# replay`), FCFS, sched-depth=1, delta calibrated by the filter. Each run first sends
# 20 requests to open the device (then the control command applies); the first 100
# measured requests (delta calibration, the period's first fit) are left out.
#   bench/filter/rotation-refine.sh FILTER.so DISKEMU.so [REQUESTS] [RPM_ERROR] [RATE]
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
requests=${3:-600}
rpm_error=${4:-0.2%}
rate=${5:-20}
make_workdir

echo "settings: nbdkit -t 64 --filter=disksched diskemu model=hp97560 rpm-error=$rpm_error"
echo "          (timescale 1), sched-geometry=hp97560 sched=fcfs sched-depth=1;"
echo "          disksched replay uniform 8 KiB reads at $rate/s, $requests requests per run"
report_load
echo
printf '%-8s %6s %14s %12s %12s %16s %14s\n' "period" "n" "within 1 sec" "p50 |err| us" "p95 |err| us" "rotation_ppm" "fit ppm"
for mode in refine fixed; do
  log="$work/$mode.csv"
  ctl="$work/ctl.sock"
  rm -f "$ctl"
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=hp97560 rpm-error="$rpm_error" \
    sched=fcfs sched-geometry=hp97560 sched-log="$log" sched-control="$ctl" \
    --run "'$disksched' replay --nbd \"\$uri\" --workload uniform --rate $rate \
        --requests 20 --seed 2 --quiet --json >/dev/null &&
      '$disksched' ctl '$ctl' period $mode >/dev/null &&
      '$disksched' replay --nbd \"\$uri\" --workload uniform --rate $rate \
        --requests $requests --seed 1 --quiet --json >/dev/null &&
      '$disksched' ctl '$ctl' show --json > '$work/show.json'"
  /usr/bin/python3 - "$log" "$mode" "$work/show.json" <<'PY'
import csv, json, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["id"]))[120:]
err = sorted(abs(float(r["predicted_us"]) - float(r["actual_us"])) for r in rows)
within = sum(abs(float(r["predicted_us"]) - float(r["actual_us"])) <= float(r["sector_us"])
             for r in rows) / len(rows)
show = json.load(open(sys.argv[3]))
fit = show["rotation_fit_ppm"]
print(f"{sys.argv[2]:<8} {len(rows):6} {100 * within:13.1f}% {err[len(err) // 2]:12.1f} "
      f"{err[int(0.95 * len(err))]:12.1f} {show['rotation_ppm']:16.1f} "
      + (f"{fit:14.1f}" if fit is not None else f"{'-':>14}"))
PY
done
/usr/bin/python3 -c "
import sys
e = sys.argv[1]
f = float(e[:-1]) / 100 if e.endswith('%') else float(e)
print(f'truth: the platter turns {1 + f:g} times as fast: period {(1 / (1 + f) - 1) * 1e6:+.1f} ppm vs the profile')" "$rpm_error"
