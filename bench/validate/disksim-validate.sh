#!/usr/bin/env bash
# DiskSim 4.0's validation, our way: each of the four validation disks in
# tests/data/disksim-valid is imported (`disksched model import`), its trace of measured
# access times replayed closed at depth 1 (`disksched validate`), and the demerit printed
# beside DiskSim's own and the DiskSim manual's bar (2% of the mean access time).
# DiskSim's figures come from its rms tool, which reads them off its access-time
# histograms (1%-wide buckets); ours is printed both exact and computed that way, and the
# verdict sets the like beside the like (bench/validate/README.md).
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

# name | parameter file | trace | DiskSim's demerit (ms) as its validation files state it |
# the same from DiskSim 4.0 run here on the same files (bench/validate/disksim-rms.sh)
disks=(
  "HP C2247A|hp_c2247a.parv|hp_c2247a.trace|0.090|0.089931"
  "Seagate Cheetah 9LP|cheetah9LP.parv|cheetah9LP.trace|0.107|0.106906"
  "IBM 18ES|ibm18es.parv|ibm18es.trace|0.135|0.135884"
  "DEC RZ26|dec_rz26.parv|dec_rz26.trace|0.340|0.340367"
)

can_import=0
"$disksched" model --help 2> /dev/null | grep -q "^  import " && can_import=1

printf '%-20s %8s %9s %9s %9s %9s %9s %9s  %s\n' disk requests "meas ms" "sim ms" exact \
  "as rms" DiskSim "2% bar" "verdict (as rms against DiskSim's rms)"
for d in "${disks[@]}"; do
  IFS='|' read -r name parv trace stated theirs <<< "$d"
  stem=${parv%.parv}
  profile=$out/$stem.json
  if [ "$can_import" = 1 ]; then
    "$disksched" model import "$data/$parv" -o "$profile" > "$out/$stem.import.log" 2>&1 || {
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
  /usr/bin/python3 - "$out/$stem-validate.json" "$name" "$stated" "$theirs" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
name, stated, theirs = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
exact, ours, mean = j["demerit_ms"], j["demerit_histogram_ms"], j["mean_measured_ms"]
bar = mean * j["bar_percent_of_mean"] / 100
# Both to DiskSim's 6 printed decimals, so "as DiskSim" means what it says.
a, b = round(ours, 6), round(theirs, 6)
verdict = [f"better than DiskSim by {b - a:.4f}" if a < b else
           "as DiskSim" if a == b else f"worse than DiskSim by {a - b:.4f}",
           "within the bar" if ours <= bar else "beyond the bar"]
print(f"{name:<20} {j['requests']:>8} {mean:>9.3f} {j['mean_simulated_ms']:>9.3f} "
      f"{exact:>9.4f} {ours:>9.4f} {theirs:>9.4f} {bar:>9.3f}  {', '.join(verdict)}")
print(f"  {'(DiskSim as stated)':<18} {'':>8} {'':>9} {'':>9} {'':>9} {'':>9} {stated:>9.3f}")
for c in j["classes"]:  # and how many the simulated drive's buffer served
    print(f"  {c['class']:<18} {c['requests']:>8} {c['mean_measured_ms']:>9.3f} "
          f"{c['mean_simulated_ms']:>9.3f} {c['demerit_ms']:>9.4f} "
          f"{c['demerit_histogram_ms']:>9.4f} {'':>9} {'':>9}  "
          f"{c['simulated_hits']} simulated hits")
PY
done
echo "per disk: $out/NAME-validate.json (disksched validate --json), NAME-cdf.png, NAME-cdf.csv"
