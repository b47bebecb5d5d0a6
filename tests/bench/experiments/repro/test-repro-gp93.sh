#!/usr/bin/env bash
# `disksched repro gp93`: the claim table, the winners table and GP's tables as CSV; the
# same bytes on a second run (one deterministic run per configuration).
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
d=$TMPDIR_TEST

"$DISKSCHED" repro gp93 -o "$d/a" --reps 2 --no-plot -q > "$d/a.txt" || fail "repro gp93 failed"
"$DISKSCHED" repro gp93 -o "$d/b" --reps 2 --no-plot -q --threads 1 > /dev/null || fail "repro gp93 --threads 1 failed"
cmp -s "$d/a/table.csv" "$d/b/table.csv" || fail "table.csv differs between runs (or thread counts)"
rows=$(grep -c '^| [0-9]' "$d/a/claims.md")
[ "$rows" -eq 17 ] || fail "claims.md has $rows claims, expected 17"
grep -q 'ranked by' "$d/a/winners.md" || fail "winners.md lacks its table"
grep -q 'winner by execution time' "$d/a.txt" || fail "the winners are not printed"
head -1 "$d/a/table.csv" | grep -q 'execution_ms,false_idle_ms,context_switches' || fail "table.csv header"
[ "$(wc -l < "$d/a/timeouts.csv")" -gt 30 ] || fail "timeouts.csv is short"

# `disksched flow`: one run of a workload spec; a bad key is named with what is valid.
"$DISKSCHED" flow --workload 'flow:procs=1,file=2m,cache=1m' --sched clook > "$d/flow.txt" || fail "flow failed"
grep -q 'execution time (ms)' "$d/flow.txt" || fail "flow prints no execution time"
grep -Eq 'limited requests +511$' "$d/flow.txt" || fail "flow: 512 blocks should give 511 TL reads: $(cat "$d/flow.txt")"
if "$DISKSCHED" flow --workload 'gp93:cache=8' 2> "$d/err.txt"; then fail "cache=8 (under a block) accepted"; fi
"$DISKSCHED" flow --workload 'gp93:daemon=1' 2> "$d/err.txt" && fail "daemon=1 without a unit accepted"
grep -q "daemon" "$d/err.txt" && grep -q "1ms" "$d/err.txt" || fail "the error does not say how to write it: $(cat "$d/err.txt")"
# DN's sweep in the process-flow model, decisions free, 1 ns and as measured.
"$DISKSCHED" repro dn13-flow -o "$d/dn" --quick --no-plot -q > "$d/dn.txt" || fail "repro dn13-flow failed"
[ "$(grep -c '^| [0-9]' "$d/dn/claims.md")" -eq 11 ] || fail "dn13-flow claims.md: $(cat "$d/dn/claims.md")"
[ "$(grep -c '^measured,' "$d/dn/threshold_sweep_flow.csv")" -eq 10 ] || fail "dn13-flow sweep rows"
echo "repro gp93: 17 claims, deterministic; flow runs and names bad keys"
