#!/usr/bin/env bash
# Dispatch gap: with the device busy (sched-depth=1, a queue always waiting), the time
# from one completion to the next dispatch (the scheduler's decision) and to the next
# issue (the chosen worker woke and called the plugin: the device's idle time). The
# "device" is nbdkit's memory plugin behind a 1 ms delay (nbdkit's delay filter), so a
# queue is always waiting (memory alone answers before the next request arrives).
#   bench/filter/dispatch-gap.sh FILTER.so [RUNTIME_S]
# Target: p50 of the completion -> dispatch gap <= 20 us (FCFS). The completion -> issue
# gap adds the wake-up of the chosen worker by the OS (a sleeping thread on a busy
# 2-vCPU host takes tens of us); it is shown beside it. SSTF and ASATF(30), with the
# HP 97560 geometry, show what a costlier decision adds.
. "$(dirname "$0")/common.sh"
filter=$(abs_path "$1")
runtime=${2:-5}
require_tools nbdkit fio
make_workdir

echo "settings: nbdkit -t 64 --filter=disksched --filter=delay memory 1G rdelay=1ms"
echo "          sched-depth=1; fio ioengine=nbd"
echo "          rw=randread bs=4k iodepth=32, ${runtime}s; gaps from the latency log"
report_load
echo
printf '%-34s %8s %10s %10s %10s %10s\n' "scheduler" "gaps" "decide p50" "p99 (us)" "idle p50" "p99 (us)"
i=0
for spec in "fcfs" "sstf" "asatf:w=30 sched-geometry=hp97560"; do
  log="$work/gap-$i.csv"
  # shellcheck disable=SC2086
  nbdkit -U - -t 64 --filter="$filter" --filter=delay memory 1G rdelay=1ms \
    sched=$spec sched-depth=1 sched-log="$log" \
    --run "export uri; fio --name=gap --ioengine=nbd --uri=\"\$uri\" --rw=randread --bs=4k \
      --size=1g --iodepth=32 --runtime=$runtime --time_based --randrepeat=0 --norandommap \
      --output=/dev/null" >/dev/null 2>"$work/nbdkit.err" || { cat "$work/nbdkit.err"; exit 1; }
  /usr/bin/python3 "$bench_dir/gaps.py" "$log" "${spec%% *}"
  i=$((i + 1))
done
read -r decide idle < "$work/gap-0.csv.p50"
echo
/usr/bin/python3 -c "import sys; d, i = map(float, sys.argv[1:]); print(f'target: FCFS completion -> dispatch p50 <= 20 us   ours {d:.1f} us   ' + ('MET' if d <= 20 else 'NOT MET') + f'\n(completion -> issue, including the OS wake-up of the worker: p50 {i:.1f} us)')" "$decide" "$idle"
