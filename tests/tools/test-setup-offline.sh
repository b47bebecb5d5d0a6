#!/usr/bin/env bash
# tools/setup.sh's check on a machine that has every package: it finds them all (Debian
# 12's nbdfuse is a virtual package, checked by the file it stands for, so it must not
# look missing) and so makes no network call: apt-get, here a stand-in that records being
# called and fails as it would offline, is never run.
. "$TESTS_SRCDIR/lib.sh"
requires dpkg-query
make_tmpdir
setup=$TESTS_SRCDIR/../tools/setup.sh
mkdir "$TMPDIR_TEST/bin"
for tool in apt-get apt; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/called"\nexit 100\n' "$tool" "$TMPDIR_TEST" \
    > "$TMPDIR_TEST/bin/$tool"
  chmod +x "$TMPDIR_TEST/bin/$tool"
done
rc=0
out=$(PATH="$TMPDIR_TEST/bin:$PATH" "$setup" --check 2>&1) || rc=$?
[ ! -e "$TMPDIR_TEST/called" ] || fail "setup --check called apt: $(cat "$TMPDIR_TEST/called")"
if [ -x /usr/bin/nbdfuse ]; then
  ! echo "$out" | grep -q "libnbd-bin\|nbdfuse" || fail "nbdfuse is here, setup says: $out"
fi
if [ "$rc" -ne 0 ]; then
  # Every package it names must really be missing, or the check itself is wrong.
  for p in $(sed -n 's/^setup: missing packages: \([^;]*\);.*/\1/p' <<<"$out"); do
    status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
    [[ $status != [ih]i* ]] || fail "setup calls $p missing, dpkg says '$status'"
  done
  skip "this machine lacks packages: $out"
fi
echo "$out" | grep -q "every package is installed" || fail "setup said: $out"
out=$("$setup" --bogus 2>&1) && fail "setup took --bogus"
echo "$out" | grep -q -- "--check" || fail "setup's error for --bogus: $out"
echo "setup: every package found, no network call"
