#!/usr/bin/env bash
# diskemu: bad keys and values stop start-up with a message naming them; --help
# documents every key.
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
diskemu_test

expect_start_failure "model= parameter is required" "$P"
expect_start_failure "model=nope" "$P" model=nope
expect_start_failure "unknown model 'nope'" "$P" nope
expect_start_failure "timescale=0" "$P" model=hp97560 timescale=0
expect_start_failure "timescale=fast" "$P" model=hp97560 timescale=fast
expect_start_failure "jitter=normal:1ms" "$P" model=hp97560 jitter=normal:1ms
expect_start_failure "jitter=exp:5" "$P" model=hp97560 jitter=exp:5
expect_start_failure "rpm-error=lots" "$P" model=hp97560 rpm-error=lots
expect_start_failure "does not rotate" "$P" model=fixed:ms=1 rpm-error=0.01
expect_start_failure "spin=2s" "$P" model=hp97560 spin=2s
expect_start_failure "rt-priority=100" "$P" model=hp97560 rt-priority=100
expect_start_failure "unknown parameter 'timescle'" "$P" model=hp97560 timescle=1
expect_start_failure "file=$TMPDIR_TEST/no/such/dir/disk.img" "$P" model=hp97560 \
  file="$TMPDIR_TEST/no/such/dir/disk.img"
expect_start_failure "stats=$TMPDIR_TEST/no/such/dir/s.json" "$P" model=hp97560 \
  stats="$TMPDIR_TEST/no/such/dir/s.json"
# stats= replaces only a regular file: a link planted at the path (to a disk image, say)
# or a device there stops start-up, and what it points to is untouched.
mkdir -p "$TMPDIR_TEST/elsewhere"
echo precious > "$TMPDIR_TEST/elsewhere/disk.img"
ln -s "$TMPDIR_TEST/elsewhere/disk.img" "$TMPDIR_TEST/stats-link.json"
expect_start_failure "stats-link.json' exists and is a symbolic link" "$P" model=hp97560 \
  stats="$TMPDIR_TEST/stats-link.json"
[ "$(cat "$TMPDIR_TEST/elsewhere/disk.img")" = precious ] || fail "stats= wrote through a link"
ln -s "$TMPDIR_TEST/elsewhere/disk.img" "$TMPDIR_TEST/.s.json.tmp"
ln -s "$TMPDIR_TEST/elsewhere/disk.img" "$TMPDIR_TEST/s.json.tmp"
nbdkit -U "$(nbdkit_sock)" "$P" model=hp97560 stats="$TMPDIR_TEST/s.json" --run 'exit 0' ||
  fail "stats= beside planted temporary names did not start"
[ "$(cat "$TMPDIR_TEST/elsewhere/disk.img")" = precious ] || fail "stats= wrote through a planted temporary name"
grep -q '"requests"' "$TMPDIR_TEST/s.json" || fail "stats: $(cat "$TMPDIR_TEST/s.json")"
mkfifo "$TMPDIR_TEST/stats-fifo.json"
expect_start_failure "stats-fifo.json' exists and is a FIFO" "$P" model=hp97560 \
  stats="$TMPDIR_TEST/stats-fifo.json"
expect_start_failure "capacity=" "$P" model=fixed:ms=1,capacity=zero
expect_start_failure "drive-queue=0" "$P" model=hp97560 drive-queue=0
expect_start_failure "drive-policy=nosuch" "$P" model=hp97560 drive-policy=nosuch
expect_start_failure "drive-policy=zsptf" "$P" model=hp97560 drive-queue=4 drive-policy=zsptf
expect_start_failure "drive-age-limit=5" "$P" model=hp97560 drive-age-limit=5
expect_start_failure "drive-window=257" "$P" model=hp97560 drive-queue=4 drive-window=257

echo '{"version": 1, "heads": 0, "rpm": 5400, "zones": []}' > "$TMPDIR_TEST/bad.json"
expect_start_failure "heads" "$P" model="$TMPDIR_TEST/bad.json"

help=$(nbdkit "$P" --help)
for key in model= file= timescale= jitter= jitter-seed= rpm-error= stats= spin= timer-slack= \
           rt-priority= drive-queue= drive-policy= drive-window= drive-age-limit=; do
  grep -qF -- "$key" <<<"$help" || fail "--help does not document $key"
done
for model in gp93 mems-table1 sata7200-8tb laptop5400-320gb sas15k-600gb; do
  grep -q "Built-in models: .*\b$model\b" <<<"$help" || fail "--help does not name $model"
done
echo PASS
