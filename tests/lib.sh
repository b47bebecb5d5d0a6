# Shared helpers for the integration tests. Source it: . "$TESTS_SRCDIR/lib.sh"
# Exit code 77 tells meson the test was skipped.
set -euo pipefail

skip() { echo "SKIP: $*"; exit 77; }

# at_exit COMMAND: run COMMAND when the test exits (last registered, first run), also after
# a failure. One EXIT trap for all: a second `trap ... EXIT` would drop the first's cleanup.
_at_exit=()
_run_at_exit() {
  local i
  for ((i = ${#_at_exit[@]} - 1; i >= 0; i--)); do eval "${_at_exit[i]}" || true; done
}
at_exit() { _at_exit+=("$1"); trap _run_at_exit EXIT; }

# nbdkit_sock: a fresh Unix socket path for `nbdkit -U`, in a folder removed at exit. Not
# `-U -`: nbdkit 1.32 makes that socket's folder in /tmp whatever TMPDIR says and leaves it
# behind when start-up fails, which many tests make it do on purpose (54 folders a suite run).
NBDKIT_SOCK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/disksched-sock.XXXXXX")
at_exit 'rm -rf "$NBDKIT_SOCK_DIR"'
nbdkit_sock() { mktemp -u "$NBDKIT_SOCK_DIR/nbd.XXXXXX"; }
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
  at_exit 'rm -rf "$TMPDIR_TEST"'
}

# requires_filter_client [CMD...]: nbdkit, the built filter and a Python NBD client
# (tests/daemon/filter/nbdio.py, on libnbd's bindings), plus any other commands; skip if not.
requires_filter_client() {
  requires nbdkit /usr/bin/python3 "$@"
  [ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
  /usr/bin/python3 -c 'import nbd' 2>/dev/null || skip "python3-libnbd is not installed"
}

# nbdkit 1.32.4-1.32.5 may abort in its own code when a client vanishes with requests in
# flight (raw_send_socket: Assertion 'sock >= 0', fixed upstream in 1.33.10 / 1.34.0;
# see the filter's man page).
# nbdkit_has_disconnect_fix: true from 1.33.10 on.
nbdkit_has_disconnect_fix() {
  local version
  version=$(nbdkit --version | awk '{print $2}')
  [ "$(printf '%s\n1.33.10\n' "$version" | sort -V | head -1)" = 1.33.10 ]
}
# nbdkit_known_abort LOG: true when an nbdkit without the fix wrote that assertion to LOG.
nbdkit_known_abort() {
  ! nbdkit_has_disconnect_fix && grep -q "raw_send_socket: Assertion .sock >= 0. failed" "$1"
}

# run_py SCRIPT NBDKIT-ARGS...: a captive nbdkit on a private Unix socket, and nbdsh
# (the system python3, see nbdsh above) running SCRIPT against it with `h` connected.
run_py() {
  local script=$1; shift
  nbdkit -U "$(nbdkit_sock)" "$@" \
    --run "PATH=/usr/bin:\$PATH nbdsh -u \"\$uri\" -c 'exec(open(\"$script\").read())'"
}

# expect_start_failure PATTERN NBDKIT-ARGS...: nbdkit must refuse to start, saying PATTERN.
expect_start_failure() {
  local pattern=$1; shift
  expect_failure "$pattern" nbdkit -U "$(nbdkit_sock)" "$@" --run 'exit 0'
}

# expect_failure PATTERN COMMAND...: COMMAND must fail, saying PATTERN.
expect_failure() {
  local pattern=$1; shift
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "$* succeeded, but should have failed"
  grep -qF -- "$pattern" <<<"$out" || fail "$* failed without saying '$pattern': $out"
  echo "refused as expected: $* -> $(grep -F -- "$pattern" <<<"$out" | head -1)"
}

# wait_for TEST-COMMAND: poll up to 30 s (bounded) until the command succeeds.
wait_for() {
  local i
  for i in $(seq 1 300); do
    if eval "$1"; then return 0; fi
    sleep 0.1
  done
  fail "timed out waiting for: $1"
}

# diskemu_test [COMMAND...]: the start of a diskemu test: nbdkit (and COMMANDs) present,
# the plugin built (else skip), a private temporary folder T, and the plugin's path P.
diskemu_test() {
  requires nbdkit "$@"
  [ -n "${DISKEMU_PLUGIN:-}" ] || skip "DISKEMU_PLUGIN is not set (plugin not built)"
  make_tmpdir
  T=$TMPDIR_TEST
  P=$DISKEMU_PLUGIN
}

# fuse_stack_dir NAME: for a test over nbdfuse (and a loop device, a mount), a scratch
# folder $T on a real file system (/var/tmp: tmpfs has no O_DIRECT) with $T/fuse for
# nbdfuse and $T/mnt; at exit, also after a failure, fuse_stack_cleanup takes down
# whatever is still up. The test keeps NBDKIT_PID, FUSE_PID and LOOP set while those run.
fuse_stack_dir() {
  T=$(mktemp -d "/var/tmp/$1.XXXXXX")
  mkdir -p "$T/fuse" "$T/mnt"
  NBDKIT_PID= FUSE_PID= LOOP=
  at_exit fuse_stack_cleanup
}
fuse_stack_cleanup() {
  set +e
  mountpoint -q "$T/mnt" && umount -l "$T/mnt"
  [ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
  # mount -o loop sets autoclear, but a half-done mount may leave a loop device behind.
  losetup -j "$T/fuse/disk" 2>/dev/null | cut -d: -f1 | xargs -r -n1 losetup -d
  if [ -n "$FUSE_PID" ]; then kill -9 "$FUSE_PID" 2>/dev/null; wait "$FUSE_PID" 2>/dev/null; fi
  umount -l "$T/fuse" 2>/dev/null   # a killed nbdfuse's mount is no "mountpoint" any more
  if [ -n "$NBDKIT_PID" ]; then
    # nbdkit writes its stats as it exits: gone before its folder goes, or a stats file
    # written after rm -rf keeps the folder (one was left in /var/tmp).
    kill "$NBDKIT_PID" 2>/dev/null
    local i
    for i in $(seq 1 100); do kill -0 "$NBDKIT_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$NBDKIT_PID" 2>/dev/null
  fi
  rm -rf "$T"
}
