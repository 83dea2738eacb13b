#!/usr/bin/env bash
# Install what Sinew needs to build, run and test, from Debian 12's packages only.
#   bash scripts/install-deps.sh                everything (what CI and the benchmarks use)
#   bash scripts/install-deps.sh --build-only   only what building and running sinewd need (run.sh, the
#                                               container image's build stage)
# Set SINEW_SKIP_INSTALL=1 to skip (for a machine that already has them).
# The dashboard's JavaScript packages come from the npm registry at build time (npm ci, pinned by
# clients/web/package-lock.json), not from here.
set -euo pipefail

if [[ "${SINEW_SKIP_INSTALL:-0}" == "1" ]]; then
  echo "install-deps: skipped (SINEW_SKIP_INSTALL=1)"
  exit 0
fi
mode="${1:-all}"
case "$mode" in
  all|--build-only) ;;
  *) echo "install-deps: unknown argument '$mode' (none or --build-only)" >&2; exit 2 ;;
esac

packages=(
  # build
  build-essential cmake ninja-build pkg-config ca-certificates
  # core tests (built with the release flavour)
  libcmocka-dev
  # wire protocol and server
  libuv1-dev libwebsockets-dev libwebsockets-evlib-uv nanopb libnanopb-dev protobuf-compiler
  # SHA-256 content addresses of model assets and meshes (libcrypto; libwebsockets-dev depends on it too)
  libssl-dev
  # model import: URDF (expat) and its mesh files, STL, OBJ and DAE (assimp's C API)
  libexpat1-dev libassimp-dev
)
# The dashboard is bundled with node and npm. A machine that has them from elsewhere (a newer node) keeps
# them; otherwise Debian's.
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  packages+=(nodejs npm)
fi
if [[ "$mode" == "all" ]]; then
  packages+=(
    # fuzzing (libFuzzer ships with clang) and LeakSanitizer runtime
    clang libclang-rt-14-dev
    # python client and its tests (Debian's own /usr/bin/python3 sees these); venv, pip, setuptools and
    # wheel install the client into a virtual environment without a package index (README)
    python3 python3-protobuf python3-pytest python3-numpy python3-venv python3-pip python3-setuptools python3-wheel
    # browser tests: Debian's chromium, driven headless by playwright-core (no downloaded browser)
    chromium
    # script checks, the deployment files' checks (tests/deploy/check_deploy.py), the C formatting
    shellcheck python3-yaml clang-format
    # the container image, built and run (tests/deploy/container.sh): podman, runc where crun cannot run a
    # container, debootstrap for a Debian 12 base image when podman has none, iproute2 for a loopback
    podman runc debootstrap iproute2
    # benchmark peers (scripts/bench.sh builds with SINEW_BENCH_PEERS=ON): bench_collide against libccd
    libccd-dev
    # bench_robots against MuJoCo, which reads URDF directly, and bench_peers: the contact scenes in
    # MuJoCo 2.2.2, Bullet 3.24 (libbullet-dev also ships the double-precision libraries, bullet-float64)
    # and ODE 0.16 (double precision)
    libmujoco-dev libbullet-dev libode-dev
  )
fi

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
