# Sourced by the scripts that run DiskSim 4.0 itself (a tree you built; not part of this
# project). disksim_tree USAGE DEFAULT_OUT "$@": sets src (the tree, $1), out ($2 or
# DEFAULT_OUT, made), here (this checkout) and data (the four validation disks), and
# stops with a clear message when the tree has no built disksim or rms.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
data=$here/tests/data/disksim-valid
disksim_tree() {
  local usage=$1 default_out=$2
  shift 2
  src=${1:?usage: $usage}
  out=${2:-$default_out}
  local f
  for f in "$src/src/disksim" "$src/src/rms"; do
    [ -x "$f" ] || { echo "no $f: build DiskSim 4.0 in $src first" >&2; exit 1; }
  done
  mkdir -p "$out"
}
