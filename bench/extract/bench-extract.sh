#!/usr/bin/env bash
# Geometry extraction through nbdkit at timescale 1, not a test:
#  1. `disksched extract --nbd` against `nbdkit diskemu` for each model, wall time and
#     every quantity against its tolerance (`disksched extract check`): rotation period
#     0.1 %, sectors per track and zones exact, skews 1 sector, head switch 0.1 ms, seek
#     curve RMS 0.3 ms. Target: the HP 97560 within tolerance in 5 minutes or less.
#  2. End to end: `disksched replay` (a closed loop of N clients, uniform 8 KiB reads)
#     through the disksched filter on `diskemu hp97560`, FCFS vs ASATF(30) with the
#     built-in geometry and with the extracted one. Target: the extracted profile gets
#     >= 95 % of the built-in model's ASATF(30) throughput gain over FCFS.
#  3. (MODELS=c2247a-cache, c2247a-imported) the HP C2247A with its cache on
#     (hp_c2247a-drive.json: two 256-sector read segments, one more than DiskSim's file
#     has beside its write segment, so more for the extractor to defeat; 128-sector read-ahead,
#     the bus's 0.1701 ms a sector, write-behind on): the hand-made geometry of
#     tests/validate/data, and the drive as `disksched model import` reads it from
#     tests/data/disksim-valid (an empty front, slipped tracks, spare tracks at each
#     zone's end). The extractor must find the cache and probe around it; checked
#     against the geometry without the cache, cylinders counted from LBA 0's (the
#     imported drive's cylinder 0 and its last spare cylinders hold no LBA, so no
#     timing shows them; `extract check` says how many it left out) and LBA -> cylinder,
#     head, sector at 1025 spread LBAs.
#   bench/extract/bench-extract.sh DISKEMU.so [FILTER.so] [OUT_DIR]
# The extractor runs with its default flags (it takes SCHED_FIFO itself where it may and
# adapts to the noise it measures). Settings (environment): MODELS (default
# "hp97560-full hp97560 zoned"), BUDGET (s; default: extract's own, 300), RT (diskemu's
# rt-priority, default 10; 0 = off, the plain `nbdkit diskemu model=...`),
# CLIENTS (32), REQUESTS (1500), REPS (3, medians reported), BUILD_ROOT.
set -euo pipefail
export PATH=/usr/bin:/usr/sbin:/bin:/sbin:$PATH
here=$(cd "$(dirname "$0")" && pwd)
diskemu=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
filter=${2:-}
[ -n "$filter" ] && filter=$(cd "$(dirname "$filter")" && pwd)/$(basename "$filter")
out=${3:-$(mktemp -d /tmp/disksched-extract-bench.XXXXXX)}
mkdir -p "$out"
build=${BUILD_ROOT:-${MESON_BUILD_ROOT:-$(cd "$(dirname "$diskemu")/../.." && pwd)}}
disksched="$build/tools/disksched"
[ -x "$disksched" ] || { echo "bench: build $disksched first (ninja -C $build)" >&2; exit 1; }
command -v nbdkit >/dev/null || { echo "bench: needs nbdkit" >&2; exit 1; }
models=${MODELS:-"hp97560-full hp97560 zoned"}
budget=${BUDGET:-}
rt=${RT:-10}
clients=${CLIENTS:-32}
requests=${REQUESTS:-1500}
reps=${REPS:-3}

cores=$(nproc)
load=$(cut -d' ' -f1 /proc/loadavg)
echo "machine: $cores cores, load average $load$(awk -v l="$load" -v c="$cores" \
  'BEGIN { if (l > c) printf " (BUSY: real-time probes suffer; rerun on an idle machine)" }')"
echo "$(uptime)"
rtargs=()
if [ "$rt" != 0 ]; then rtargs=(rt-priority="$rt"); fi
budgetopt=()
if [ -n "$budget" ]; then budgetopt=(--budget "$budget"); fi

declare -A emu truth rpmerr
emu[hp97560-full]="model=hp97560-full"; truth[hp97560-full]=hp97560-full; rpmerr[hp97560-full]=0
emu[hp97560]="model=hp97560";           truth[hp97560]=hp97560;           rpmerr[hp97560]=0
# The zoned disk with a device that is not perfectly repeatable and spins 0.2 % fast.
emu[zoned]="model=$here/zoned-5400.json jitter=exp:20us rpm-error=0.002"
truth[zoned]=$here/zoned-5400.json; rpmerr[zoned]=0.002

# The HP C2247A with its cache (models c2247a-cache, c2247a-imported).
src_root=$(cd "$here/../.." && pwd)
with_drive() {  # with_drive PROFILE OUT: PROFILE plus the drive blocks of hp_c2247a-drive.json
  /usr/bin/python3 - "$1" "$here/hp_c2247a-drive.json" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(json.load(open(sys.argv[2])))
p["name"] = p["name"] + "-cache"
json.dump(p, open(sys.argv[3], "w"), indent=1)
PY
}
case " $models " in *" c2247a-"*)
  with_drive "$src_root/tests/validate/data/hp_c2247a-hand.json" "$out/c2247a-cache-truth.json"
  "$disksched" model import "$src_root/tests/data/disksim-valid/hp_c2247a.parv" \
    -o "$out/c2247a-imported-platter.json" 2> "$out/c2247a-import.log"
  with_drive "$out/c2247a-imported-platter.json" "$out/c2247a-imported-truth.json" ;;
