#!/usr/bin/env bash
# Does a change to the extractor leave its behaviour unchanged? Runs the same 40
# virtual-time extractions (fixed seeds, busy/late/vm/none noise) with two builds of
# disksched and compares what they print, their exit status, their profiles (all but
# source.date) and `extract check` of each profile against its truth. Not a test: a
# check for a refactoring, about two minutes of CPU a build on this machine.
#   bench/extract/same-profiles.sh OLD_DISKSCHED NEW_DISKSCHED [OUT_DIR]
# Ends with "all N runs identical" (exit 0) or the runs that differ (exit 1).
set -uo pipefail
[ $# -ge 2 ] || { sed -n '2,8p' "$0" >&2; exit 2; }
old=$1 new=$2
out=${3:-$(mktemp -d /tmp/disksched-same-profiles.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
for b in "$old" "$new"; do [ -x "$b" ] || { echo "same-profiles: $b is not an executable" >&2; exit 2; }; done
command -v jq > /dev/null || { echo "same-profiles: needs jq" >&2; exit 2; }
mkdir -p "$out"

# The imported HP C2247A and the hand-made one, each with the drive's cache (as test-cli).
with_drive() {  # with_drive PROFILE OUT
  python3 - "$1" "$here/hp_c2247a-drive.json" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p.update(json.load(open(sys.argv[2])))
p["name"] = p["name"] + "-cache"
json.dump(p, open(sys.argv[3], "w"), indent=1)
PY
}
"$new" model import "$src/tests/data/disksim-valid/hp_c2247a.parv" -o "$out/plat.json" > /dev/null 2>&1 \
  || { echo "same-profiles: model import failed" >&2; exit 2; }
with_drive "$out/plat.json" "$out/imp.json"
with_drive "$src/tests/validate/data/hp_c2247a-hand.json" "$out/hand.json"

# name model noise seed budget truth [extra flags]
runs() {
  local imp=$out/imp.json hand=$out/hand.json plat=$out/plat.json
  local zoned=$here/zoned-5400.json handt=$src/tests/validate/data/hp_c2247a-hand.json
  for s in 1 2 3; do echo "hp97560-busy-$s hp97560 busy $s 300 hp97560"; done
  echo "hp97560-late-1 hp97560 late 1 300 hp97560"
  echo "hp97560full-none-1 hp97560-full none 1 300 hp97560-full"
  echo "hp97560full-vm-2 hp97560-full vm 2 90 hp97560-full"
  echo "hp97560-writes-1 hp97560 vm 1 300 hp97560 --allow-writes 0:104857600"
  echo "zoned-vm-1 $zoned vm 1 300 $zoned"
  for r in busy:1 busy:2 busy:3 busy:24 busy:105 late:27 late:38 late:39 late:40 busy:4 busy:5 busy:6 busy:8 \
           busy:9 busy:10 busy:11 busy:12 late:1 late:2 late:3 late:4 late:5 late:6 none:1 vm:1; do
    echo "imp-${r%:*}-${r#*:} $imp ${r%:*} ${r#*:} 900 $plat"
  done
  for r in busy:7:300 busy:13:300 busy:14:300 late:15:300 late:16:150; do
    IFS=: read -r n s b <<< "$r"; echo "imp-$n-$s-$b $imp $n $s $b $plat"
  done
  echo "hand-none-1 $hand none 1 240 $handt"
  echo "hand-late-5 $hand late 5 240 $handt"
}

extract_all() {  # extract_all BIN DIR: every run, two at a time
  local bin=$1 dir=$2
  mkdir -p "$dir"
  while read -r name model noise seed budget truth extra; do
    ( nice "$bin" extract --virtual "$model" --noise "$noise" --budget "$budget" --seed "$seed" --quiet $extra \
        -o "$dir/$name.json" 2>&1 | grep -v '^wrote ' > "$dir/$name.out"
      echo "${PIPESTATUS[0]}" > "$dir/$name.rc"
      [ -e "$dir/$name.json" ] && "$bin" extract check "$dir/$name.json" --against "$truth" 2>&1 \
        | grep -v 'is outside the tolerances' > "$dir/$name.check"
      true ) &
    while [ "$(jobs -rp | wc -l)" -ge 2 ]; do sleep 0.2; done
  done < <(runs)
  wait
}
extract_all "$old" "$out/old"
extract_all "$new" "$out/new"

n=0 bad=0
while read -r name _; do
  n=$((n + 1)) what=()
  cmp -s "$out/old/$name.rc" "$out/new/$name.rc" || what+=(exit)
  cmp -s "$out/old/$name.out" "$out/new/$name.out" || what+=(output)
  if [ -e "$out/old/$name.json" ] || [ -e "$out/new/$name.json" ]; then
    cmp -s <(jq -S 'del(.source.date)' "$out/old/$name.json" 2>&1) \
           <(jq -S 'del(.source.date)' "$out/new/$name.json" 2>&1) || what+=(profile)
    cmp -s "$out/old/$name.check" "$out/new/$name.check" || what+=(check)
  fi
  if [ ${#what[@]} -gt 0 ]; then bad=$((bad + 1)); echo "DIFFERS $name: ${what[*]}"; fi
done < <(runs)
if [ "$bad" -eq 0 ]; then echo "all $n runs identical ($out)"; else echo "$bad of $n runs differ ($out)"; exit 1; fi
