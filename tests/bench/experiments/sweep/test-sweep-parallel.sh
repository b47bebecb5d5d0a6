#!/usr/bin/env bash
# README's GNU parallel recipe, run as written (local jobs) on a small grid: every point
# succeeds in the job log, a second run with --resume-failed has nothing to redo, and
# the merged sweep.csv equals a single-process sweep's.
. "$TESTS_SRCDIR/lib.sh"
requires parallel
make_tmpdir
d=$TMPDIR_TEST
# The recipe's paths, relative to a checkout with a build.
mkdir -p "$d/build/tools"
ln -s "$DISKSCHED" "$d/build/tools/disksched"
cd "$d"

build/tools/disksched sweep --sched fcfs --sched sstf --rates 20,40 --reps 2 --requests 300 \
  --warmup 100 -o one --no-plot -q --threads 1 > /dev/null

# --- the recipe (README "Sweeps across processes and machines") ---
build/tools/disksched sweep --sched fcfs --sched sstf --rates 20,40 --reps 2 --requests 300 \
  --warmup 100 -o sw --plan
tail -n +2 sw/manifest.tsv | cut -f1 | \
  parallel --joblog sw/joblog --resume-failed build/tools/disksched sweep run sw --point {} --threads 1 -q
build/tools/disksched sweep merge sw --no-plot
# --- end of recipe ---

[ "$(tail -n +2 sw/joblog | wc -l)" -eq 8 ] || fail "joblog: $(cat sw/joblog)"
awk -F'\t' 'NR > 1 && $7 != 0 { bad = 1 } END { exit bad }' sw/joblog || fail "failed jobs: $(cat sw/joblog)"
tail -n +2 sw/manifest.tsv | cut -f1 | \
  parallel --joblog sw/joblog --resume-failed build/tools/disksched sweep run sw --point {} --threads 1 -q
[ "$(tail -n +2 sw/joblog | wc -l)" -eq 8 ] || fail "--resume-failed reran done jobs: $(cat sw/joblog)"
cmp one/sweep.csv sw/sweep.csv || fail "merged sweep.csv differs from the single-process one"
echo "OK"
