#!/usr/bin/env bash
# uring: bad keys and values stop start-up with a message naming them; where io_uring is
# unavailable (here: a seccomp filter like a container runtime's, see no_uring.cpp)
# start-up fails saying so and how to check, unless fallback=pread, which then serves.
# Usage: test-uring-config.sh PATH-TO-no_uring
set -euo pipefail
. "${TESTS_SRCDIR:?is not set: run through meson test}/lib.sh"
requires nbdkit
[ -n "${URING_PLUGIN:-}" ] || skip "URING_PLUGIN is not set (plugin not built)"
NO_URING=${1:?usage: $0 PATH-TO-no_uring}
make_tmpdir
T=$TMPDIR_TEST
P=$URING_PLUGIN
truncate -s 16M "$T/disk.img"

expect_start_failure "file= parameter is required" "$P"
expect_start_failure "$T/nope.img" "$P" file="$T/nope.img"
expect_start_failure "direct=perhaps" "$P" file="$T/disk.img" direct=perhaps
expect_start_failure "fallback=mmap" "$P" file="$T/disk.img" fallback=mmap
expect_start_failure "entries=100" "$P" file="$T/disk.img" entries=100
expect_start_failure "buffers=0" "$P" file="$T/disk.img" buffers=0
expect_start_failure "buffer-size=1000" "$P" file="$T/disk.img" buffer-size=1000
expect_start_failure "poll-us=9999" "$P" file="$T/disk.img" poll-us=9999
expect_start_failure "unknown parameter 'direkt'" "$P" file="$T/disk.img" direkt=true
expect_start_failure "not a regular file or block device" "$P" file=/dev/null

help=$(nbdkit "$P" --help)
for key in file= direct= fallback= entries= buffers= buffer-size= poll-us= nowait-reads=; do
  grep -qF -- "$key" <<<"$help" || fail "--help does not document $key"
done

# Without io_uring.
rc=0
out=$("$NO_URING" true 2>&1) || rc=$?
[ "$rc" -ne 77 ] || skip "cannot install a seccomp filter here: $out"
expect_failure "sysctl kernel.io_uring_disabled" \
  "$NO_URING" nbdkit -U "$(nbdkit_sock)" "$P" file="$T/disk.img" --run 'exit 0'
out=$("$NO_URING" nbdkit -U "$(nbdkit_sock)" "$P" file="$T/disk.img" --run 'exit 0' 2>&1) || true
grep -q "io_uring is not available" <<<"$out" || fail "the message does not say io_uring is unavailable: $out"
grep -q "fallback=pread" <<<"$out" || fail "the message does not offer fallback=pread: $out"
grep -q "seccomp" <<<"$out" || fail "the message does not mention seccomp: $out"

cat > "$T/rw.py" <<'PY'
import nbd
h.pwrite(b"fallback" * 512, 4096, nbd.CMD_FLAG_FUA)
h.flush()
assert h.pread(4096, 4096) == b"fallback" * 512
print("fallback=pread serves")
PY
for direct in false true; do
  "$NO_URING" nbdkit -U "$(nbdkit_sock)" -v "$P" file="$T/disk.img" fallback=pread direct=$direct \
    --run "PATH=/usr/bin:\$PATH nbdsh -u \"\$uri\" -c 'exec(open(\"$T/rw.py\").read())'" \
    2> "$T/fb.txt" || { cat "$T/fb.txt" >&2; fail "fallback=pread direct=$direct"; }
  grep -q "serving with pread/pwrite (fallback=pread)" "$T/fb.txt" || fail "no fallback note"
  grep -q "engine pread" "$T/fb.txt" || fail "not served by the pread engine"
done
# And with io_uring available, fallback=pread changes nothing.
nbdkit -U "$(nbdkit_sock)" -v "$P" file="$T/disk.img" fallback=pread --run true 2> "$T/ok.txt"
grep -q "engine io_uring" "$T/ok.txt" || fail "fallback=pread used although io_uring works"
echo PASS
