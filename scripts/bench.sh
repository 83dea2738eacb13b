#!/usr/bin/env bash
# Benchmarks: install, build the release flavour, run them. Each prints a table for people and BENCH
# key=value lines for scripts (grep '^BENCH').
#   bash scripts/bench.sh                       every benchmark with its defaults
#   bash scripts/bench.sh chain [args]          bench_chain: hanging chains (N = 10, 50, 200) and a 20 x 20
#                                               sheet of hinge loops in PGS, TGS, XPBD and DIRECT (about a
#                                               minute); args: --seconds --grid-seconds --n --grid --solver
#   bash scripts/bench.sh articulation [args]   bench_articulation (see README.md)
#   bash scripts/bench.sh robots [args]         bench_robots: the published robots of models/robots against
#                                               MuJoCo in the same run (--robot NAME, --steps, --repeat, --drives)
#   bash scripts/bench.sh server [args]         bench_server: starts sinewd; step-1 latency, streaming to
#                                               1/10/100 WebSocket clients, real-time capacity (--quick for a
#                                               short run; see README.md)
#   bash scripts/bench.sh collide [args]        bench_collide: broadphase, narrowphase per pair family,
#                                               GJK/EPA against closed forms and against libccd, the world's
#                                               collision stage on the contact scenes (--quick,
#                                               --section NAME)
# The release build is configured with SINEW_BENCH_PEERS=ON (peer libraries such as libccd and MuJoCo, from
# install-deps.sh) so the comparisons run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  ""|chain|articulation|server|collide|robots) ;;
  *) echo "bench.sh: first argument chain, articulation, server, collide or robots (or none for every benchmark)" >&2
     exit 2 ;;
esac
bash "$root/scripts/install-deps.sh"
(cd "$root" && cmake --preset release -DSINEW_BENCH_PEERS=ON > /dev/null)
bash "$root/scripts/build.sh" release
case "${1:-}" in
  chain) shift; "$root/build/release/bench/bench_chain" "$@" ;;
  articulation) shift; "$root/build/release/bench/bench_articulation" "$@" ;;
  robots) shift; "$root/build/release/bench/bench_robots" "$@" ;;
  server) shift; "$root/build/release/bench/bench_server" "$@" ;;
  collide) shift; "$root/build/release/bench/bench_collide" "$@" ;;
  *)
    "$root/build/release/bench/bench_chain"
    "$root/build/release/bench/bench_articulation"
    "$root/build/release/bench/bench_robots"
    "$root/build/release/bench/bench_server"
    "$root/build/release/bench/bench_collide"
    ;;
esac
