#!/usr/bin/env bash
# The launcher of disksched@NAME.service, run by hand: it reads NAME.conf, serves NBD on
# RUNDIR/nbd.sock, and `disksched ctl NAME` finds the control socket by the name alone
# (show, metrics with the disk label NAME). Bad configs stop it with a message naming
# the file, the line and what to write instead; an nbdkit option in a config (--run=CMD)
# is refused, never passed to nbdkit.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
d=$TMPDIR_TEST
launcher="$TESTS_SRCDIR/../daemon/systemd/disksched-instance"
export DISKSCHED_CONF_DIR="$d/etc" DISKSCHED_RUN_DIR="$d/run" DISKSCHED_FILTER
mkdir -p "$d/etc" "$d/run/sdx"
cat > "$d/etc/sdx.conf" <<CONF
# an emulated disk behind the filter
plugin=memory
size=64M
sched=sstf   # by cylinder on the HP 97560
sched-geometry=hp97560
threads=8
CONF

cat > "$d/client.sh" <<SH
set -e
[ -S "$d/run/sdx/nbd.sock" ]
/usr/bin/python3 - "nbd+unix:///?socket=$d/run/sdx/nbd.sock" <<'PY'
import sys
sys.path.insert(0, "$TESTS_SRCDIR/daemon/filter")
import nbdio
h = nbdio.connect(sys.argv[1])
reqs = [nbdio.Request("write", i * 65536, data=b"x" * 4096) for i in range(10)]
nbdio.run(h, reqs, 4)
assert all(r.ok for r in reqs)
PY
(cd "$d" && "$DISKSCHED" ctl sdx show --json) > "$d/show.json"
"$DISKSCHED" ctl sdx metrics > "$d/metrics.prom"
SH
timeout 60 bash "$launcher" sdx --run "bash '$d/client.sh'" || fail "the instance did not serve"
/usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["scheduler"].startswith("sstf") and j["geometry"] == "hp97560", j' "$d/show.json" || fail "show: $(cat "$d/show.json")"
grep -q '^disksched_requests_total{disk="sdx",op="write",class="noncritical"} 10$' "$d/metrics.prom" ||
  fail "metrics by name: $(head -20 "$d/metrics.prom")"

# An instance that is not there: where ctl looked, and how to check the service.
if "$DISKSCHED" ctl nosuch show 2> "$d/err"; then fail "ctl of a missing instance succeeded"; fi
grep -q "no disksched instance 'nosuch': $d/run/nosuch/control.sock does not exist" "$d/err" ||
  fail "missing instance: $(cat "$d/err")"

# Bad configs.
bad() {  # bad NAME 'CONFIG' 'EXPECTED MESSAGE'
  mkdir -p "$d/run/$1"
  printf '%s\n' "$2" > "$d/etc/$1.conf"
  if bash "$launcher" "$1" --run true 2> "$d/err"; then fail "config '$2' accepted"; fi
  grep -qF "$3" "$d/err" || fail "config '$2': $(cat "$d/err")"
}
bad noplug 'size=1M' "$d/etc/noplug.conf: no plugin= line"
bad ctl $'plugin=memory\nsched-control=/tmp/x.sock' "$d/etc/ctl.conf:2: sched-control is set by the instance"
bad word $'plugin=memory\nsstf' "$d/etc/word.conf:2: 'sstf' is not KEY=VALUE"
bad key $'plugin=memory\nsize=1M\nsched-depht=2' "unknown key 'sched-depht'"
# nbdkit options are not keys: never passed on, whatever follows them.
bad run $'plugin=memory\nsize=1M\n--run=touch '"$d/ran" "$d/etc/run.conf:3: '--run' is an option, not a key"
[ ! -e "$d/ran" ] || fail "--run= in a config ran its command"
bad short $'plugin=memory\n-v=1' "$d/etc/short.conf:2: '-v' is an option, not a key"
bad spaced $'plugin=memory\nsize 1M=2' "$d/etc/spaced.conf:2: 'size 1M' is not a key"
bad plugopt $'plugin=--dump-config' "$d/etc/plugopt.conf:1: plugin=--dump-config: expected a plugin name or path"
if bash "$launcher" absent 2> "$d/err"; then fail "an instance without config started"; fi
grep -qF "$d/etc/absent.conf is missing" "$d/err" || fail "no config: $(cat "$d/err")"
echo OK
