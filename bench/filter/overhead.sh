#!/usr/bin/env bash
# Filter overhead: fio's nbd engine over nbdkit's memory plugin, with the disksched
# filter (FCFS) and without, 4 KiB random reads at client depth 1 and 32.
#   bench/filter/overhead.sh FILTER.so [RUNTIME_S] [REPEATS]
# Targets: at depth 32, IOPS with the filter >= 90% of without (filter depth 32: the
# memory "device" takes as many requests as come, so this is the filter's own cost;
# filter depth 1, which serializes the device, is shown for information); at depth 1,
# added median latency <= 10 us. Runs are interleaved and repeated; medians reported.
. "$(dirname "$0")/common.sh"
filter=$(abs_path "$1")
runtime=${2:-5}
repeats=${3:-3}
require_tools nbdkit fio
make_workdir

echo "settings: nbdkit -t 64 memory 1G; fio ioengine=nbd rw=randread bs=4k size=1g"
echo "          runtime ${runtime}s, $repeats interleaved repeats, medians; filter sched=fcfs"
report_load

# run NAME DEPTH [SCHED_DEPTH]: one fio run, through the filter with that depth when
# given, JSON in $work/NAME.json.
run() {
  local name=$1 depth=$2 args=()
  [ $# -gt 2 ] && args=(--filter="$filter" memory 1G sched=fcfs sched-depth="$3") || args=(memory 1G)
  nbdkit -U - -t 64 "${args[@]}" --run "export uri; fio --name=bench --ioengine=nbd \
    --uri=\"\$uri\" --rw=randread --bs=4k --size=1g --iodepth=$depth --runtime=$runtime \
    --time_based --randrepeat=0 --norandommap --output-format=json --output=$work/$name.json" \
    >/dev/null 2>"$work/nbdkit.err" || { cat "$work/nbdkit.err"; exit 1; }
}

declare -A iops lat
for depth in 1 32; do
  for rep in $(seq "$repeats"); do
    run "none-$depth-$rep" "$depth"
    run "fcfs-$depth-$rep" "$depth" "$depth"
    [ "$depth" = 32 ] && run "fcfs1-$depth-$rep" "$depth" 1
    for v in none fcfs fcfs1; do
      f="$work/$v-$depth-$rep.json"
      [ -e "$f" ] || continue
      iops[$v-$depth]+="$(fio_field "$f" "d['jobs'][0]['read']['iops']") "
      lat[$v-$depth]+="$(fio_field "$f" "d['jobs'][0]['read']['clat_ns']['percentile']['50.000000']") "
    done
  done
done

/usr/bin/python3 - "${iops[none-1]}" "${iops[fcfs-1]}" "${lat[none-1]}" "${lat[fcfs-1]}" \
  "${iops[none-32]}" "${iops[fcfs-32]}" "${iops[fcfs1-32]}" "${lat[none-32]}" "${lat[fcfs-32]}" <<'PY'
import statistics, sys
m = lambda s: statistics.median(float(x) for x in s.split())
i1n, i1f, l1n, l1f, i32n, i32f, i32s, l32n, l32f = (m(a) for a in sys.argv[1:])
print()
print(f"{'':34} {'no filter':>12} {'filter':>12} {'ratio/diff':>12}")
print(f"{'depth 1: IOPS':34} {i1n:12.0f} {i1f:12.0f} {i1f / i1n:12.3f}")
print(f"{'depth 1: median latency (us)':34} {l1n / 1e3:12.1f} {l1f / 1e3:12.1f} {(l1f - l1n) / 1e3:+12.1f}")
print(f"{'depth 32: IOPS (filter depth 32)':34} {i32n:12.0f} {i32f:12.0f} {i32f / i32n:12.3f}")
print(f"{'depth 32: IOPS (filter depth 1)':34} {i32n:12.0f} {i32s:12.0f} {i32s / i32n:12.3f}")
print(f"{'depth 32: median latency (us)':34} {l32n / 1e3:12.1f} {l32f / 1e3:12.1f} {(l32f - l32n) / 1e3:+12.1f}")
print()
ok1 = i32f / i32n >= 0.90
ok2 = (l1f - l1n) / 1e3 <= 10
print(f"target: depth-32 IOPS ratio >= 0.90     ours {i32f / i32n:.3f}   {'MET' if ok1 else 'NOT MET'}")
print(f"target: depth-1 added median <= 10 us   ours {(l1f - l1n) / 1e3:+.1f} us   {'MET' if ok2 else 'NOT MET'}")
PY
