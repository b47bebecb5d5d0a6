#!/usr/bin/env bash
# `disksched repro gp93`: the claim table, the winners table and GP's tables as CSV; the
# same bytes on a second run (one deterministic run per configuration).
. "$TESTS_SRCDIR/lib.sh"
make_tmpdir
d=$TMPDIR_TEST

"$DISKSCHED" repro gp93 -o "$d/a" --no-plot -q > "$d/a.txt" || fail "repro gp93 failed"
"$DISKSCHED" repro gp93 -o "$d/b" --no-plot -q --threads 1 > /dev/null || fail "repro gp93 --threads 1 failed"
cmp -s "$d/a/table.csv" "$d/b/table.csv" || fail "table.csv differs between runs (or thread counts)"
rows=$(grep -c '^| [0-9]' "$d/a/claims.md")
[ "$rows" -eq 17 ] || fail "claims.md has $rows claims, expected 17"
grep -q 'ranked by' "$d/a/winners.md" || fail "winners.md lacks its table"
grep -q 'winner by execution time' "$d/a.txt" || fail "the winners are not printed"
head -1 "$d/a/table.csv" | grep -q 'execution_ms,false_idle_ms,context_switches' || fail "table.csv header"
[ "$(wc -l < "$d/a/timeouts.csv")" -gt 30 ] || fail "timeouts.csv is short"
echo "repro gp93: 17 claims, deterministic"
