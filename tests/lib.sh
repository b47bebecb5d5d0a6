# Shared helpers for the integration tests. Source it: . "$TESTS_SRCDIR/lib.sh"
# Exit code 77 tells meson the test was skipped.
set -euo pipefail

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# requires CMD...: skip unless every command exists.
requires() {
  local c
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"; done
}

# nbdsh lives in Debian's python3-libnbd, importable only by /usr/bin/python3.
nbdsh() { PATH=/usr/bin:$PATH command nbdsh "$@"; }

# A private scratch directory, removed on exit.
make_tmpdir() {
  TMPDIR_TEST=$(mktemp -d "${TMPDIR:-/tmp}/disksched-test.XXXXXX")
  trap 'rm -rf "$TMPDIR_TEST"' EXIT
}

# requires_filter_client [CMD...]: nbdkit, the built filter and a Python NBD client
# (tests/daemon/filter/nbdio.py, on libnbd's bindings), plus any other commands; skip if not.
requires_filter_client() {
  requires nbdkit /usr/bin/python3 "$@"
  [ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
  /usr/bin/python3 -c 'import nbd' 2>/dev/null || skip "python3-libnbd is not installed"
}
