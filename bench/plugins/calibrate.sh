#!/usr/bin/env bash
# Calibration bench: fio through NBD against diskemu playing a drive profile,
# each line beside the datasheet or published figure it should meet.
#
#   bench/plugins/calibrate.sh PROFILE [DISKEMU.so]
#   RUNTIME=10 WRITES=32 AGE_LIMIT=2s TIMESCALE=1 DISKSCHED=build/tools/disksched \
#     bench/plugins/calibrate.sh sata7200-8tb
#
# PROFILE: a built-in (sata7200-8tb, laptop5400-320gb, sas15k-600gb, ...) or a .json.
# Lines:
#   QD1 random 4 KiB reads       vs  average seek + half a revolution + transfer + overhead
#   QD32 random 4 KiB reads      vs  QD1 x ~2.4 (enterprise) / 1.5-1.7 (desktop); needs
#                                    the drive's own queue (diskemu drive-queue=32)
#   1 MiB sequential reads QD1   vs  the sustained rate at the outer edge
#   1 MiB sequential writes QD1  vs  the same
#   random 4 KiB writes + fsync  vs  one random media write per fsync
#   flush after N scattered cached writes  vs  roughly a fixed part + ~10 ms a write
#                                    (desktop drive); needs a write cache (profile "cache")
#   random reads beside a writer that flushes  vs  the reads alone
# A line whose feature the profile or the plugin lacks prints "not measured: needs ...".
# The emulator runs in real time (TIMESCALE=1); times are reported in the drive's own
# time (wall time / TIMESCALE). Needs nbdkit, fio (nbd engine) and python3-libnbd.
set -euo pipefail
profile=${1:?usage: calibrate.sh PROFILE [DISKEMU.so]}
plugin=${2:-build/emulator/diskemu/nbdkit-diskemu-plugin.so}
here=$(cd "$(dirname "$0")" && pwd)
export RUNTIME=${RUNTIME:-10} WRITES=${WRITES:-32} TIMESCALE=${TIMESCALE:-1}
disksched=${DISKSCHED:-build/tools/disksched}
command -v fio >/dev/null || { echo "calibrate: fio is not installed" >&2; exit 1; }
command -v nbdkit >/dev/null || { echo "calibrate: nbdkit is not installed" >&2; exit 1; }
[ -f "$plugin" ] || { echo "calibrate: no diskemu plugin at $plugin (give its path)" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$disksched" model show "$profile" --json > "$out/model.json"

# Real-time priority keeps the emulator's lateness in microseconds on a busy machine.
rt=()
if [ "$(id -u)" -eq 0 ]; then rt=(rt-priority=10); fi

# serve NAME DIEMU-KEYS... -- runs the helper's measurement NAME against one diskemu.
serve() {
  local name=$1; shift
  echo "calibrate: $name ..." >&2
  nbdkit -U - --threads 64 "$plugin" model="$profile" timescale="$TIMESCALE" "${rt[@]}" \
    stats="$out/stats-$name.json" "$@" \
    --run "/usr/bin/python3 '$here/calibrate.py' measure '$name' \"\$uri\" '$out'"
}

# The drive's own queue (diskemu drive-queue=) may not be in this build.
if nbdkit "$plugin" model="$profile" drive-queue=32 --run true 2>/dev/null; then queue_ok=1; else queue_ok=0; fi

serve qd1
# The drive's age limit: a limit near the time 32 commands take anyway (a 5400 rpm drive:
# 32 x 18 ms) caps what reordering gains (docs/drives-of-today.md; diskemu's default is
# 1s now); real firmware's limit is not published: AGE_LIMIT, default 2s.
if [ "$queue_ok" = 1 ]; then
  serve qd32 drive-queue=32 drive-policy=satf drive-age-limit="${AGE_LIMIT:-2s}"
fi
serve seqread
serve seqwrite
serve fsync
serve flush
serve beside

/usr/bin/python3 "$here/calibrate.py" report "$profile" "$out" "$queue_ok"
