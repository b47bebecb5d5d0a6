# Helpers shared by the plugin integration tests. Source after tests/lib.sh.

# run_py SCRIPT NBDKIT-ARGS...: a captive nbdkit on a private Unix socket, and nbdsh
# (system python3, see lib.sh) running SCRIPT against it with `h` connected.
run_py() {
  local script=$1; shift
  nbdkit -U - "$@" \
    --run "PATH=/usr/bin:\$PATH nbdsh -u \"\$uri\" -c 'exec(open(\"$script\").read())'"
}

# expect_start_failure PATTERN NBDKIT-ARGS...: nbdkit must refuse to start, saying PATTERN.
expect_start_failure() {
  local pattern=$1; shift
  expect_failure "$pattern" nbdkit -U - "$@" --run 'exit 0'
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
