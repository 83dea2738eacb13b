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
#   bash scripts/bench.sh meshes [args]         bench_meshes: the robots of ../shared/robots with their mesh
#                                               files and those of models/robots: load, build, shapes, hull
#                                               vertices, steps on a ground plane (--steps, --repeat)
#   bash scripts/bench.sh server [args]         bench_server: starts sinewd; step-1 latency, streaming to
#                                               1/10/100 WebSocket clients, real-time capacity (--quick for a
#                                               short run; see README.md)
#   bash scripts/bench.sh contacts [args]       the contact scenes C1..C8 and the gripper: bench_contacts
#                                               (Sinew) and bench_peers (MuJoCo, Bullet, ODE in the same
#                                               run), then their side-by-side table with the ratios
#                                               (bench/peers/contacts_table.py); args go to bench_peers
#                                               (--scene NAME, --runs N, --max-run-s S)
#   bash scripts/bench.sh collide [args]        bench_collide: broadphase, narrowphase per pair family,
#                                               GJK/EPA against closed forms and against libccd, the world's
#                                               collision stage on the contact scenes (--quick,
#                                               --section NAME, --help)
# The release build is configured with SINEW_BENCH_PEERS=ON (peer libraries such as libccd and MuJoCo, from
# install-deps.sh) so the comparisons run.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case "${1:-}" in
  ""|chain|articulation|robots|meshes|server|collide|contacts) ;;
  *) echo "bench.sh: first argument chain, articulation, robots, meshes, server, collide or contacts (or none for every benchmark)" >&2
     exit 2 ;;
esac
bash "$root/scripts/install-deps.sh"
(cd "$root" && cmake --preset release -DSINEW_BENCH_PEERS=ON > /dev/null)
bash "$root/scripts/build.sh" release
# The contact scenes: Sinew's and the peers' BENCH lines into one file, then the table of ratios.
contacts() {
  local out="$root/build/release/bench/contacts.txt"
  : > "$out"
  if [[ -x "$root/build/release/bench/bench_contacts" ]]; then
    "$root/build/release/bench/bench_contacts" | tee -a "$out"
  fi
  "$root/build/release/bench/peers/bench_peers" "$@" | tee -a "$out"
  python3 "$root/bench/peers/contacts_table.py" "$out"
}
case "${1:-}" in
  chain) shift; "$root/build/release/bench/bench_chain" "$@" ;;
  articulation) shift; "$root/build/release/bench/bench_articulation" "$@" ;;
  robots) shift; "$root/build/release/bench/bench_robots" "$@" ;;
  meshes) shift; "$root/build/release/bench/bench_meshes" "$@" ;;
  server) shift; "$root/build/release/bench/bench_server" "$@" ;;
  collide) shift; "$root/build/release/bench/bench_collide" "$@" ;;
  contacts) shift; contacts "$@" ;;
  *)
    "$root/build/release/bench/bench_chain"
    "$root/build/release/bench/bench_articulation"
    "$root/build/release/bench/bench_robots"
    "$root/build/release/bench/bench_meshes"
    "$root/build/release/bench/bench_server"
    "$root/build/release/bench/bench_collide"
    contacts
    ;;
esac
