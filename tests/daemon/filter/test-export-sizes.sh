#!/usr/bin/env bash
# Without a geometry each export is sized by itself: with nbdkit's `file dir=` exports
# of 1 MiB and 8 MiB, both connect (in either order) and read their last block, and an
# export whose file has grown since is served at its new size. (The device used to be
# sized by the first export, refusing every larger one with "no export named".) A
# scheduler switch through the control socket reaches every export's device.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
dir="$TMPDIR_TEST/exports"
mkdir "$dir"
truncate -s 1M "$dir/small"
truncate -s 8M "$dir/big"

cat > "$TMPDIR_TEST/exports.py" <<'PY'
import csv, os, subprocess, sys
import nbd
base, folder, disksched, ctl, log = sys.argv[1:6]
def last_block(name, size):
    h = nbd.NBD()
    h.set_export_name(name)
    h.connect_unix(base)
    assert h.get_size() == size, (name, h.get_size(), size)
    h.pwrite(name.encode() * (4096 // len(name)) + b"x" * (4096 % len(name)), size - 4096)
    data = h.pread(4096, size - 4096)
    assert data.startswith(name.encode()), data[:16]
    return h
a = last_block("small", 1 << 20)
b = last_block("big", 8 << 20)       # larger than the export connected first
os.truncate(os.path.join(folder, "small"), 4 << 20)
c = last_block("small", 4 << 20)     # grown while a connection to it is open
assert a.pread(4096, (1 << 20) - 4096).startswith(b"small")   # the old one still works
subprocess.run([disksched, "ctl", ctl, "switch", "look"], check=True)
for h in (a, b, c):
    h.pread(4096, 0)
    h.shutdown()
print("ok: exports of 1, 8 and (grown) 4 MiB all served")
PY
[ -x "${DISKSCHED:-}" ] || skip "disksched is not built"
nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" file dir="$dir" sched=sstf \
  sched-control="$TMPDIR_TEST/ctl.sock" sched-log="$TMPDIR_TEST/lat.csv" \
  --run "/usr/bin/python3 '$TMPDIR_TEST/exports.py' \"\$unixsocket\" '$dir' '$DISKSCHED' \
         '$TMPDIR_TEST/ctl.sock' '$TMPDIR_TEST/lat.csv'" \
  || fail "an export was refused or misread"
/usr/bin/python3 - "$TMPDIR_TEST/lat.csv" <<'PY' || fail "a device kept the old scheduler"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = [r["scheduler"].split(":")[0] for r in rows[-3:]]
assert last == ["look"] * 3, last
print("ok: the switch reached all three devices")
PY

# Block sizes pass through the filter: the uring plugin's for a 4Kn disk's image
# (block-size=4096), and a 4Kn block device's own (a loop device, where one can be made).
if [ -n "${URING_PLUGIN:-}" ] && command -v nbdinfo >/dev/null; then
  block_sizes() {
    nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" "$URING_PLUGIN" "$@" sched=sstf \
      --run 'nbdinfo --json "$uri"' |
      /usr/bin/python3 -c 'import json, sys; j = json.load(sys.stdin)["exports"][0]
print(j.get("block_size_minimum", 0), j.get("block_size_preferred", 0))'
  }
  truncate -s 8M "$TMPDIR_TEST/4kn.img"
  got=$(block_sizes file="$TMPDIR_TEST/4kn.img")
  [ "$got" = "0 0" ] || fail "a file without block-size= advertised '$got'"
  got=$(block_sizes file="$TMPDIR_TEST/4kn.img" block-size=4096)
  [ "$got" = "4096 4096" ] || fail "block-size=4096 reached the client as '$got'"
  if [ "$(id -u)" -eq 0 ] && loop=$(losetup -f --show --sector-size 4096 "$TMPDIR_TEST/4kn.img" 2>/dev/null); then
    got=$(block_sizes file="$loop") || true
    losetup -d "$loop"
    [ "$got" = "4096 4096" ] || fail "a 4Kn block device reached the client as '$got'"
    echo "ok: block sizes of a 4Kn image (block-size=4096) and a 4Kn loop device pass through"
  else
    echo "ok: block sizes of a 4Kn image (block-size=4096) pass through (no loop device for the rest)"
  fi
fi
