#!/usr/bin/env bash
# Benchmarks: install, build the release flavour, run every benchmark. Each prints a table for people
# and BENCH key=value lines for scripts (grep '^BENCH').
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" release
"$root/build/release/bench/bench_chain" "$@"
"$root/build/release/bench/bench_articulation" "$@"
