#!/usr/bin/env bash
# Class-aware scheduling on a drive that queues, live and side by side (issue #31):
#   bench/qos/live.sh FILTER.so DISKEMU.so [OUT_DIR]
# One emulated sata7200-8tb (diskemu drive-queue=32, the profile's write buffer on,
# timescale 1) serves three jobs at once, all from one fio:
#   fg      QD1 random 4 KiB reads over the whole disk (a process waits for each), each
#           FG_THINK ms after the last completed (default 0: none; an interactive reader
#           thinks between reads)
#   scrub   sequential 1 MiB reads, BG_DEPTH deep (default 16)
#   writer  random 4 KiB writes, 4 deep, WRITER_IOPS a second (default 50)
# The ways (WAYS, default "a b c c30"):
#   a    FCFS at the host, sched-depth=32 (the README's advice for a drive that queues);
#        fio's nbd engine, one connection a job
#   b    Linux mq-deadline with I/O priority classes (fg rt, writer be, scrub idle) on a
#        loop device (--direct-io=on) above nbdfuse, FCFS depth 32 in the filter
#   c    disksched qos: sched-background=scrub (the scrub connects to the export
#        'scrub'; qos:target=50ms, depth 32); fio's nbd engine
#   c30  as c with sched=qos:bg-share=30%
#   cl   as c over the path of b: one nbdfuse and loop device a class (fg and writer on
#        the default export, the scrub on the export 'scrub'), mq-deadline and the classes
#        of b on each loop device
# and, on the idle drive, fg alone and scrub alone over each path (nbd engine, loop).
# Each run is a fresh nbdkit; RUNTIME seconds measured (default 20) after RAMP (2).
# REPS repetitions (default 3), the ways interleaved; the table gives medians.
# Prints a line a run, the table, and writes OUT_DIR/live.png (matplotlib); then the
# simulator's version of the same (SIM=0: not), about 1.5 min.
# Needs root for the loop device (way b); without it, way b is left out with a message.
. "$(dirname "$0")/../filter/common.sh"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 FILTER.so DISKEMU.so [OUT_DIR]" >&2; exit 2; }
bench_paths "$1" "$2"
require_tools fio
qos_dir=$(cd "$(dirname "$0")" && pwd)
out=${3:-$(mktemp -d /tmp/disksched-qos-live.XXXXXX)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
reps=${REPS:-3}
runtime=${RUNTIME:-20}
ramp=${RAMP:-2}
bg_depth=${BG_DEPTH:-16}
writer_iops=${WRITER_IOPS:-50}
fg_think=${FG_THINK:-0}
[[ $fg_think =~ ^[0-9]+$ ]] || { echo "bench: FG_THINK=$fg_think: expected whole milliseconds" >&2; exit 2; }
fg_label="QD1 random 4 KiB reads$([ "$fg_think" = 0 ] || echo ", $fg_think ms think time")"
ways=${WAYS:-a b c cl}
model=sata7200-8tb
if [[ " $ways " =~ " b "|" cl " ]] && { [ "$(id -u)" != 0 ] || ! command -v nbdfuse >/dev/null \
    || ! command -v losetup >/dev/null; }; then
  echo "bench: ways b and cl need root, nbdfuse and losetup (a loop device above nbdfuse); left out"
  ways=$(echo " $ways " | sed -e 's/ b / /' -e 's/ cl / /')
fi
paths="nbd"
[[ " $ways " =~ " b "|" cl " ]] && paths="nbd loop"

echo "settings: diskemu model=$model drive-queue=32 timescale=1 (the profile's write buffer on)"
echo "          fg $fg_label; scrub sequential 1m reads $bg_depth deep;"
echo "          writer random 4k writes 4 deep at $writer_iops/s; ${runtime} s (+${ramp} s ramp) a run"
echo "          ways: $ways; idle-drive runs over: $paths; $reps repetition(s)"
report_load

# fio's job file: the jobs given ("fg scrub writer"), over PATH (nbd: fio's nbd engine on
# SOCKET, the scrub on the export SCRUB; loop: libaio on DEVICE with I/O priority
# classes, the scrub on the device SCRUB when given).
#   job_file JOBS nbd|loop SOCKET|DEVICE [SCRUB]
job_file() {
  local jobs=$1 path=$2 target=$3 scrub=$4 j
  cat <<EOF
[global]
time_based=1
runtime=$runtime
ramp_time=$ramp
lat_percentiles=1
clat_percentiles=0
percentile_list=50:99
randrepeat=0
EOF
  if [ "$path" = nbd ]; then
    echo "ioengine=nbd"
  else
    printf 'ioengine=libaio\ndirect=1\nfilename=%s\n' "$target"
  fi
  for j in $jobs; do
    echo "[$j]"
    [ "$path" != nbd ] || echo "uri=nbd+unix:///$([ "$j" = scrub ] && echo "$scrub")?socket=$target"
    [ "$path" != loop ] || [ "$j" != scrub ] || [ -z "$scrub" ] || echo "filename=$scrub"
    case $j in
      fg) printf 'rw=randread\nbs=4k\niodepth=1\n'; [ "$path" != loop ] || echo "prioclass=1"
          [ "$fg_think" = 0 ] || echo "thinktime=$((fg_think * 1000))" ;;
      scrub) printf 'rw=read\nbs=1m\niodepth=%s\n' "$bg_depth"; [ "$path" != loop ] || echo "prioclass=3" ;;
      writer) printf 'rw=randwrite\nbs=4k\niodepth=4\nrate_iops=%s\n' "$writer_iops"
              [ "$path" != loop ] || echo "prioclass=2" ;;
    esac
  done
}

