#!/usr/bin/env bash
# Benchmarks: install, build the release flavour, run every benchmark. Each prints a table for people
# and BENCH key=value lines for scripts (grep '^BENCH'). Arguments go to bench_chain; set
# SINEW_BENCH_SERVER_ARGS for bench_server (for example "--quick").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" release
"$root/build/release/bench/bench_chain" "$@"
read -r -a server_args <<< "${SINEW_BENCH_SERVER_ARGS:-}"
"$root/build/release/bench/bench_server" "${server_args[@]}"
