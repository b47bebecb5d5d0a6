#!/usr/bin/env bash
# Installs what disksched needs on Debian 12 (as root, only what is missing), then
# configures and builds it with Meson in ./build. Safe to run again; when everything is
# installed it makes no network call, so it works offline.
#
#   tools/setup.sh           check, install what is missing, build
#   tools/setup.sh --check   only check; exit 1 and name what is missing
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
check_only=0
case ${1:-} in
  --check) check_only=1 ;;
  "") ;;
  *) echo "setup: unknown option '$1' (valid: --check)" >&2; exit 1 ;;
esac

packages=(
  meson ninja-build g++ pkg-config
  nbdkit nbdkit-plugin-dev libnbd-dev libnbd-bin python3-libnbd fuse3
  liburing-dev libsgutils2-dev sg3-utils
  catch2 libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev libboost-math-dev
  fio e2fsprogs python3-matplotlib util-linux
  clang-15 libfuzzer-15-dev
  parallel python3-prometheus-client
)
# Names that are virtual packages on Debian 12 (dpkg never lists them as installed):
# checked by the file they stand for; COMMAND-OR-FILE:PACKAGE-THAT-PROVIDES-IT.
provided=(
  /usr/bin/nbdfuse:libnbd-bin
)

missing=()
installed=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "${packages[@]}" 2>/dev/null || true)
for p in "${packages[@]}"; do
  # ii: installed; hi: installed and held.
  awk -v p="$p" '$1 == p && $2 ~ /^[ih]i$/ {found = 1} END {exit !found}' <<<"$installed" \
    || missing+=("$p")
done
for entry in "${provided[@]}"; do
  file=${entry%%:*} pkg=${entry##*:}
  [ -e "$file" ] || [[ " ${missing[*]} " == *" $pkg "* ]] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$check_only" = 1 ] || [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}; as root: apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q "${missing[@]}" >/dev/null
fi
[ "$check_only" = 1 ] && { echo "setup: every package is installed"; exit 0; }

if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build
