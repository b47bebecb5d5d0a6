#!/usr/bin/env bash
# Runs libFuzzer targets for a while each and reports what they did.
#   fuzz-run.sh FUZZ_BUILD_DIR CORPUS_ROOT SECONDS NAME...
# FUZZ_BUILD_DIR/fuzz_NAME runs for SECONDS over a working corpus that starts from the
# seeds in CORPUS_ROOT/NAME (which stay untouched) and keeps what it finds, in
# FUZZ_BUILD_DIR/fuzz-work/NAME, so a later run goes on from there. A crash leaves its
# input in FUZZ_BUILD_DIR/fuzz-artifacts/NAME/; the script then exits 1.
# Prints one line per target: executions, executions per second, coverage (cov: edges,
# ft: features), corpus size, peak RSS, and the verdict.
# Used by `ninja -C build-fuzz fuzz-short` (the suite) and `fuzz-long` (the bench).
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: $0 FUZZ_BUILD_DIR CORPUS_ROOT SECONDS NAME..." >&2; exit 2; }
build=$1 corpus=$2 seconds=$3
shift 3

printf '%-16s %12s %9s %6s %7s %6s %8s  %s\n' target executions exec/s cov ft corpus rss_mb result
failed=0
for name in "$@"; do
  exe=$build/fuzz_$name
  work=$build/fuzz-work/$name
  artifacts=$build/fuzz-artifacts/$name
  log=$build/fuzz-logs/$name.log
  mkdir -p "$work" "$artifacts" "$(dirname "$log")"
  [ -x "$exe" ] || { echo "$exe is not built: ninja -C $build fuzz" >&2; exit 2; }
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb: one that needs
  # 2 GiB is a bug in a parser of small files. Both count as crashes.
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" "$corpus/$name" >"$log" 2>&1
  rc=$?
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
  if [ $rc -eq 0 ]; then
    result=ok
  else
    failed=1
    crash=$(ls -t "$artifacts" 2>/dev/null | head -1)
    result="CRASH (exit $rc): $artifacts/$crash; log $log"
  fi
  printf '%-16s %12s %9s %6s %7s %6s %8s  %s\n' "$name" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "${cov:--}" "${ft:--}" "${corp:--}" "$(stat peak_rss_mb)" "$result"
done
if [ $failed -ne 0 ]; then
  echo "A crash input reproduces with: FUZZ_BUILD_DIR/fuzz_NAME INPUT. Once fixed, keep it as" >&2
  echo "tests/fuzz/corpus/NAME/crash-WHAT so the ordinary build's fuzz-corpus-NAME test pins it." >&2
fi
exit $failed
