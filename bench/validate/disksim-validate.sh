#!/usr/bin/env bash
# DiskSim 4.0's validation, our way: each of the four validation disks in
# tests/data/disksim-valid is imported (`disksched model import`), its trace of measured
# access times replayed closed at depth 1 (`disksched validate`), and the demerit printed
# beside DiskSim's own and the DiskSim manual's bar (2% of the mean access time).
#
#   bash bench/validate/disksim-validate.sh [DISKSCHED] [OUT_DIR]
#
# DISKSCHED defaults to build/tools/disksched, OUT_DIR (profiles, JSON, CDF plots) to
# out/disksim-validate. Without `model import` (an older build) the HP C2247A runs on the
# hand-made profile tests/validate/data/hp_c2247a-hand.json and the others are skipped.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
disksched=${1:-$here/build/tools/disksched}
out=${2:-out/disksim-validate}
data=$here/tests/data/disksim-valid
mkdir -p "$out"

# name | parameter file | trace | DiskSim's demerit (ms), as its validation files state it
disks=(
  "HP C2247A|hp_c2247a.parv|hp_c2247a.trace|0.090"
  "Seagate Cheetah 9LP|cheetah9LP.parv|cheetah9LP.trace|0.107"
  "IBM 18ES|ibm18es.parv|ibm18es.trace|0.135"
  "DEC RZ26|dec_rz26.parv|dec_rz26.trace|0.340"
)

can_import=0
"$disksched" model --help 2> /dev/null | grep -q "^  import " && can_import=1

printf '%-20s %8s %9s %9s %9s %9s %9s  %s\n' disk requests "meas ms" "sim ms" demerit DiskSim "2% bar" verdict
for d in "${disks[@]}"; do
  IFS='|' read -r name parv trace theirs <<< "$d"
  stem=${parv%.parv}
  profile=$out/$stem.json
  if [ "$can_import" = 1 ]; then
    "$disksched" model import "$data/$parv" -o "$profile" 2> "$out/$stem.import.log" || {
      printf '%-20s import failed: see %s\n' "$name" "$out/$stem.import.log"; continue; }
  elif [ "$stem" = hp_c2247a ]; then
    profile=$here/tests/validate/data/hp_c2247a-hand.json
    name="$name (hand)"
  else
    printf '%-20s skipped: this disksched has no `model import`\n' "$name"
    continue
  fi
  "$disksched" validate --profile "$profile" --trace "$data/$trace" --json \
    --plot "$out/$stem-cdf.png" > "$out/$stem-validate.json"
  /usr/bin/python3 - "$out/$stem-validate.json" "$name" "$theirs" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
name, theirs = sys.argv[2], float(sys.argv[3])
ours, mean = j["demerit_ms"], j["mean_measured_ms"]
bar = mean * j["bar_percent_of_mean"] / 100
verdict = ["better than DiskSim" if ours < theirs else
           "as DiskSim" if ours == theirs else "worse than DiskSim",
           "within the bar" if ours <= bar else "beyond the bar"]
print(f"{name:<20} {j['requests']:>8} {mean:>9.3f} {j['mean_simulated_ms']:>9.3f} "
      f"{ours:>9.3f} {theirs:>9.3f} {bar:>9.3f}  {', '.join(verdict)}")
for c in j["classes"]:
    print(f"  {c['class']:<18} {c['requests']:>8} {c['mean_measured_ms']:>9.3f} "
          f"{c['mean_simulated_ms']:>9.3f} {c['demerit_ms']:>9.3f}")
PY
done
echo "per disk: $out/NAME-validate.json (disksched validate --json), NAME-cdf.png, NAME-cdf.csv"
