#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test. Ends with "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
"$here/tools/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }
log=$(mktemp)
meson test -C build --print-errorlogs --num-processes 2 "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
count() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" "$log" | tail -n 1; }
ok=$(count 'Ok'); fail=$(count 'Fail'); xfail=$(count 'Expected Fail')
upass=$(count 'Unexpected Pass'); tmo=$(count 'Timeout'); skipped=$(count 'Skipped')
rm -f "$log"
failed=$(( ${fail:-0} + ${upass:-0} + ${tmo:-0} ))
passed=$(( ${ok:-0} + ${xfail:-0} ))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "${passed} passed, ${failed} failed, ${skipped:-0} skipped"
[ "$failed" -eq 0 ]
