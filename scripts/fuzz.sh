#!/usr/bin/env bash
# Run every libFuzzer target briefly (build them first: bash scripts/build.sh fuzz). Each target starts
# from its seed corpus in a temporary directory (what the fuzzer finds is not committed) and stops after
# SINEW_FUZZ_SECONDS (default 20) seconds. A crash, leak, timeout or sanitizer report fails the run and
# leaves the reproducer in build/fuzz/artifacts/. Leaks inside Debian's assimp are not counted
# (tests/fuzz/lsan.supp says why).
#   fuzz_dispatch  the server's decode-and-dispatch path; seeds from fuzz_make_seeds
#   fuzz_urdf      the URDF importer (parse, build, step); seeds tests/model/urdf and models, a dictionary
#   fuzz_mesh      the mesh readers (STL, OBJ, DAE) and the core's hulls and meshes of them; seeds
#                  tests/model/meshes (the format in the first byte: 0 STL, 1 OBJ, 2 DAE)
#   fuzz_http      the HTTP/WebSocket port through a real libwebsockets context; seeds from
#                  fuzz_make_seeds --http, a dictionary
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${SINEW_FUZZ_SECONDS:-20}"
bin="$root/build/fuzz/tests/fuzz"
artifacts="$root/build/fuzz/artifacts"
mkdir -p "$artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# run_target NAME MAX_LEN [libFuzzer options...]: the corpus is $work/NAME, filled by the caller.
run_target() {
  local name="$1" max_len="$2"
  shift 2
  echo "fuzz: $name for ${seconds} s ($(find "$work/$name" -type f | wc -l) seeds)"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    LSAN_OPTIONS="suppressions=$root/tests/fuzz/lsan.supp:print_suppressions=0" \
    "$bin/$name" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" "$@" "$work/$name" 2>"$work/$name.log" || {
      tail -n 60 "$work/$name.log"
      echo "fuzz: $name FAILED (reproducer in $artifacts)" >&2
      return 1
    }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/$name.log" | sed "s/^/fuzz: $name /"
}

mkdir -p "$work/fuzz_dispatch" "$work/fuzz_urdf" "$work/fuzz_mesh" "$work/fuzz_http"
"$bin/fuzz_make_seeds" "$work/fuzz_dispatch"
run_target fuzz_dispatch 8192

cp "$root"/tests/model/urdf/*.urdf "$root"/models/*.urdf "$work/fuzz_urdf/"
run_target fuzz_urdf 65536 -dict="$root/tests/fuzz/urdf.dict"

for f in "$root"/tests/model/meshes/meshbot/meshes/*; do
  case "$f" in
    *.stl) prefix='\0000' ;;
    *.obj) prefix='\0001' ;;
    *.dae) prefix='\0002' ;;
    *) continue ;;
  esac
  { printf '%b' "$prefix"; cat "$f"; } > "$work/fuzz_mesh/$(basename "$f")"
done
run_target fuzz_mesh 65536

"$bin/fuzz_make_seeds" --http "$work/fuzz_http"
run_target fuzz_http 16384 -dict="$root/tests/fuzz/http.dict"
