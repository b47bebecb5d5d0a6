#!/usr/bin/env bash
# disksched@.service as meson configures it passes `systemd-analyze verify` without a
# single warning, for an instance. The launcher path is pointed at the source tree (the
# installed one may not exist yet), and --man=no because the man page is installed only
# by `meson install`.
. "$TESTS_SRCDIR/lib.sh"
command -v systemd-analyze >/dev/null 2>&1 ||
  skip "systemd-analyze is not installed (Debian package systemd): the unit was not verified"
make_tmpdir
d=$TMPDIR_TEST
unit="$BUILD_ROOT/daemon/systemd/disksched@.service"
launcher=$(cd "$TESTS_SRCDIR/../daemon/systemd" && pwd)/disksched-instance
[ -f "$unit" ] || fail "$unit was not configured"
grep -q '^ExecStart=.*/disksched-instance %i$' "$unit" || fail "ExecStart: $(grep ExecStart "$unit")"
sed "s#^ExecStart=.*#ExecStart=$launcher %i#" "$unit" > "$d/disksched@.service"
cp "$d/disksched@.service" "$d/disksched@sdb.service"
if ! systemd-analyze verify --man=no "$d/disksched@sdb.service" > "$d/out" 2>&1; then
  fail "systemd-analyze verify failed: $(cat "$d/out")"
fi
[ ! -s "$d/out" ] || fail "systemd-analyze verify warned: $(cat "$d/out")"
# The hardening the issue asks for is there.
for want in 'PrivateNetwork=yes' 'RestrictAddressFamilies=AF_UNIX' 'RuntimeDirectory=disksched/%i' \
            'Restart=on-failure' 'NoNewPrivileges=yes' 'ProtectSystem=strict'; do
  grep -qx "$want" "$unit" || fail "the unit lacks $want"
done
echo OK
