#!/usr/bin/env bash
# DiskSim 4.0 itself beside disksched on our own made-up drives, one for each import case
# (tests/data/disksim-cases: a partial sparing range, zones past "Number of cylinders",
# a self-remap, scheme 2 slips, a g4 layout, "Read-ahead over requested = -1", DEC
# prefetch with segments shorter and longer than a track), request by request.
#
#   DISKSIM_SRC=TREE bash bench/validate/disksim-cases.sh [DISKSCHED] [OUT_DIR]
#
# DISKSIM_SRC: a built DiskSim 4.0 tree (bench/validate/build-disksim.sh); without it the
# script says so and stops (exit 0). DISKSCHED defaults to build/tools/disksched, OUT_DIR
# to out/disksim-cases (one folder a case: the files both ran, DiskSim's output, ours).
#
# Each case: run.parv and run.diskspecs (DiskSim's validate setup, every key it requires)
# around the case's .model, with DiskSim's command-line overrides where the case is a
# disk key (ours: the same as --set). A made-up trace of 2000 requests
# (disksim_cases.py) is run through DiskSim; its time for each request, read back from
# its log of arrivals, becomes the "measured" column of the trace that `disksched
# validate` replays on the same files. So the demerit is ours against DiskSim's, and
# "differ" counts the requests more than 0.01 ms apart. DiskSim's rms on that trace (its
# own times against itself, through its histograms) shows the times were read back right.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
disksched=$(realpath "${1:-$here/build/tools/disksched}")
out=${2:-out/disksim-cases}
cases_dir=$here/tests/data/disksim-cases
py=$here/bench/validate/disksim_cases.py
. "$here/bench/validate/disksim-tree.sh"
if [ -z "${DISKSIM_SRC:-}" ] || ! disksim_found "$DISKSIM_SRC"; then
  echo "disksim-cases.sh: skipped: set DISKSIM_SRC to a built DiskSim 4.0 tree" \
    "(bench/validate/build-disksim.sh)${DISKSIM_SRC:+; $DISKSIM_SRC has no src/disksim and src/rms}"
  exit 0
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/notes.txt"

# name | model | trace's first and last block + 1 | disk key | value | disk key | value
# DiskSim 4.0 aborts on some of these; the trace keeps clear of where it does (below).
cases=(
  "plain|small.model|0|1440"
  "partial-range|partial-range.model|0|194"
  "cylinders-beyond|cylinders-beyond.model|0|1300"
  "self-remap|self-remap.model|40|1360"
  "slips-skew|slips-skew.model|0|380"
  "g4|g4.model|0|175"
  "readahead-minus1|small.model|0|1440|Read-ahead over requested|-1"
  "dec-prefetch-seg8|small.model|0|1376|Buffer continuous read|4|Segment size (in blks)|8"
  "dec-prefetch-seg64|small.model|0|1376|Buffer continuous read|4|Segment size (in blks)|64"
)

# run_disksim TRACE OUTV: DiskSim on TRACE with the case's overrides; its log of
# arrivals left in ios.out. Fails as DiskSim does.
run_disksim() {
  rm -f ios.out
  "$disksim" run.parv "$2" validate "$1" 0 "${ds_args[@]}" > "$2.log" 2>&1
}

names=()
for c in "${cases[@]}"; do
  IFS='|' read -r name model lo hi k1 v1 k2 v2 <<< "$c"
  d=$out/$name
  rm -rf "$d"
  mkdir -p "$d"
  cd "$d"
  cp "$cases_dir/run.parv" "$data/statdefs" .
  # DiskSim 4.0 refuses sparing scheme 0 ("Unknown sparing scheme 0"); scheme 9 without
  # spares is the same layout. Its "linear" seek gives every seek of 2 cylinders or more
  # the full-stroke time (integer arithmetic), which the import does not copy (it notes
  # it): the cases seek by a curve of our own (run.seek), as the four real disks do by
  # theirs. Both tools read the copy.
  cp "$cases_dir/run.seek" .
  sed -e 's/Sparing scheme used = 0,/Sparing scheme used = 9,/' \
    -e 's/^\( *\)Seek type = linear,/\1Seek type = extracted,\n\1Full seek curve = run.seek,/' \
    "$cases_dir/$model" > "$model"
  sed "s|^   Model = source small.model,|   Model = source $model,|" "$cases_dir/run.diskspecs" \
    > run.diskspecs
  ds_args=() ours_args=()
  for kv in "$k1|$v1" "$k2|$v2"; do
    [ "$kv" = "|" ] && continue
    ds_args+=(disk0 "${kv%|*}" "${kv#*|}")
    ours_args+=(--set "disk0:${kv%|*}=${kv#*|}")
  done
  /usr/bin/python3 "$py" trace "$lo" "$hi" 1 2000 > all.trace
  cp all.trace run.trace
  if ! run_disksim run.trace run.outv; then
    # The longest prefix DiskSim completes (bisected), and where it stops.
    good=1 bad=$(wc -l < all.trace)
    while [ $((bad - good)) -gt 1 ]; do
      mid=$(((good + bad) / 2))
      head -n "$mid" all.trace > run.trace
      if run_disksim run.trace try.outv; then good=$mid; else bad=$mid; fi
    done
    head -n "$good" all.trace > run.trace
    run_disksim all.trace fail.outv || true
    echo "$name: DiskSim 4.0 stops at request $bad ($(sed -n "${bad}p" all.trace)):" \
      "$(grep -m1 -o 'assertion failed.*' fail.outv.log | cut -c1-150)" >> "$out/notes.txt"
    run_disksim run.trace run.outv
  fi
  /usr/bin/python3 "$py" times run.trace ios.out > measured.trace
  run_disksim measured.trace check.outv
  "$rms" check.outv check.outv -1 -1 1 > "$out/$name.rms"
  "$disksched" validate --profile run.parv "${ours_args[@]}" --trace measured.trace --json \
    --worst 1000000 < /dev/null > "$out/$name-validate.json" 2> ours.log ||
    { echo "$name: disksched validate failed: $(cat ours.log)" >&2; exit 1; }
  names+=("$name")
done
cd "$out"
/usr/bin/python3 "$py" table "$out" "${names[@]}"
[ -s notes.txt ] && { echo; cat notes.txt; rm notes.txt; } || true
