#!/usr/bin/env bash
# Bad configuration stops start-up with a message naming the key; a geometry smaller
# than the export fails the connection naming sched-geometry; a serialized thread model
# is reported; a geometry makes the export rotational; --help documents every key.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit nbdinfo
[ -n "${DISKSCHED_FILTER:-}" ] || skip "the disksched filter was not built"
make_tmpdir

# expect_refused MESSAGE-REGEX ARGS...: nbdkit must fail and print the message.
expect_refused() {
  local want=$1; shift
  local out
  if out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 64M "$@" --run true 2>&1); then
    fail "accepted: $*"
  fi
  echo "$out" | grep -Eq -- "$want" || fail "for '$*' expected /$want/, got: $out"
  echo "refused $*: $(echo "$out" | head -1)"
}

expect_refused 'sched=nosuch: unknown scheduler' sched=nosuch
expect_refused 'sched=asatf.*sched-geometry=' sched=asatf
expect_refused 'sched-depth=0: expected an integer from 1 to 1024' sched-depth=0
expect_refused 'sched-depth=lots' sched-depth=lots
expect_refused 'sched-geometry=nope' sched-geometry=nope
expect_refused 'sched-timescale=-1: expected a number > 0' sched-timescale=-1
expect_refused "sched-classes=export:db=urgent: .*unknown class 'urgent'" sched-classes=export:db=urgent
expect_refused 'sched-delta=fast' sched-delta=fast
expect_refused "sched-delta=5: .*'5' has no unit: write 5ms" sched-delta=5
expect_refused 'sched-refine=maybe' sched-refine=maybe
expect_refused "unknown key 'sched-colour'" sched-colour=blue
expect_refused 'sched-log.*cannot create' sched-log="$TMPDIR_TEST/no/such/dir/lat.csv"
expect_refused 'sched-control.*cannot bind' sched-control="$TMPDIR_TEST/no/such/dir/ctl.sock"
expect_refused 'sched-save-dir=.*an existing directory' sched-save-dir="$TMPDIR_TEST/no/such/dir"
expect_refused 'sched-log=.*is a directory' sched-log="$TMPDIR_TEST"
expect_refused 'sched=satf.*needs a device geometry' sched=satf sched-geometry=fixed:ms=5
expect_refused 'sched=zsptf.*MEMS' sched=zsptf sched-geometry=hp97560
expect_refused 'sched-max-exports=0: expected an integer from 1 to 4096' sched-max-exports=0
# An interval this long overflowed the wait and the metrics thread spun.
expect_refused 'sched-metrics-interval=1e10s: expected a duration of at least 100ms and at most 86400s' \
  sched-metrics-interval=1e10s
# The latency log on the plugin's own file would put its CSV into sector 0.
truncate -s 1M "$TMPDIR_TEST/disk.img"
ln "$TMPDIR_TEST/disk.img" "$TMPDIR_TEST/same.img"
for log in disk.img same.img; do
  out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" file "$TMPDIR_TEST/disk.img" \
          sched-log="$TMPDIR_TEST/$log" --run true 2>&1) && fail "sched-log= on file= was accepted"
  echo "$out" | grep -q "sched-log=.*$log: is the plugin's file=.*disk.img" || fail "unexpected message: $out"
done
cmp -s "$TMPDIR_TEST/disk.img" <(head -c 1M /dev/zero) || fail "the refused log still wrote into the image"
echo "refused sched-log= on the plugin's file= (by name and by a hard link)"

# The HP 97560 holds about 1.3 GB: a 2 GiB export is refused at connection.
out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 2G sched-geometry=hp97560 \
        --run 'nbdinfo "$uri"' 2>&1) && fail "a geometry smaller than the export was accepted"
echo "$out" | grep -q 'sched-geometry=hp97560: the device model holds .* bytes but export .* is 2147483648 bytes' \
  || fail "unexpected message: $out"
echo "refused a 2 GiB export on hp97560"

# A geometry makes the export rotational (NBD_FLAG_ROTATIONAL).
out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 64M sched-geometry=hp97560 \
        --run 'nbdinfo --json "$uri"')
echo "$out" | grep -q '"is_rotational": true' || fail "not rotational with a geometry: $out"

