#!/usr/bin/env bash
# Runs libFuzzer targets for a while each and reports what they did.
#   fuzz-run.sh FUZZ_BUILD_DIR CORPUS_ROOT SECONDS NAME...
# FUZZ_BUILD_DIR/fuzz_NAME runs for SECONDS over a working corpus that starts from the
# seeds in CORPUS_ROOT/NAME (which stay untouched; CORPUS_ROOT/../dict/NAME.dict, if
# there, gives libFuzzer the format's words) and keeps what it finds, in
# FUZZ_BUILD_DIR/fuzz-work/NAME, so a later run goes on from there. A crash leaves its
# input in FUZZ_BUILD_DIR/fuzz-artifacts/NAME/; the script then exits 1.
# FUZZ_KEEP_GOING=1 runs libFuzzer in fork mode past crashes, hangs and OOMs (to count
# them all in a long run); otherwise a target stops at its first.
# Prints one line per target: executions, executions per second, coverage (cov: edges,
# ft: features), corpus size, crash inputs written, and the verdict.
# Used by `ninja -C build-fuzz fuzz-short` (the suite) and `fuzz-long` (the bench).
set -uo pipefail
[ $# -ge 4 ] || { echo "usage: $0 FUZZ_BUILD_DIR CORPUS_ROOT SECONDS NAME..." >&2; exit 2; }
build=$1 corpus=$2 seconds=$3
shift 3

printf '%-16s %12s %9s %6s %7s %6s %7s  %s\n' target executions exec/s cov ft corpus crashes result
keep_going=()
[ "${FUZZ_KEEP_GOING:-0}" = 1 ] && keep_going=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
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
  dict=()
  [ -f "$corpus/../dict/$name.dict" ] && dict=(-dict="$corpus/../dict/$name.dict")
  before=$(ls "$artifacts" | wc -l)
  "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    "${keep_going[@]}" "${dict[@]}" -artifact_prefix="$artifacts/" "$work" "$corpus/$name" >"$log" 2>&1
  rc=$?
  crashes=$(( $(ls "$artifacts" | wc -l) - before ))
  # The last status line, e.g. "#9284 DONE cov: 194 ft: 286 corp: 39/4043b ... exec/s: 1547"
  # (fork mode: "#9942: cov: 384 ft: 277 corp: 27 exec/s 1102 ...").
  last=$(grep -aE '^#[0-9]+' "$log" | tail -1)
  field() { sed -n "s|.* $1:\{0,1\} \([0-9]*\).*|\1|p" <<<"$last"; }
  execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
  if [ $rc -eq 0 ] && [ $crashes -eq 0 ]; then
    result=ok
  else
    failed=1
    result="CRASH (exit $rc): $(ls -t "$artifacts" | head -1 | sed "s|^|$artifacts/|"); log $log"
  fi
  printf '%-16s %12s %9s %6s %7s %6s %7s  %s\n' "$name" "${execs:--}" "$(field exec/s)" \
    "$(field cov)" "$(field ft)" "$(field corp)" "$crashes" "$result"
done
if [ $failed -ne 0 ]; then
  echo "A crash input reproduces with: FUZZ_BUILD_DIR/fuzz_NAME INPUT. Once fixed, keep it as" >&2
  echo "tests/fuzz/corpus/NAME/crash-WHAT so the ordinary build's fuzz-corpus-NAME test pins it." >&2
fi
exit $failed
