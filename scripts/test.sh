#!/usr/bin/env bash
# Every test: install what is needed, check the scripts (shellcheck) and the C formatting (clang-format
# with .clang-format), build the release flavour and run its tests (core, model import, server, Python
# client, dashboard in headless chromium and deployment checks; the server, client and browser tests
# start real sinewd processes on loopback ports chosen free; the hostile client, tests/hostile, attacks
# one), then the determinism test built for this machine's own CPU (-march=native), then build the container image with podman and run it (tests/deploy/container.sh; alone, so its
# build has both cores), then build with AddressSanitizer + UndefinedBehaviorSanitizer and run the tests
# again (the hostile client then attacks a sanitizer sinewd), then run each fuzz target briefly
# (scripts/fuzz.sh: the server's decode-and-dispatch path, its HTTP/WebSocket port and the URDF importer;
# SINEW_FUZZ_SECONDS, default 20 each). CI runs this (.ci/run). The builds use the presets of
# CMakePresets.json (scripts/build.sh). Screenshots of the dashboard: build/<flavour>/artifacts/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${SINEW_JOBS:-$(nproc)}"
start=$(date +%s)

bash "$root/scripts/install-deps.sh"

echo "== shellcheck"
shellcheck "$root"/scripts/*.sh "$root"/deploy/*.sh "$root"/tests/deploy/*.sh "$root/.ci/run"

echo "== clang-format (.clang-format)"
(cd "$root" && git ls-files -z '*.c' '*.h' | xargs -0 clang-format --dry-run --Werror)

echo "== release build and tests"
bash "$root/scripts/build.sh" release
(cd "$root" && ctest --preset release --parallel "$jobs")

echo "== the same bits with this machine's own instruction set (-march=native: test_determinism's golden hashes)"
bash "$root/scripts/build.sh" native
(cd "$root" && ctest --preset native)

echo "== container image (podman build, run and checks)"
bash "$root/tests/deploy/container.sh"

echo "== sanitizer build and tests (ASan + UBSan; the preset sets ASAN_OPTIONS and UBSAN_OPTIONS)"
bash "$root/scripts/build.sh" sanitize
(cd "$root" && ctest --preset sanitize --parallel "$jobs")

echo "== fuzzing (libFuzzer + ASan + UBSan, ${SINEW_FUZZ_SECONDS:-20} s per target)"
bash "$root/scripts/build.sh" fuzz
bash "$root/scripts/fuzz.sh"

echo "== all tests passed in $(( $(date +%s) - start )) s"
