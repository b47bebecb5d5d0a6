#!/usr/bin/env bash
# A sweep planned as independent points, run as shards (in any order, twice) and
# merged, writes the same sweep.csv and sustained-rate table as one process, byte for
# byte, saturation skips included; bad shards, stale plans and unfinished merges fail
# with messages saying what to do.
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
d=$TMPDIR_TEST

# FCFS saturates at 50 requests/s on the HP 97560, so its 70 is skipped.
grid=(--model hp97560 --sched fcfs --sched satf --rates 30:70:20 --reps 3 --requests 600 --warmup 100)
"$DISKSCHED" sweep "${grid[@]}" -o "$d/one" --no-plot -q --threads 2 > /dev/null
grep -q '^fcfs,fcfs,70,70,0,1,' "$d/one/sweep.csv" || fail "the grid does not exercise the saturation skip: $(cat "$d/one/sweep.csv")"

"$DISKSCHED" sweep "${grid[@]}" -o "$d/sharded" --plan > "$d/plan.out"
grep -q "18 points" "$d/plan.out" || fail "plan: $(cat "$d/plan.out")"
[ "$(wc -l < "$d/sharded/manifest.tsv")" -eq 19 ] || fail "manifest lines: $(cat "$d/sharded/manifest.tsv")"
head -1 "$d/sharded/manifest.tsv" | grep -q $'^id\tseries\tsched\tx\trate\trep\tseed$' || fail "manifest header"

# Merging before every point is done names what is missing and how to run it.
"$DISKSCHED" sweep run "$d/sharded" --shard 1/3 -q --threads 1
if "$DISKSCHED" sweep merge "$d/sharded" --no-plot 2> "$d/err" > /dev/null; then fail "merge of an unfinished sweep succeeded"; fi
grep -q "have no result yet" "$d/err" && grep -q "disksched sweep run $d/sharded" "$d/err" || fail "merge error: $(cat "$d/err")"

# The rest, last shard first; then shard 0 again: nothing left to run.
"$DISKSCHED" sweep run "$d/sharded" --shard 2/3 -q --threads 1
"$DISKSCHED" sweep run "$d/sharded" --shard 0/3 -q --threads 1
"$DISKSCHED" sweep run "$d/sharded" --shard 0/3 --threads 1 2> /dev/null > "$d/again.out"
grep -q "^0 of 6 point(s) run" "$d/again.out" || fail "rerun of a done shard: $(cat "$d/again.out")"
ls "$d/sharded/points" | grep -q tmp && fail "temporary files left behind: $(ls "$d/sharded/points")"

"$DISKSCHED" sweep merge "$d/sharded" --no-plot > /dev/null
cmp "$d/one/sweep.csv" "$d/sharded/sweep.csv" || fail "sharded+merged sweep.csv differs from the single-process one"
cmp "$d/one/sustained.csv" "$d/sharded/sustained.csv" || fail "sustained.csv differs"
cmp "$d/one/sustained.txt" "$d/sharded/sustained.txt" || fail "sustained.txt differs"

# One process in id order: the points above FCFS's saturated rate are not run at all.
"$DISKSCHED" sweep "${grid[@]}" -o "$d/inorder" --plan > /dev/null
"$DISKSCHED" sweep run "$d/inorder" --threads 1 2> /dev/null > "$d/inorder.out"
ran=$(( $(awk -F, 'NR > 1 && $5 == 1' "$d/one/sweep.csv" | wc -l) * 3 ))
grep -q "^$ran of 18 point(s) run" "$d/inorder.out" || fail "in-order run: $(cat "$d/inorder.out"), expected $ran run"
[ ! -e "$d/inorder/points/6.json" ] || fail "FCFS at 70/s ran after 50/s saturated"
"$DISKSCHED" sweep merge "$d/inorder" --no-plot > /dev/null
cmp "$d/one/sweep.csv" "$d/inorder/sweep.csv" || fail "in-order merged sweep.csv differs"

# A parameter sweep, one point at a time by id.
pgrid=(--model hp97560 --sched 'asatf:w={}' --values 0,30 --rate 50 --reps 2 --requests 300 --warmup 100)
"$DISKSCHED" sweep "${pgrid[@]}" -o "$d/p1" --no-plot -q --threads 1 > /dev/null
"$DISKSCHED" sweep "${pgrid[@]}" -o "$d/p2" --plan > /dev/null
for id in 3 1 2 0; do "$DISKSCHED" sweep run "$d/p2" --point "$id" -q --threads 1; done
"$DISKSCHED" sweep merge "$d/p2" --no-plot > /dev/null
cmp "$d/p1/sweep.csv" "$d/p2/sweep.csv" || fail "parameter sweep: merged sweep.csv differs"

# Errors that say what was wrong and how to say it right.
if "$DISKSCHED" sweep run "$d/p2" --shard 4/4 2> "$d/err"; then fail "shard 4/4 accepted"; fi
grep -q "expected I/N with 0 <= I < N" "$d/err" || fail "shard error: $(cat "$d/err")"
if "$DISKSCHED" sweep run "$d/p2" --point 4 2> "$d/err"; then fail "point 4 of 0..3 accepted"; fi
grep -q "points 0 to 3" "$d/err" || fail "point error: $(cat "$d/err")"
if "$DISKSCHED" sweep "${pgrid[@]}" --seed 2 -o "$d/p2" --plan 2> "$d/err"; then fail "a second plan in one directory accepted"; fi
grep -q "already holds another sweep plan" "$d/err" || fail "plan error: $(cat "$d/err")"
if "$DISKSCHED" sweep run "$d/nothing" 2> "$d/err"; then fail "run without a plan accepted"; fi
grep -q "holds no sweep plan" "$d/err" || fail "no-plan error: $(cat "$d/err")"
echo "OK"
