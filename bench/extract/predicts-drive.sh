#!/usr/bin/env bash
# Does a profile measured from the host predict the drive? (issue 29, point 5; not a test)
# For each drive, `disksched predicts` plays it in virtual time as diskemu plays it (its
# buffer, write cache and, for a drive of today, a 32-command queue), measures its cache,
# write cache and queue from the host (tools/extract/drive_steps.hpp), takes the geometry
# (the truth's platter by default, a given profile, or extracted with EXTRACT=1), and
# prints beside the truth: the demerit of random 4 KiB read times at QD1, QD32/QD1
# throughput, sequential MB/s in the outer, middle and inner zone, the FLUSH after 8 and
# 64 scattered writes. See docs/extraction.md, "Drives of today: cache, write cache, queue".
#   bench/extract/predicts-drive.sh [BUILD_DIR]
# Settings (environment): DRIVES (default: sata7200-8tb laptop5400-320gb sas15k-600gb
# c2247a), EXTRACT=1 (extract the geometry too, instead of the truth's platter),
# PROFILE_DIR (a directory of NAME.json geometries to predict with), REQUESTS (2000),
# SEED (1).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-${MESON_BUILD_ROOT:-$here/../../build}}
disksched="$build/tools/disksched"
[ -x "$disksched" ] || { echo "predicts-drive: build $disksched first (ninja -C $build)" >&2; exit 1; }
drives=${DRIVES:-"sata7200-8tb laptop5400-320gb sas15k-600gb c2247a"}
requests=${REQUESTS:-2000}
seed=${SEED:-1}

# The imported HP C2247A (tests/data/disksim-valid) with the drive blocks of
# hp_c2247a-drive.json (its two read segments, read-ahead, bus, write-behind).
src_root=$(cd "$here/../.." && pwd)
work=$(mktemp -d /tmp/predicts-drive.XXXXXX)
trap 'rm -rf "$work"' EXIT
c2247a_truth() {
  "$disksched" model import "$src_root/tests/data/disksim-valid/hp_c2247a.parv" \
    -o "$work/c2247a-platter.json" > "$work/c2247a-import.log" 2>&1
  /usr/bin/python3 - "$work/c2247a-platter.json" "$here/hp_c2247a-drive.json" "$work/c2247a.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(json.load(open(sys.argv[2])))
p["name"] = p["name"] + "-cache"
json.dump(p, open(sys.argv[3], "w"), indent=1)
PY
  echo "$work/c2247a.json"
}

set -- $drives
n=$#
i=0
status=0
start=$SECONDS
for d in $drives; do
  i=$((i + 1))
  truth=$d
  [ "$d" = c2247a ] && truth=$(c2247a_truth)
  args=(--requests "$requests" --seed "$seed" --label "$d")
  if [ "${EXTRACT:-0}" = 1 ]; then
    args+=(--extract)
  elif [ -n "${PROFILE_DIR:-}" ] && [ -f "$PROFILE_DIR/$d.json" ]; then
    args+=(--profile "$PROFILE_DIR/$d.json")
  fi
  echo "predicts-drive: [$i/$n] $d ($((SECONDS - start)) s so far)" >&2
  if ! "$disksched" predicts "$truth" "${args[@]}"; then
    echo "predicts-drive: $d: FAILED (see above)" >&2
    status=1
  fi
  echo
done
echo "predicts-drive: done in $((SECONDS - start)) s" >&2
exit $status
