#!/usr/bin/env bash
# Install what Sinew needs to build, run and test, from Debian 12's packages only.
# Set SINEW_SKIP_INSTALL=1 to skip (for a machine that already has them).
set -euo pipefail

if [[ "${SINEW_SKIP_INSTALL:-0}" == "1" ]]; then
  echo "install-deps: skipped (SINEW_SKIP_INSTALL=1)"
  exit 0
fi

packages=(
  # build
  build-essential cmake ninja-build pkg-config
  # core tests
  libcmocka-dev
  # fuzzing (libFuzzer ships with clang) and LeakSanitizer runtime
  clang libclang-rt-14-dev
  # wire protocol and server
  libuv1-dev libwebsockets-dev libwebsockets-evlib-uv nanopb libnanopb-dev protobuf-compiler
  # model import
  libexpat1-dev
  # python client
  python3 python3-protobuf python3-pytest python3-numpy
  # script checks
  shellcheck
)

sudo_cmd=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo_cmd=(sudo)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
