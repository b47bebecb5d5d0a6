#!/usr/bin/env bash
# `disksched export`: each format's output is what its tool reads (fio's own parser checks
# the job file), the error table is on stderr, bad input fails with a clear message.
. "$TESTS_SRCDIR/lib.sh"
work=$(mktemp -d)
at_exit 'rm -rf "$work"'
ds=$DISKSCHED

"$ds" export iocost hp97560 --requests 300 --dev 8:16 >"$work/iocost" 2>"$work/iocost.err"
grep -Eq '^8:16 ctrl=user model=linear rbps=[0-9]+ rseqiops=[0-9]+ rrandiops=[0-9]+ wbps=[0-9]+ wseqiops=[0-9]+ wrandiops=[0-9]+$' \
  "$work/iocost" || fail "no io.cost.model line: $(cat "$work/iocost")"
grep -q 'rrandiops = [0-9]*  from randread 4k QD64' "$work/iocost" || fail "no basis for rrandiops"
grep -q 'mean |error|:  QD1 [0-9]*%  QD8 [0-9]*%  QD32 [0-9]*%' "$work/iocost.err" ||
  fail "no error summary on stderr: $(cat "$work/iocost.err")"
# The HP 97560 has no command queue: random reads at any depth cost the same.
"$ds" export iocost hp97560 --requests 300 --json >"$work/iocost.json"
/usr/bin/python3 - "$work/iocost.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
assert j["drive_queue"] == 1, j["drive_queue"]
fit = {f["load"]: f for f in j["fit"]}
assert len(fit) == 36, len(fit)
r1, r32 = fit["randread 4k QD1"]["sim_iops"], fit["randread 4k QD32"]["sim_iops"]
assert abs(r32 / r1 - 1) < 0.1, (r1, r32)
PY

"$ds" export mclock sata7200-8tb --requests 300 -q >"$work/mclock" 2>"$work/mclock.err"
grep -Eq '^osd_mclock_max_capacity_iops_hdd = [0-9.]+$' "$work/mclock" || fail "mclock: $(cat "$work/mclock")"
grep -Eq '^osd_mclock_max_sequential_bandwidth_hdd = [0-9]+$' "$work/mclock" || fail "mclock bandwidth"
grep -q '(drive queue 32)' "$work/mclock" || fail "a drive of today should default to its 32-command queue"
[ ! -s "$work/mclock.err" ] || fail "-q still printed: $(cat "$work/mclock.err")"

"$ds" export seastar laptop5400-320gb --requests 300 --mountpoint /srv/data >"$work/seastar" 2>/dev/null
for k in read_iops read_bandwidth write_iops write_bandwidth; do
  grep -Eq "^    $k: [0-9]+$" "$work/seastar" || fail "seastar: no $k: $(cat "$work/seastar")"
done
grep -q 'mountpoint: /srv/data' "$work/seastar" || fail "seastar mountpoint"

"$ds" export fio sas15k-600gb --requests 300 --filename /dev/sdz >"$work/job.fio" 2>/dev/null
grep -q '^filename=/dev/sdz$' "$work/job.fio" || fail "fio filename"
[ "$(grep -c '^\[' "$work/job.fio")" = 7 ] || fail "fio: expected [global] and 6 jobs"
if command -v fio >/dev/null; then
  fio --parse-only "$work/job.fio" >/dev/null 2>"$work/fio.err" || fail "fio refuses the job file: $(cat "$work/fio.err")"
fi

if "$ds" export bfq hp97560 >/dev/null 2>"$work/bad"; then fail "an unknown format was accepted"; fi
grep -q "unknown export format 'bfq': expected iocost, mclock, seastar or fio" "$work/bad" || fail "$(cat "$work/bad")"
if "$ds" export iocost hp97560 --drive-queue 0 >/dev/null 2>"$work/bad"; then fail "--drive-queue 0 accepted"; fi
grep -q -- "--drive-queue 0: expected 'auto' or a number of commands from 1 to 256" "$work/bad" || fail "$(cat "$work/bad")"
if "$ds" export iocost nosuchdrive >/dev/null 2>"$work/bad"; then fail "an unknown model was accepted"; fi
echo "export: all formats ok"
