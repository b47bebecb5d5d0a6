#!/usr/bin/env bash
# Builds a DiskSim 4.0 source tree, as CMU released it (not part of this project; get it
# yourself and keep its COPYING), for the scripts here that run DiskSim itself
# (disksim-rms.sh, disksim-readahead-check.sh, disksim-cases.sh):
#
#   bash bench/validate/build-disksim.sh DISKSIM_SRC
#   export DISKSIM_SRC    # the scripts take the tree from it
#
# DiskSim 4.0 is 32-bit C of 2008: it is built with gcc -m32 (its published figures come
# from x87 arithmetic; on Debian: apt-get install bison flex gcc-multilib), as old C
# (-std=gnu89 -fcommon, the implicit declarations it has let through) and with -lm last
# on every link (two of its makefiles leave it out). Nothing in the tree is changed: the
# flags go in through a compiler wrapper made in DISKSIM_SRC/.disksched-cc. memsmodel's
# test programs are not needed and may fail to link; the library is.
set -euo pipefail
src=${1:-${DISKSIM_SRC:-}}
[ -n "$src" ] && [ -f "$src/src/disksim_main.c" ] || {
  echo "usage: build-disksim.sh DISKSIM_SRC (a DiskSim 4.0 source tree: src/disksim_main.c)" >&2
  exit 1
}
for t in bison flex; do
  command -v "$t" > /dev/null || { echo "build-disksim.sh: $t is needed (apt-get install $t)" >&2; exit 1; }
done
echo 'int main(void) { return 0; }' | gcc -m32 -x c -o /dev/null - 2> /dev/null ||
  { echo "build-disksim.sh: gcc -m32 cannot link (apt-get install gcc-multilib)" >&2; exit 1; }
cc_dir=$src/.disksched-cc
mkdir -p "$cc_dir"
cat > "$cc_dir/gcc" <<'CC'
#!/bin/sh
exec /usr/bin/gcc -m32 -std=gnu89 -fcommon -Wno-implicit-function-declaration \
  -Wno-int-conversion -Wno-incompatible-pointer-types "$@" -lm
CC
chmod +x "$cc_dir/gcc"
ln -sf gcc "$cc_dir/cc"
export PATH=$cc_dir:$PATH
cd "$src"
log=$src/.disksched-cc/build.log
# One directory at a time (its makefiles race under -j), in the order its Makefile has.
for d in libddbg libparam diskmodel; do make -C "$d" >> "$log" 2>&1; done
make -k -C memsmodel >> "$log" 2>&1 || true
[ -f memsmodel/lib/libmemsmodel.a ] || { echo "memsmodel did not build: see $log" >&2; exit 1; }
make -C src >> "$log" 2>&1 || { echo "DiskSim did not build: see $log" >&2; exit 1; }
echo "built $src/src/disksim and $src/src/rms (log: $log)"
