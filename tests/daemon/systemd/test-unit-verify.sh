#!/usr/bin/env bash
# disksched@.service as meson configures it passes `systemd-analyze verify` without a
# single warning, for an instance. The launcher path is pointed at the source tree (the
# installed one may not exist yet), and --man=no because the man page is installed only
# by `meson install`. The unit runs as its own user with its disk alone, and systemd's
# exposure score for it is below 1.0 (1.7 before).
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
# Not root, no capability, only its own disk, bounded, /etc read-only (no
# ConfigurationDirectory=, which would make /etc/disksched writable).
for want in 'User=disksched' 'SupplementaryGroups=disk' 'CapabilityBoundingSet=' \
            'DevicePolicy=closed' 'DeviceAllow=/dev/%i rw' 'MemoryMax=4G' 'TasksMax=512'; do
  grep -qx "$want" "$unit" || fail "the unit lacks $want"
done
! grep -E '^(DeviceAllow=block-|ConfigurationDirectory=|ReadWritePaths=.*/etc)' "$unit" ||
  fail "the unit opens every disk of a kind, or makes /etc writable"
# systemd's own exposure score (the issue measured 1.7 before; lower is safer).
if systemd-analyze security --offline=true "$d/disksched@sdb.service" > "$d/security" 2>&1; then
  score=$(sed -n 's/.*Overall exposure level for disksched@sdb.service: \([0-9.]*\).*/\1/p' "$d/security")
  [ -n "$score" ] || fail "no exposure score: $(tail -3 "$d/security")"
  echo "exposure $score"
  awk -v s="$score" 'BEGIN { exit !(s < 1.0) }' || fail "exposure $score, not below 1.0: $(grep -F '✗' "$d/security")"
else
  echo "systemd-analyze security --offline is not available here: the score was not measured"
fi
echo OK
