#!/usr/bin/env bash
# Installs what disksched needs on Debian 12 (as root, only what is missing), then
# configures and builds it with Meson in ./build. Safe to run again.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"

packages=(
  meson ninja-build g++ pkg-config
  nbdkit nbdkit-plugin-dev libnbd-dev libnbd-bin python3-libnbd nbdfuse fuse3
  liburing-dev libsgutils2-dev sg3-utils
  catch2 libbenchmark-dev libcli11-dev nlohmann-json3-dev libfmt-dev libboost-math-dev
  fio e2fsprogs python3-matplotlib util-linux
  clang-15 libfuzzer-15-dev
  parallel python3-prometheus-client
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages: ${missing[*]}; run as root or: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q "${missing[@]}" >/dev/null
fi

if [ ! -f build/build.ninja ]; then
  meson setup build >/dev/null
fi
ninja -C build