# sched-refine=false keeps the geometry's rotation period (the control socket says so);
# true refines it. Booleans are nbdkit's own (false and yes were refused before).
if [ -n "${DISKSCHED:-}" ]; then
  for pair in "false False" "yes True"; do
    set -- $pair
    ctl="$TMPDIR_TEST/refine-$1.sock"
    out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 64M sched-geometry=hp97560 \
            sched-refine="$1" sched-control="$ctl" \
            --run "nbdinfo \"\$uri\" >/dev/null && '$DISKSCHED' ctl '$ctl' show --json" \
            2>"$TMPDIR_TEST/refine.err") \
      || fail "sched-refine=$1 run failed: $out $(cat "$TMPDIR_TEST/refine.err")"
    got=$(echo "$out" | /usr/bin/python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["rotation_refine"], j["track_refine"])')
    [ "$got" = "$2 $2" ] || fail "sched-refine=$1: rotation_refine, track_refine are $got"
    echo "sched-refine=$1: rotation_refine $got"
  done
fi

# A serialized plugin: a warning that says so, and it still works.
out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" --filter=noparallel memory 64M \
        --run 'nbdinfo "$uri" >/dev/null' 2>&1) || fail "serialized stack failed: $out"
echo "$out" | grep -q 'disksched: warning: the thread model is serialize_requests' \
  || fail "no thread model warning: $out"

# A sched-timescale that does not match the emulator's: calibration finds no delta that
# predicts the completions, and the filter says what to check. Matched, it stays quiet:
# a host loaded enough to deliver completions late can make even a matched run warn, so
# the quiet case gets a second run and must be quiet in one of the two.
if [ -n "${DISKEMU_PLUGIN:-}" ]; then
  for pair in "0.1 1 warn 1" "0.5 0.5 quiet 1" "0.5 0.5 quiet 2"; do
    set -- $pair
    if [ "$3" = quiet ] && [ "$4" = 2 ] && ! echo "$out" | grep -q 'warning'; then continue; fi
    out=$(timeout 60 nbdkit -U "$(nbdkit_sock)" -t 16 --filter="$DISKSCHED_FILTER" "$DISKEMU_PLUGIN" \
            model=hp97560 timescale="$1" sched-geometry=hp97560 sched-timescale="$2" \
            --run "'$DISKSCHED' replay --nbd \"\$uri\" --workload closed:n=2 --requests 160 \
                   --timescale $1 --quiet --json >/dev/null" 2>&1) || fail "replay failed: $out"
    if [ "$3" = quiet ] && [ "$4" = 1 ] && echo "$out" | grep -q 'warning'; then
      echo "timescale $1, sched-timescale $2: a warning on the first run (host load $(cut -d' ' -f1 /proc/loadavg)); once more"
      continue
    fi
    if [ "$3" = warn ]; then
      echo "$out" | grep -q 'does sched-timescale (1) match its speed' \
        || fail "no warning with timescale=$1 sched-timescale=$2: $out"
    else
      echo "$out" | grep -q 'warning' && fail "warning with matching timescales: $out"
    fi
    echo "timescale $1, sched-timescale $2: $3"
  done
fi

# Above depth 1 with a rotating geometry the filter says that prediction assumes the
# device keeps dispatch order; at depth 1 it says nothing of the kind.
out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1G sched-geometry=hp97560 \
  sched-depth=4 --run true 2>&1) || fail "sched-depth=4 refused: $out"
echo "$out" | grep -q 'note: sched-depth=4: .*reorders.*sched-depth=1' || fail "no depth note: $out"
out=$(timeout 20 nbdkit -U "$(nbdkit_sock)" --filter="$DISKSCHED_FILTER" memory 1G sched-geometry=hp97560 \
  --run true 2>&1) || fail "depth 1 refused: $out"
echo "$out" | grep -q 'note: sched-depth' && fail "depth note at depth 1: $out"

# --help documents every key.
help=$(nbdkit --filter="$DISKSCHED_FILTER" null --help)
for key in sched= sched-geometry= sched-depth= sched-log= sched-timescale= sched-classes= \
           sched-control= sched-save-dir= sched-delta= sched-refine= sched-metrics-interval= \
           sched-max-exports=; do
  echo "$help" | grep -q "^$key" || fail "--help does not document $key"
done
# ... and names every built-in model (GP's disk and the datasheet drives were missing).
for model in hp97560 hp97560-full gp93 mems mems-table1 sata7200-8tb laptop5400-320gb \
             sas15k-600gb; do
  echo "$help" | grep -q "Built-in models: .*\b$model\b" || fail "--help does not name $model"
done
echo ok
