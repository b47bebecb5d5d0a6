#!/usr/bin/env bash
# Every NBD command with every flag combination a client can send (libnbd's strict
# checks off), against each plugin alone and under the filter: a request may fail, the
# server must not (nbdkit 1.32 aborted on a FAST_ZERO nobody advertised). A fast zero is
# (with only valid flags beside it) done or refused with ENOTSUP, and the filter answers exactly what its plugin answers.
. "$TESTS_SRCDIR/lib.sh"
requires_filter_client
make_tmpdir
here="$TESTS_SRCDIR/daemon/filter"
img="$TMPDIR_TEST/disk.img"
truncate -s 16M "$img"

configs=(memory "memory 16M")
[ -n "${DISKEMU_PLUGIN:-}" ] && configs+=(diskemu "$DISKEMU_PLUGIN model=hp97560 timescale=0.01")
[ -n "${URING_PLUGIN:-}" ] && configs+=(uring "$URING_PLUGIN file=$img fallback=pread")

sweep() {  # OUT NBDKIT-ARGS...
  local out=$1; shift
  nbdkit -U "$(nbdkit_sock)" "$@" --run "/usr/bin/python3 '$here/command_flags.py' \"\$uri\" > '$out'" \
    2> "$out.err" || { cat "$out.err" >&2; fail "nbdkit $* died or the sweep failed"; }
  # 7 commands x 64 flag combinations.
  [ "$(wc -l < "$out")" -eq 448 ] || fail "nbdkit $*: $(wc -l < "$out") outcomes, not 448"
  if grep -E '^zero (fua\+)?(no_hole\+)?fast_zero ' "$out" | grep -vE ' (ok|error errno=95)$'; then
    fail "nbdkit $*: a fast zero neither done nor refused with ENOTSUP"
  fi
}

for ((i = 0; i < ${#configs[@]}; i += 2)); do
  name=${configs[i]}
  read -r -a args <<<"${configs[i + 1]}"
  echo "== $name"
  sweep "$TMPDIR_TEST/$name.plain" "${args[@]}"
  sweep "$TMPDIR_TEST/$name.filter" --filter="$DISKSCHED_FILTER" "${args[@]}"
  diff "$TMPDIR_TEST/$name.plain" "$TMPDIR_TEST/$name.filter" \
    || fail "$name: the filter answers differently from the plugin"
  echo "$name: $(grep -c ' ok$' "$TMPDIR_TEST/$name.plain") of 448 served, the rest refused; server up"
done
