#!/usr/bin/env bash
# Every fuzz target under libFuzzer for a few seconds (ninja fuzz-short): a quick look
# for new crashes beside the fuzz-corpus-* tests, which replay the known inputs.
# Sets up the clang build directory the README names on first use (build-fuzz in the
# source tree, or $DISKSCHED_FUZZ_BUILD); later runs rebuild only what changed.
# Skips without clang-15 and libFuzzer.
# DISKSCHED_FUZZ=0 skips it (the first clang build of the fuzz targets takes minutes).
. "$TESTS_SRCDIR/lib.sh"
[ "${DISKSCHED_FUZZ:-1}" != 0 ] || skip "DISKSCHED_FUZZ=0"
requires clang++-15
ls /usr/lib/llvm-15/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  skip "libFuzzer is not installed (apt-get install libfuzzer-15-dev; tools/setup.sh does)"
fuzz_build=${DISKSCHED_FUZZ_BUILD:-$(cd "$TESTS_SRCDIR/.." && pwd)/build-fuzz}
if [ ! -f "$fuzz_build/build.ninja" ]; then
  cc_launcher=$(command -v ccache || true)
  CXX="${cc_launcher:+$cc_launcher }clang++-15" CC="${cc_launcher:+$cc_launcher }clang-15" \
    meson setup "$fuzz_build" "$TESTS_SRCDIR/.." -Dfuzz=true -Db_sanitize=address,undefined \
      -Db_lundef=false >/dev/null || fail "meson setup of $fuzz_build failed"
fi
ninja -C "$fuzz_build" -j2 fuzz >/dev/null || fail "building the fuzz targets failed: ninja -C $fuzz_build fuzz"
ninja -C "$fuzz_build" fuzz-short
