#!/usr/bin/env bash
# Per-track phase refinement: diskemu emulates an HP 97560 whose sector 0 sits 0.1 to 0.4
# rotations (7 to 29 sectors) away from the skews on 40 of its tracks (a `track_phase`
# list in its profile); the filter is given the plain HP 97560 profile. Requests are
# 8 KiB reads within 300 tracks (the 40 among them, each revisited; Poisson arrivals,
# `disksched replay` of a trace made by track_phase_setup.py), FCFS, sched-depth=1,
# timescale 1, delta calibrated by the filter. The fraction of requests whose predicted
# service time is within one sector time (0.208 ms) of the actual one, on the 40 tracks
# and on the others, with the track phases refined from completions (the default) and
# kept as the profile has them (control command `tracks fixed`), on the same arrivals.
# Each run first sends 20 requests to open the device (then the control command
# applies); the first WARMUP measured requests (delta calibration, the tracks' first
# visits) are left out.
#   bench/filter/track-refine.sh FILTER.so DISKEMU.so [REQUESTS] [WARMUP] [RATE]
. "$(dirname "$0")/common.sh"
bench_paths "$1" "$2"
requests=${3:-4000}
warmup=${4:-2500}
rate=${5:-25}
make_workdir
/usr/bin/python3 "$bench_dir/track_phase_setup.py" "$work" "$requests" 300 40 "$rate" 1
/usr/bin/python3 "$bench_dir/track_phase_setup.py" "$work/open" 20 300 40 "$rate" 2

echo "settings: nbdkit --filter=disksched diskemu model=device.json (40 of 300 tracks' sector 0"
echo "          moved 0.1-0.4 rotations), timescale 1; sched-geometry=profile.json (plain"
echo "          HP 97560) sched=fcfs sched-depth=1; $requests 8 KiB reads within the 300"
echo "          tracks at $rate/s, the first $warmup not counted"
report_load
echo
printf '%-7s %8s %16s %8s %16s %16s\n' "tracks" "n moved" "within 1 sector" "n other" "within 1 sector" "tracks_rephased"
for mode in refine fixed; do
  log="$work/$mode.csv"
  ctl="$work/ctl.sock"
  rm -f "$ctl"
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model="$work/device.json" \
    sched=fcfs sched-geometry="$work/profile.json" sched-log="$log" sched-control="$ctl" \
    --run "'$disksched' replay --nbd \"\$uri\" --workload trace:csv:$work/open/trace.csv \
        --requests 20 --seed 2 --quiet --json >/dev/null &&
      '$disksched' ctl '$ctl' tracks $mode >/dev/null &&
      '$disksched' replay --nbd \"\$uri\" --workload trace:csv:$work/trace.csv \
        --requests $requests --seed 1 --quiet --json >/dev/null &&
      '$disksched' ctl '$ctl' show --json > '$work/show.json'"
  /usr/bin/python3 - "$log" "$mode" "$work/show.json" "$work/shifted.json" "$warmup" <<'PY'
import csv, json, sys
rows = sorted(csv.DictReader(open(sys.argv[1])), key=lambda r: int(r["id"]))
rows = rows[20 + int(sys.argv[5]):]
shifted = json.load(open(sys.argv[4]))
def moved(r):
    first = int(r["offset"]) // 512
    last = (int(r["offset"]) + int(r["length"]) - 1) // 512
    return any(a <= first <= b or a <= last <= b for a, b in shifted)
def ok(r):
    return abs(float(r["predicted_us"]) - float(r["actual_us"])) <= float(r["sector_us"])
m = [ok(r) for r in rows if moved(r)]
o = [ok(r) for r in rows if not moved(r)]
show = json.load(open(sys.argv[3]))
print(f"{sys.argv[2]:<7} {len(m):8} {100 * sum(m) / len(m):15.1f}% {len(o):8} "
      f"{100 * sum(o) / len(o):15.1f}% {show['tracks_rephased']:16}")
PY
done
