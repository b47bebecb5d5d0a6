#!/usr/bin/env bash
# DiskSim 4.0's own demerit on each of the four validation disks, to more digits than its
# files state: DiskSim run on the files in tests/data/disksim-valid and its rms tool on
# the output, as DiskSim's validation does. disksim-validate.sh sets ours beside these.
#
#   bash bench/validate/disksim-rms.sh [DISKSIM_SRC] [OUT_DIR]
#
# DISKSIM_SRC (empty or not given: $DISKSIM_SRC): a built DiskSim 4.0 tree (src/disksim
# and src/rms; not part of this project: bench/validate/build-disksim.sh builds one).
# OUT_DIR (default out/disksim-rms) gets DiskSim's outputs.
set -euo pipefail
. "$(dirname "$0")/disksim-tree.sh"
disksim_tree "disksim-rms.sh [DISKSIM_SRC] [OUT_DIR]" out/disksim-rms "$@"
cp "$data"/* "$out/"
cd "$out"
for v in hp_c2247a cheetah9LP ibm18es dec_rz26; do
  "$disksim" "$v.parv" "$v.outv" validate "$v.trace" 0 > "$v.log" 2>&1 ||
    { echo "$v: DiskSim failed, see $out/$v.log" >&2; exit 1; }
  printf '%-12s %s\n' "$v" "$("$rms" "$v.outv" "$v.outv" -1 -1 1)"
done
