#!/usr/bin/env bash
# Every test: install what is needed, build the release flavour and run its tests (core; server, Python
# client, dashboard in headless chromium and deployment checks, which start real sinewd processes on
# loopback ports chosen free), then build with AddressSanitizer + UndefinedBehaviorSanitizer and run the
# tests again, then fuzz the server's decode-and-dispatch path briefly (libFuzzer; SINEW_FUZZ_SECONDS,
# default 25). CI runs this (.ci/run). Screenshots of the dashboard: build/<flavour>/artifacts/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${SINEW_JOBS:-$(nproc)}"
start=$(date +%s)

bash "$root/scripts/install-deps.sh"

echo "== shellcheck"
shellcheck "$root"/scripts/*.sh "$root"/deploy/*.sh "$root/.ci/run"

echo "== release build and tests"
bash "$root/scripts/build.sh" release
ctest --test-dir "$root/build/release" --output-on-failure --parallel "$jobs"

echo "== sanitizer build and tests (ASan + UBSan)"
bash "$root/scripts/build.sh" sanitize
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir "$root/build/sanitize" --output-on-failure --parallel "$jobs"

echo "== fuzz: decode and dispatch (libFuzzer + ASan + UBSan, ${SINEW_FUZZ_SECONDS:-25} s)"
bash "$root/scripts/build.sh" fuzz
corpus="$root/build/fuzz/corpus"
mkdir -p "$corpus"
"$root/build/fuzz/tests/fuzz/fuzz_make_seeds" "$corpus"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$root/build/fuzz/tests/fuzz/fuzz_dispatch" -max_total_time="${SINEW_FUZZ_SECONDS:-25}" -max_len=8192 \
  -print_final_stats=1 "$corpus"

echo "== all tests passed in $(( $(date +%s) - start )) s"
