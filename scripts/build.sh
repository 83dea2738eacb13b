#!/usr/bin/env bash
# Configure and build one flavour of Sinew into build/<flavour>.
#   release   optimised, warnings are errors (what run.sh and bench.sh use)
#   sanitize  AddressSanitizer + UndefinedBehaviorSanitizer, debug, warnings are errors
#   fuzz      clang with libFuzzer + ASan + UBSan: the fuzz targets (tests/fuzz), no tests or benchmarks
set -euo pipefail
flavour="${1:-release}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${SINEW_JOBS:-$(nproc)}"

case "$flavour" in
  release) flags=(-DCMAKE_BUILD_TYPE=Release -DSINEW_WERROR=ON) ;;
  sanitize) flags=(-DCMAKE_BUILD_TYPE=Debug -DSINEW_WERROR=ON -DSINEW_SANITIZE=ON) ;;
  fuzz) flags=(-DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSINEW_WERROR=ON -DSINEW_FUZZ=ON
               -DSINEW_BUILD_TESTS=OFF -DSINEW_BUILD_BENCH=OFF) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, sanitize or fuzz)" >&2; exit 2 ;;
esac

cmake -S "$root" -B "$root/build/$flavour" -G Ninja "${flags[@]}"
cmake --build "$root/build/$flavour" --parallel "$jobs"