# The loop path inside nbdkit --run: nbdfuse, a loop device with mq-deadline, fio, and
# everything taken down again (only what this run set up).
cat > "$out/loop-run.sh" <<'EOF'
set -euo pipefail
socket=$1 dir=$2 jobs=$3 scrub_export=${4:-}
loops=() mounts=()
cleanup() {
  local l m
  for l in "${loops[@]}"; do losetup -d "$l" || true; done
  for m in "${mounts[@]}"; do fusermount3 -u "$m" || true; done
  wait || true
}
trap cleanup EXIT
# mount_loop NAME EXPORT: nbdfuse of EXPORT at $dir/NAME, a loop device (direct I/O,
# mq-deadline) on it, its path in $loop.
mount_loop() {
  local mnt="$dir/$1" q
  mkdir -p "$mnt"
  nbdfuse -P "$dir/$1.pid" "$mnt/disk" "nbd+unix:///$2?socket=$socket" &
  for _ in $(seq 100); do [ -s "$dir/$1.pid" ] && break; sleep 0.1; done
  [ -s "$dir/$1.pid" ] || { echo "bench: nbdfuse did not start" >&2; exit 1; }
  mounts+=("$mnt")
  loop=$(losetup --direct-io=on -f --show "$mnt/disk")
  loops+=("$loop")
  q=/sys/block/${loop#/dev/}/queue
  grep -qw mq-deadline "$q/scheduler" || { echo "bench: $q/scheduler offers no mq-deadline" >&2; exit 1; }
  echo mq-deadline > "$q/scheduler"
  echo "$1: loop $loop on export '$2': scheduler $(cat "$q/scheduler"), nr_requests $(cat "$q/nr_requests")" >> "$dir/loop.txt"
}
mount_loop mnt ""
fg_loop=$loop scrub_loop=""
if [ -n "$scrub_export" ]; then mount_loop mnt-scrub "$scrub_export"; scrub_loop=$loop; fi
bash "$dir/../job.sh" "$jobs" loop "$fg_loop" "$scrub_loop" > "$dir/job.fio"
fio --output-format=json --output="$dir/fio.json" "$dir/job.fio"
EOF

# The nbd path inside nbdkit --run: fio's nbd engine, a connection a job.
cat > "$out/nbd-run.sh" <<'EOF'
set -euo pipefail
socket=$1 dir=$2 jobs=$3 scrub_export=$4
bash "$dir/../job.sh" "$jobs" nbd "$socket" "$scrub_export" > "$dir/job.fio"
fio --output-format=json --output="$dir/fio.json" "$dir/job.fio"
EOF

# job.sh: job_file for a run script that cannot see this shell's functions.
{ declare -f job_file; echo "runtime=$runtime ramp=$ramp bg_depth=$bg_depth writer_iops=$writer_iops fg_think=$fg_think"
  echo 'job_file "$1" "$2" "$3" "${4:-}"'; } > "$out/job.sh"

# run NAME PATH JOBS FILTER_KEYS...: one fresh nbdkit, fio inside it, one line of results.
run() {
  local name=$1 path=$2 jobs=$3 rep=$4; shift 4
  local dir="$out/$name-$rep" scrub_export=""
  rm -rf "$dir"; mkdir -p "$dir"
  [[ " $* " == *" sched-background="* ]] && scrub_export=scrub
  local body="bash '$out/loop-run.sh' \"\$unixsocket\" '$dir' '$jobs' '$scrub_export'"
  [ "$path" = nbd ] && body="bash '$out/nbd-run.sh' \"\$unixsocket\" '$dir' '$jobs' '$scrub_export'"
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=$model drive-queue=32 timescale=1 \
    sched-log="$dir/filter.csv" "$@" --run "$body" > "$dir/nbdkit.out" 2>&1 \
    || { echo "bench: run $name (repetition $rep) failed:" >&2; tail -20 "$dir/nbdkit.out" >&2; exit 1; }
  /usr/bin/python3 "$qos_dir/live_table.py" run "$name" "$rep" "$dir" "$(cut -d' ' -f1 /proc/loadavg)" \
    >> "$out/runs.jsonl"
  /usr/bin/python3 "$qos_dir/live_table.py" line "$out/runs.jsonl"
}

: > "$out/runs.jsonl"
start=$(date +%s)
for rep in $(seq 0 $((reps - 1))); do
  for p in $paths; do
    run "idle-$p-fg" "$p" fg "$rep" sched=fcfs sched-depth=32
    run "idle-$p-scrub" "$p" scrub "$rep" sched=fcfs sched-depth=32
  done
  for w in $ways; do
    case $w in
      a) run a nbd "fg scrub writer" "$rep" sched=fcfs sched-depth=32 ;;
      b) run b loop "fg scrub writer" "$rep" sched=fcfs sched-depth=32 ;;
      c) run c nbd "fg scrub writer" "$rep" sched-background=scrub ;;
      c30) run c30 nbd "fg scrub writer" "$rep" sched-background=scrub sched=qos:bg-share=30% ;;
      cl) run cl loop "fg scrub writer" "$rep" sched-background=scrub ;;
      *) echo "bench: unknown way '$w' (a, b, c, c30, cl)" >&2; exit 2 ;;
    esac
  done
