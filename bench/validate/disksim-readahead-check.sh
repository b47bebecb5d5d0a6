#!/usr/bin/env bash
# Where DiskSim 4.0's demerit on the IBM 18ES (0.135 ms) comes from: DiskSim itself, run
# on the IBM's files as they are and on the same files with the read-ahead limit its
# documentation gives them (bench/validate/README.md, "The IBM 18ES: DiskSim's 0.135").
#
#   bash bench/validate/disksim-readahead-check.sh [DISKSIM_SRC] [OUT_DIR]
#
# DISKSIM_SRC (empty or not given: $DISKSIM_SRC): a built DiskSim 4.0 tree (src/disksim
# and src/rms; not part of this project: bench/validate/build-disksim.sh builds one).
# OUT_DIR (default out/disksim-readahead) gets copies of the IBM's files, DiskSim's
# outputs and its rms figures.
#
# The IBM's .diskspecs says "Read-ahead over requested = 0" (DiskSim's manual: read-ahead
# may not take the place of the data the latest read returned) and "Maximum read-ahead
# (blks) = 511" with 511-block segments. Both together stop read-ahead at the request's
# start + 511. DiskSim 4.0's code counts the maximum from the request's end whatever the
# first key says, so its read-ahead overwrites the request's own blocks. With "Maximum
# read-ahead (blks) = 0", DiskSim's code takes the branch the first key asks for (fill the
# segment from the request's start, keeping the request), which is the same limit here.
set -euo pipefail
. "$(dirname "$0")/disksim-tree.sh"
disksim_tree "disksim-readahead-check.sh [DISKSIM_SRC] [OUT_DIR]" out/disksim-readahead "$@"
cp "$data"/ibm18es.{parv,diskspecs,model,seek,trace} "$data/statdefs" "$out/"
cd "$out"
grep -q '^ *Maximum read-ahead (blks) = 511,' ibm18es.diskspecs
sed 's/^\( *Maximum read-ahead (blks) = \)511,/\10,/' ibm18es.diskspecs > ibm18es-keep.diskspecs
sed 's/^source ibm18es.diskspecs/source ibm18es-keep.diskspecs/' ibm18es.parv > ibm18es-keep.parv
grep -q '^source ibm18es-keep.diskspecs' ibm18es-keep.parv
for v in ibm18es ibm18es-keep; do
  "$disksim" "$v.parv" "$v.outv" validate ibm18es.trace 0
  r=$("$rms" "$v.outv" "$v.outv" -1 -1 1)
  hits=$(grep -m1 'disk Buffer read hit ratio' "$v.outv" | awk '{print $(NF-2)}')
  printf '%-14s %s, read hits %s\n' "$v" "$r" "$hits"
done
