#!/usr/bin/env bash
# The main job: install what is needed, build, and run sinewd in the foreground with its demo world.
# Flags after the script go to sinewd (see build/release/server/sinewd --help); Ctrl-C stops it cleanly.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" release
host="${SINEW_HOST:-127.0.0.1}"
ws_port="${SINEW_WS_PORT:-7421}"
echo "sinewd: dashboard http://$host:$ws_port/  health http://$host:$ws_port/healthz  metrics http://$host:$ws_port/metrics"
echo "sinewd: TCP protocol on $host:${SINEW_TCP_PORT:-7420}; try: $root/build/release/clients/c/sinew worlds"
exec "$root/build/release/server/sinewd" --web-root "$root/clients/web/dist" "$@"
