#!/usr/bin/env bash
# diskemu advertises a datasheet drive's sector format through nbdkit's block_size
# (4Kn: 4096 / 4096; 512e: 512 / 4096), and the disksched filter passes it on.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit /usr/bin/python3
[ -n "${DISKEMU_PLUGIN:-}" ] || skip "the diskemu plugin was not built"
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"

# prints "MINIMUM PREFERRED SIZE" of the export, after one read of 8 KiB at 1 MiB
probe() {
  nbdkit -U "$(nbdkit_sock)" "$@" --run 'PATH=/usr/bin:$PATH nbdsh -u "$uri" -c "
import nbd
h.pread(8192, 1 << 20)
print(h.get_block_size(nbd.SIZE_MINIMUM), h.get_block_size(nbd.SIZE_PREFERRED), h.get_size())
"'
}

expect() {  # expect WHAT GOT WANT
  [ "$2" = "$3" ] || fail "$1: got '$2', expected '$3'"
  echo "ok: $1: $2"
}

capacity=$("$DISKSCHED" model show sata7200-8tb | awk '$1 == "capacity_bytes" {print $2}')
expect "4Kn diskemu" "$(probe "$DISKEMU_PLUGIN" model=sata7200-8tb-4kn)" "4096 4096 $capacity"
expect "512e diskemu" "$(probe "$DISKEMU_PLUGIN" model=sata7200-8tb)" "512 4096 $capacity"
expect "4Kn through the filter" \
  "$(probe --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" model=sata7200-8tb-4kn \
     sched=satf sched-geometry=sata7200-8tb-4kn)" "4096 4096 $capacity"
expect "512n diskemu" "$(probe "$DISKEMU_PLUGIN" model=sas15k-600gb | cut -d' ' -f1-2)" "512 4096"