esac
emu[c2247a-cache]="model=$out/c2247a-cache-truth.json"
truth[c2247a-cache]=$src_root/tests/validate/data/hp_c2247a-hand.json; rpmerr[c2247a-cache]=0
emu[c2247a-imported]="model=$out/c2247a-imported-truth.json"
truth[c2247a-imported]=$out/c2247a-imported-platter.json; rpmerr[c2247a-imported]=0

status=0
echo
echo "== extraction through nbdkit diskemu ${rtargs[*]:-(no rt-priority)}, timescale 1, extract ${budgetopt[*]:-(default flags)} =="
for m in $models; do
  [ -n "${emu[$m]:-}" ] || { echo "bench: unknown model $m (hp97560-full, hp97560, zoned, c2247a-cache, c2247a-imported)" >&2; exit 1; }
  prof="$out/$m.json"
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  nbdkit -U - "$diskemu" ${emu[$m]} "${rtargs[@]}" \
    --run "'$disksched' extract --nbd \"\$uri\" ${budgetopt[*]} --name $m-extracted \
           --plot '$out/$m-seek.png' -o '$prof'" > "$out/$m.log" 2>&1 || {
    echo "$m: extraction failed:"; tail -5 "$out/$m.log"; status=1; continue; }
  t1=$(date +%s.%N)
  wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
  echo "-- $m: wall time $wall s (budget ${budget:-300} s; the HP 97560 target: <= 300 s)"
  grep -E "^(disksched extract: note:|extract: (no )?drive cache|rotation|heads|zone|head switch|overhead|seek|validation|took|note) " "$out/$m.log" | sed 's/^/   /'
  if "$disksched" extract check "$prof" --against "${truth[$m]}" --rpm-error "${rpmerr[$m]}" \
       > "$out/$m.check" 2>&1; then :; else status=1; fi
  sed 's/^/   /' "$out/$m.check"
  case $m in hp97560*) awk -v w="$wall" 'BEGIN { exit !(w > 300) }' && { echo "   wall time over 5 minutes"; status=1; } ;; esac
done

if [ -z "$filter" ] || [ ! -f "$filter" ]; then
  echo; echo "end to end: skipped (no filter .so given)"; exit $status
fi
if [ ! -f "$out/hp97560.json" ]; then
  echo; echo "end to end: skipped (no extracted hp97560 profile; include hp97560 in MODELS)"; exit $status
fi
echo
echo "== end to end on diskemu hp97560: closed loop of $clients clients, uniform 8 KiB reads, $requests requests, $reps reps =="
run() {  # run SCHED GEOMETRY REP -> throughput (req/s)
  nbdkit -U - -t 64 --filter="$filter" "$diskemu" model=hp97560 "${rtargs[@]}" \
    sched="$1" sched-geometry="$2" \
    --run "'$disksched' replay --nbd \"\$uri\" --workload closed:n=$clients,think=0ms,size=8k \
           --seed 1 --rep $3 --warmup 200 --requests $requests --quiet --json" |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["throughput_per_s"])'
}
declare -A thr
for rep in $(seq 0 $((reps - 1))); do
  for cfg in "fcfs hp97560" "asatf:w=30 hp97560" "asatf:w=30 $out/hp97560.json"; do
    set -- $cfg
    t=$(run "$1" "$2" "$rep")
    thr["$1|$2"]="${thr["$1|$2"]:-} $t"
    echo "   rep $rep  $1 geometry=$(basename "$2"): $t req/s"
  done
done
/usr/bin/python3 - "${thr["fcfs|hp97560"]}" "${thr["asatf:w=30|hp97560"]}" "${thr["asatf:w=30|$out/hp97560.json"]}" <<'PY' || status=1
import statistics, sys
fcfs, builtin, extracted = (statistics.median(float(x) for x in a.split()) for a in sys.argv[1:])
g_builtin = builtin / fcfs - 1
g_extracted = extracted / fcfs - 1
ratio = g_extracted / g_builtin if g_builtin > 0 else float("nan")
print(f"   median throughput: FCFS {fcfs:.1f}/s, ASATF(30) built-in {builtin:.1f}/s, "
      f"ASATF(30) extracted {extracted:.1f}/s")
print(f"   gain over FCFS: built-in {100 * g_builtin:+.1f} %, extracted {100 * g_extracted:+.1f} %; "
      f"extracted / built-in = {100 * ratio:.1f} % (target >= 95 %)  {'ok' if ratio >= 0.95 else 'FAIL'}")
sys.exit(0 if ratio >= 0.95 else 1)
PY
echo "results: $out"
exit $status
