#!/usr/bin/env bash
# The drives of today (the platter alone, -nocache, then with the cache on) and the
# imported HP C2247A with its cache, extracted in virtual time with default flags behind
# a busy and a late host, seed after seed: the exit status, the drive's (virtual)
# seconds, and `extract check` against the model itself (its platter is the -nocache
# model's; --tolerances today for the drives of today, with their cache; hp97560 for the
# C2247A, against its platter). Not a test: a count for docs/extraction.md.
#   bench/extract/today-seeds.sh DISKSCHED [SEEDS (default 5)] [OUT_DIR]
# Environment: NOISES (default "busy late"): the host noises to run; DRIVES (default all):
# the rows to run by name (sata7200-nocache sata7200 laptop5400-nocache laptop5400
# sas15k-nocache sas15k c2247a); FLAGS: more `extract` flags (e.g. --heads 12).
# Prints one line a run and, per drive and noise, "k of n seeds within every tolerance".
set -uo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
bin=$1 seeds=${2:-5}
out=${3:-$(mktemp -d /tmp/disksched-today-seeds.XXXXXX)}
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
mkdir -p "$out"
"$bin" model import "$src/tests/data/disksim-valid/hp_c2247a.parv" -o "$out/c2247a-platter.json" > /dev/null 2>&1 \
  || { echo "today-seeds: model import failed" >&2; exit 2; }
python3 - "$out/c2247a-platter.json" "$here/hp_c2247a-drive.json" "$out/c2247a.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p.update(json.load(open(sys.argv[2]))); p["name"] += "-cache"
json.dump(p, open(sys.argv[3], "w"), indent=1)
PY
# name model truth tolerances
drives="sata7200-nocache sata7200-8tb-nocache sata7200-8tb-nocache today
laptop5400-nocache laptop5400-320gb-nocache laptop5400-320gb-nocache today
sas15k-nocache sas15k-600gb-nocache sas15k-600gb-nocache today
sata7200 sata7200-8tb sata7200-8tb today
laptop5400 laptop5400-320gb laptop5400-320gb today
sas15k sas15k-600gb sas15k-600gb today
c2247a $out/c2247a.json $out/c2247a-platter.json hp97560"
while read -r name model truth tol; do
  if [ -n "${DRIVES:-}" ] && ! [[ " $DRIVES " == *" $name "* ]]; then continue; fi
  for noise in ${NOISES:-busy late}; do
    pass=0
    for seed in $(seq 1 "$seeds"); do
      run=$out/$name-$noise-$seed
      start=$(date +%s.%N)
      "$bin" extract --virtual "$model" --noise "$noise" --seed "$seed" ${FLAGS:-} --quiet -o "$run.json" > "$run.out" 2>&1
      rc=$?
      wall=$(echo "$(date +%s.%N) - $start" | bc)
      drive=$(sed -n 's/^took *\([0-9.]*\) s.*/\1/p' "$run.out")
      verdict="no profile"
      if [ -f "$run.json" ]; then
        "$bin" extract check "$run.json" --against "$truth" --tolerances "$tol" > "$run.check" 2>&1
        # (A virtual target cannot FLUSH, so the write cache step does not run there: its
        # two lines are left out of the verdict, and said so.)
        failed=$(grep 'FAIL$' "$run.check" | grep -v '^write cache' | cut -d: -f1 | paste -sd, -)
        if [ -z "$failed" ] && grep -q '^rotation period' "$run.check"; then
          verdict=PASS; pass=$((pass + 1))
          grep -q '^write cache.*FAIL$' "$run.check" && verdict="PASS (write cache not measured)"
        else
          verdict="FAIL: $failed"
        fi
      fi
      why=$(grep -m1 -E '^disksched( extract: FAILED)?:' "$run.out" | cut -c1-110)
      printf '%-18s %-4s seed %-2s exit %d  drive %6s s  wall %5.1f s  %s %s\n' \
        "$name" "$noise" "$seed" "$rc" "${drive:--}" "$wall" "$verdict" "$why"
    done
    echo "$name $noise: $pass of $seeds seeds within every tolerance"
  done
done <<< "$drives"
