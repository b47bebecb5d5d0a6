#!/usr/bin/env bash
# `disksched extract` from the command line: a virtual-time extraction checked against
# its model, the NBD path against a device with no platter (a clear error, not a
# profile), a mounted device refused, and bad options named.
. "$TESTS_SRCDIR/lib.sh"
requires nbdkit
make_tmpdir
d=$TMPDIR_TEST

# 1. Virtual time: the full HP 97560 with VM-like host noise, then the check.
"$DISKSCHED" extract --virtual hp97560-full --noise vm --budget 90 --quiet -o "$d/p.json" > "$d/out" \
  || fail "virtual extraction failed: $(cat "$d/out")"
grep -q '^heads        19$' "$d/out" || fail "summary lacks the heads: $(cat "$d/out")"
"$DISKSCHED" extract check "$d/p.json" --against hp97560-full > "$d/check" || fail "check failed: $(cat "$d/check")"
grep -q '^PASS' "$d/check" || fail "check did not pass: $(cat "$d/check")"
# The profile is one the models load, and it is not the JW model (skews differ).
if "$DISKSCHED" extract check "$d/p.json" --against hp97560 > "$d/check2" 2>&1; then
  fail "a profile of hp97560-full passed as hp97560: $(cat "$d/check2")"
fi
grep -q 'track skew.*FAIL' "$d/check2" || fail "the check against the wrong model did not name the skew"

# 1b. A drive whose cache answers reads (the HP C2247A with DiskSim's cache): found, said
# on stderr and in the profile, probed around, the geometry checked; without the defeat
# the run stops and says why.
# with_drive PROFILE OUT: PROFILE with the drive blocks (cache, bus) of the bench's C2247A.
with_drive() {
  /usr/bin/python3 - "$1" "$TESTS_SRCDIR/../bench/extract/hp_c2247a-drive.json" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p.update(json.load(open(sys.argv[2]))); json.dump(p, open(sys.argv[3], "w"))
PY
}
with_drive "$TESTS_SRCDIR/validate/data/hp_c2247a-hand.json" "$d/c2247a-cache.json"
"$DISKSCHED" extract --virtual "$d/c2247a-cache.json" --budget 240 -o "$d/c.json" > "$d/c.out" 2> "$d/c.err" \
  || fail "extraction through the cache failed: $(cat "$d/c.err")"
grep -q '^extract: drive cache found: read cache' "$d/c.err" || fail "no cache finding on stderr: $(head -3 "$d/c.err")"
/usr/bin/python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["source"]["cache"]; sys.exit(not (c["read_cache"] and c["read_ahead"] and c["defeated"]))' "$d/c.json" \
  || fail "the profile's source.cache does not say what was found"
"$DISKSCHED" extract check "$d/c.json" --against "$TESTS_SRCDIR/validate/data/hp_c2247a-hand.json" > "$d/ccheck" \
  || fail "check through the cache failed: $(cat "$d/ccheck")"
if "$DISKSCHED" extract --virtual "$d/c2247a-cache.json" --no-cache-defeat --budget 60 --quiet -o "$d/c2.json" > "$d/c2.out" 2>&1; then
  fail "--no-cache-defeat extracted through the cache"
fi
grep -q 'that is a cache answering' "$d/c2.out" || fail "--no-cache-defeat: unclear error: $(cat "$d/c2.out")"

# 1c. The drive as `model import` reads DiskSim's files, with that cache, behind a host
# that completes late (`--noise late`): seeds that each stopped an extraction before,
# each now within every tolerance. 27: the period step's median gap fell between the one-
# and two-revolution re-reads. 38: the cache check took read-ahead hits for misses, and
# the defeat's window of 0 left every probe a hit. 39: a zone's first track skew read off
# one late switch (the zone's slip search failed). 40: two late hits counted one evicting
# read for two. And `--noise busy` seed 105: the first tracks' scan lost one of its two
# boundaries to noise, read as a disk without visible skews, and took one head.
"$DISKSCHED" model import "$TESTS_SRCDIR/data/disksim-valid/hp_c2247a.parv" -o "$d/plat.json" \
  > /dev/null 2>&1 || fail "model import failed"
