#!/usr/bin/env bash
# The main job: install what is needed, build, and run Sinew's demo.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" release
exec "$root/build/release/clients/c/sinew-demo" "$@"
