# Shared by the filter benchmarks: paths, the machine's load, fio's JSON.
set -euo pipefail
export PATH=/usr/bin:/usr/sbin:/bin:/sbin:$PATH
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# The build directory: $BUILD_ROOT, else the one holding the filter given as $1.
find_build() {
  local filter=$1
  if [ -n "${BUILD_ROOT:-}" ]; then echo "$BUILD_ROOT"; return; fi
  (cd "$(dirname "$filter")/../.." && pwd)
}

require_tools() {
  local t
  for t in "$@"; do command -v "$t" >/dev/null || { echo "bench: needs $t" >&2; exit 1; }; done
}

# Timing benchmarks mean little on a busy machine: say how busy it is.
report_load() {
  local cores load
  cores=$(nproc)
  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "machine: $cores cores, load average $load$(awk -v l="$load" -v c="$cores" \
    'BEGIN { if (l > c) printf " (BUSY: timings are pessimistic; rerun on an idle machine)" }')"
}

# fio_field JSON EXPR: a value from fio's --output-format=json.
fio_field() {
  /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

# abs_path PATH: PATH from the root (its folder must exist).
abs_path() {
  echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
}

# bench_paths FILTER.so DISKEMU.so: absolute $filter and $diskemu, the $build they came
# from and its $disksched; stops unless disksched is built and nbdkit is installed.
bench_paths() {
  filter=$(abs_path "$1")
  diskemu=$(abs_path "$2")
  build=$(find_build "$filter")
  disksched="$build/tools/disksched"
  [ -x "$disksched" ] || { echo "bench: build $disksched first (ninja -C $build)" >&2; exit 1; }
  require_tools nbdkit
}

# make_workdir: a scratch $work, removed on exit.
make_workdir() {
  work=$(mktemp -d /tmp/disksched-bench.XXXXXX)
  trap 'rm -rf "$work"' EXIT
}
