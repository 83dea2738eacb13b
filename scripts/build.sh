#!/usr/bin/env bash
# Configure and build one flavour of Sinew into build/<flavour>, with the presets of CMakePresets.json
# (which say what each flavour sets; `cmake --preset <flavour>` by hand does the same):
#   release   optimised, warnings are errors (what run.sh and bench.sh use)
#   sanitize  AddressSanitizer + UndefinedBehaviorSanitizer, debug, warnings are errors
#   fuzz      clang with libFuzzer + ASan + UBSan: the fuzz targets (tests/fuzz), no tests or benchmarks
#   native    optimised for this machine's CPU (-march=native): test_core_determinism alone, which must
#             keep the golden hashes of the other flavours
set -euo pipefail
flavour="${1:-release}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${SINEW_JOBS:-$(nproc)}"

case "$flavour" in
  release|sanitize|fuzz|native) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, sanitize, fuzz or native)" >&2; exit 2 ;;
esac

cd "$root"
cmake --preset "$flavour"
cmake --build --preset "$flavour" --parallel "$jobs"