with_drive "$d/plat.json" "$d/imp.json"
for run in late:27 late:38 late:39 late:40 busy:105; do
  noise=${run%:*} seed=${run#*:}
  "$DISKSCHED" extract --virtual "$d/imp.json" --noise "$noise" --budget 900 --seed "$seed" --quiet \
    -o "$d/$noise$seed.json" > "$d/$noise$seed.out" 2>&1 \
    || fail "$noise seed $seed: $(tail -n 1 "$d/$noise$seed.out")"
  "$DISKSCHED" extract check "$d/$noise$seed.json" --against "$d/plat.json" > "$d/$noise$seed.check" \
    || fail "$noise seed $seed: $(grep FAIL "$d/$noise$seed.check")"
done

# 1d. Honest exit status: a budget too short to search every zone used to exit 0 with
# the rest of the device taken for one zone. Now no profile, a non-zero exit naming what
# failed and the flag that fixes it; --partial writes it, marked partial, still non-zero.
if "$DISKSCHED" extract --virtual "$d/imp.json" --budget 60 --quiet -o "$d/short.json" > "$d/short.out" 2>&1; then
  fail "a 60 s budget over the C2247A's zones exited 0: $(tail -n 3 "$d/short.out")"
fi
grep -q 'FAILED: zones: measured to LBA .*--budget 120' "$d/short.out" || fail "the failure does not say what and how to fix it: $(cat "$d/short.out")"
[ ! -e "$d/short.json" ] || fail "a profile that failed its checks was written without --partial"
if "$DISKSCHED" extract --virtual "$d/imp.json" --budget 60 --quiet --partial -o "$d/short.json" > "$d/short.out" 2>&1; then
  fail "--partial with a failed check exited 0"
fi
/usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["source"]; sys.exit(not (s["partial"] is True and s["failures"][0].startswith("zones:") and s["parameters"]["zones"].startswith("measured to LBA")))' "$d/short.json" \
  || fail "the partial profile does not say it is partial and why"

# 2. Through NBD, a memory export has no platter: a clear error, no profile.
if nbdkit -U "$(nbdkit_sock)" memory size=64M --run "'$DISKSCHED' extract --nbd \"\$uri\" --budget 20 --quiet -o '$d/mem.json'" \
     > "$d/mem.out" 2>&1; then
  fail "extraction from a memory export succeeded: $(cat "$d/mem.out")"
fi
grep -Eq 'cache|does not rotate|no rotation' "$d/mem.out" || fail "unclear error: $(cat "$d/mem.out")"
[ ! -e "$d/mem.json" ] || fail "a profile was written for a device without a geometry"
# With default flags it says at which priority it probes (SCHED_FIFO where permitted).
grep -Eq 'note: probing at (real-time priority \(SCHED_FIFO 10|normal priority: SCHED_FIFO is not permitted)' "$d/mem.out" \
  || fail "no note on the probing priority: $(cat "$d/mem.out")"

# 3. The root file system's device, if it is a block device, is refused as in use.
root_dev=$(awk '$5 == "/" { for (i = 7; i <= NF; i++) if ($i == "-") { print $(i + 2); exit } }' /proc/self/mountinfo)
if [ -b "$root_dev" ]; then
  if "$DISKSCHED" extract --device "$root_dev" --budget 5 -o "$d/root.json" > "$d/root.out" 2>&1; then
    fail "extraction of the mounted $root_dev was not refused"
  fi
  grep -q "in use (mounted on /" "$d/root.out" || fail "refusal does not say why: $(cat "$d/root.out")"
else
  echo "note: root is not on a block device here ($root_dev); mounted-device check not exercised"
fi

# 4. Bad options are named.
expect_error() {  # expect_error PATTERN ARGS...
  local pat=$1; shift
  if "$DISKSCHED" extract "$@" > "$d/err" 2>&1; then fail "extract $* succeeded"; fi
  grep -q -- "$pat" "$d/err" || fail "extract $*: expected '$pat' in: $(cat "$d/err")"
}
expect_error "exactly one of" --virtual hp97560 --nbd nbd://x -o "$d/x.json"
expect_error "-o PROFILE.json" --virtual hp97560
expect_error "OFFSET:LENGTH" --virtual hp97560 --allow-writes 4096 -o "$d/x.json"
expect_error "multiples" --virtual hp97560 --allow-writes 100:512 -o "$d/x.json"
expect_error "--seek-form 'cubic'" --virtual hp97560 --seek-form cubic -o "$d/x.json"
expect_error "--budget" --virtual hp97560 --budget 0 -o "$d/x.json"
expect_error "--rt-priority 120" --virtual hp97560 --rt-priority 120 -o "$d/x.json"
expect_error "--rt-priority fast: expected auto" --virtual hp97560 --rt-priority fast -o "$d/x.json"
expect_error "--noise .noisy.: expected none, vm, late or busy" --virtual hp97560 --noise noisy -o "$d/x.json"
echo "ok"
