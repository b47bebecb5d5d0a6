# Sourced by the scripts that run DiskSim 4.0 itself (a tree you built; not part of this
# project; bench/validate/README.md, "Building DiskSim 4.0"). disksim_tree USAGE
# DEFAULT_OUT "$@": sets src (the tree: $1, or $DISKSIM_SRC when $1 is empty), out ($2
# or DEFAULT_OUT, made), here (this checkout), data (the four validation disks), and
# disksim and rms (the tree's programs: src/disksim, or src/disksim64 as 64-bit ports
# name it), and stops with a clear message when the tree has no built disksim or rms.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
data=$here/tests/data/disksim-valid
# disksim_found DIR: sets disksim and rms from the tree DIR; fails if either is missing.
disksim_found() {
  local d=$1
  disksim=$d/src/disksim
  [ -x "$disksim" ] || disksim=$d/src/disksim64
  rms=$d/src/rms
  [ -x "$disksim" ] && [ -x "$rms" ]
}
disksim_tree() {
  local usage=$1 default_out=$2
  shift 2
  src=${1:-${DISKSIM_SRC:-}}
  [ -n "$src" ] || {
    echo "usage: $usage (DISKSIM_SRC: a built DiskSim 4.0 tree, or set \$DISKSIM_SRC)" >&2
    exit 1
  }
  out=${2:-$default_out}
  disksim_found "$src" || {
    echo "no $src/src/disksim (or disksim64) and src/rms: build DiskSim 4.0 in $src first" \
      "(bench/validate/build-disksim.sh)" >&2
    exit 1
  }
  mkdir -p "$out"
}
