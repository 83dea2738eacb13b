#!/usr/bin/env bash
# Run every libFuzzer target briefly (build it first: bash scripts/build.sh fuzz). Each target starts from
# its seed corpus, copied into a temporary directory so that what the fuzzer finds is not committed, and
# stops after SINEW_FUZZ_SECONDS (default 20) seconds. A crash, leak, timeout or sanitizer report fails
# the run and leaves the reproducer in build/fuzz/artifacts/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${SINEW_FUZZ_SECONDS:-20}"
bin="$root/build/fuzz/tests/fuzz"
artifacts="$root/build/fuzz/artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# target name, seed files, dictionary
run_target() {
  local name="$1" dict="$2"
  shift 2
  local corpus="$work/$name"
  mkdir -p "$corpus"
  cp "$@" "$corpus/"
  echo "fuzz: $name for ${seconds} s ($# seeds)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$bin/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len=65536 \
    -dict="$dict" -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$corpus" 2>"$work/$name.log" || {
      tail -n 60 "$work/$name.log"
      echo "fuzz: $name FAILED (reproducer in $artifacts)" >&2
      return 1
    }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$name.log" | sed "s/^/fuzz: $name /"
}

run_target fuzz_urdf "$root/tests/fuzz/urdf.dict" "$root"/tests/model/urdf/*.urdf "$root"/models/*.urdf