done
echo "all runs: $(( $(date +%s) - start )) s"
echo
/usr/bin/python3 "$qos_dir/live_table.py" table "$out/runs.jsonl" "$out/live.png" "$fg_label" | tee "$out/table.md"
report_load

# The simulator's version of the same drive and jobs (no writer: the simulator's writers
# are closed, not paced), virtual time, one long run each.
if [ "${SIM:-1}" != 0 ]; then
  echo
  echo "the simulator: disksched sim, $model, drive queue 32 (satf, age limit 1 s as diskemu's), depth 32,"
  echo "               mixed:fg=1,bg=$bg_depth,writers=0,fg-think=${fg_think}ms, 3000 warm-up + 6000 measured requests, seed 1"
  sim_run() {
    "$disksched" sim --model $model --workload "mixed:$1,writers=0,fg-think=${fg_think}ms" --sched "$2" --depth 32 \
      --drive-queue 32 --drive-policy satf --drive-age-limit 1s --reps 1 --requests 6000 \
      --warmup 3000 --seed 1 --json > "$out/sim-$3.json"
  }
  sim_run fg=1,bg=0 fcfs idle-fg
  sim_run fg=0,bg=$bg_depth fcfs idle-scrub
  sim_run fg=1,bg=$bg_depth fcfs a
  sim_run fg=1,bg=$bg_depth qos:target=50ms c
  sim_run fg=1,bg=$bg_depth qos:target=50ms,bg-share=30% c30
  /usr/bin/python3 "$qos_dir/live_table.py" sim "$out" | tee "$out/sim-table.md"
fi
echo "results: $out"
