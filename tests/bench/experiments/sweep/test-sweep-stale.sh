#!/usr/bin/env bash
# A point file belongs to the one point whose whole definition (model, workload,
# simulator settings, scheduler, rate, seed) it was run for: after a new plan in the same
# directory, `sweep run` and `sweep merge` refuse the old plan's points and say what to
# do, instead of merging rates 10-30 as 40-60 or the HP 97560 as a MEMS device. A point
# file that is a link to /dev/zero or a FIFO is refused, not read (no hang), and one
# with a hand-edited value is refused naming file:line.
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
d=$TMPDIR_TEST/s
common=(--sched fcfs --reps 1 --requests 200 --warmup 50)

# A plan over rates 10:30, run; then the plan is replaced, as the error message for a
# second plan in a directory says to, but the old points are left.
"$DISKSCHED" sweep --model hp97560 "${common[@]}" --rates 10:30:10 -o "$d" --plan > /dev/null
"$DISKSCHED" sweep run "$d" -q --threads 1
"$DISKSCHED" sweep merge "$d" --no-plot > /dev/null
cp "$d/sweep.csv" "$TMPDIR_TEST/low.csv"
rm "$d/sweep.json" "$d/manifest.tsv"
"$DISKSCHED" sweep --model hp97560 "${common[@]}" --rates 40:60:10 -o "$d" --plan > /dev/null
if "$DISKSCHED" sweep merge "$d" --no-plot > /dev/null 2> "$TMPDIR_TEST/err"; then
  fail "rates 40-60 merged from the points of rates 10-30: $(cat "$d/sweep.csv")"
fi
key_line=$(grep -n '"key":' "$d/points/0.json" | cut -d: -f1)
grep -q "points/0.json:$key_line: the result of another plan, not this plan's point 0 (fcfs, rate 40" "$TMPDIR_TEST/err" &&
  grep -q "remove the stale point files" "$TMPDIR_TEST/err" || fail "stale merge: $(cat "$TMPDIR_TEST/err")"
if "$DISKSCHED" sweep run "$d" -q --threads 1 2> "$TMPDIR_TEST/err"; then fail "run over stale points succeeded"; fi
grep -q "the result of another plan" "$TMPDIR_TEST/err" || fail "stale run: $(cat "$TMPDIR_TEST/err")"
# Doing what it says: the new plan's own results.
rm -r "$d/points"
"$DISKSCHED" sweep run "$d" -q --threads 1
"$DISKSCHED" sweep merge "$d" --no-plot > /dev/null
grep -q '^fcfs,fcfs,40,40,1,' "$d/sweep.csv" || fail "new plan: $(cat "$d/sweep.csv")"
# The same scheduler and seed on another device is another point.
m=$TMPDIR_TEST/m
"$DISKSCHED" sweep --model hp97560 "${common[@]}" --rates 10:30:10 -o "$m" --plan > /dev/null
"$DISKSCHED" sweep run "$m" -q --threads 1
rm "$m/sweep.json" "$m/manifest.tsv"
"$DISKSCHED" sweep --model mems "${common[@]}" --rates 10:30:10 -o "$m" --plan > /dev/null
if "$DISKSCHED" sweep merge "$m" --no-plot > /dev/null 2> "$TMPDIR_TEST/err"; then
  cmp -s "$m/sweep.csv" "$TMPDIR_TEST/low.csv" && fail "the MEMS plan merged the HP 97560's results"
  fail "the MEMS plan merged points run on the HP 97560"
fi
grep -q "the result of another plan" "$TMPDIR_TEST/err" || fail "model change: $(cat "$TMPDIR_TEST/err")"

# Point files that are not regular files: refused at once, never opened for reading.
p=$TMPDIR_TEST/p
"$DISKSCHED" sweep --model hp97560 "${common[@]}" --rates 10:30:10 -o "$p" --plan > /dev/null
"$DISKSCHED" sweep run "$p" -q --threads 1
cp "$p/points/1.json" "$TMPDIR_TEST/1.json"
rm "$p/points/1.json"
ln -s /dev/zero "$p/points/1.json"
if timeout 60 "$DISKSCHED" sweep merge "$p" --no-plot > /dev/null 2> "$TMPDIR_TEST/err"; then fail "a link to /dev/zero merged"; fi
grep -q "points/1.json' is a symbolic link, not read" "$TMPDIR_TEST/err" || fail "link: $(cat "$TMPDIR_TEST/err")"
rm "$p/points/1.json"
mkfifo "$p/points/1.json"
if timeout 60 "$DISKSCHED" sweep run "$p" -q --threads 1 2> "$TMPDIR_TEST/err"; then fail "a FIFO point accepted"; fi
grep -q "points/1.json' is a FIFO, not read" "$TMPDIR_TEST/err" || fail "FIFO: $(cat "$TMPDIR_TEST/err")"
rm "$p/points/1.json"

# Hand-edited values: file:line, and what to do.
edit() {  # edit SED-EXPRESSION EXPECTED-MESSAGE
  sed "$1" "$TMPDIR_TEST/1.json" > "$p/points/1.json"
  cmp -s "$TMPDIR_TEST/1.json" "$p/points/1.json" && fail "the edit '$1' changed nothing"
  if "$DISKSCHED" sweep merge "$p" --no-plot > /dev/null 2> "$TMPDIR_TEST/err"; then fail "edit '$1' merged"; fi
  grep -qF "$2" "$TMPDIR_TEST/err" || fail "edit '$1': $(cat "$TMPDIR_TEST/err")"
  grep -q "remove it to rerun the point" "$TMPDIR_TEST/err" || fail "edit '$1' gives no remedy: $(cat "$TMPDIR_TEST/err")"
}
line() { grep -n "\"$1\":" "$TMPDIR_TEST/1.json" | cut -d: -f1; }
edit 's/"mean_ms": [0-9.e+-]*/"mean_ms": -3.5/' "points/1.json:$(line mean_ms): mean_ms: -3.5: expected a number >= 0"
edit 's/"mean_ms": [0-9.e+-]*/"mean_ms": "fast"/' "points/1.json:$(line mean_ms): mean_ms: \"fast\""
edit 's/"requests": [0-9]*/"requests": 1.5/' "points/1.json:$(line requests): requests: expected a count"
edit 's/"rate": [0-9.]*/"rate": 25/' "points/1.json:$(line rate): rate: 25, the plan's point says 20.0"
edit '/"mean_ms"/d' "points/1.json:$(line run): run: mean_ms is missing"
edit 's/}$/,/' "not a point result (not JSON"
cp "$TMPDIR_TEST/1.json" "$p/points/1.json"
"$DISKSCHED" sweep merge "$p" --no-plot > /dev/null || fail "the restored point does not merge"
echo OK
