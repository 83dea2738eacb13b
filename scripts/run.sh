#!/usr/bin/env bash
# The main job: install what is needed, build, and run sinewd in the foreground with its demo world and
# the dashboard. Open the printed address in a browser. Flags after the script go to sinewd (see
# build/release/server/sinewd --help); Ctrl-C stops it cleanly.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh" release
host="${SINEW_HOST:-127.0.0.1}"
ws_port="${SINEW_WS_PORT:-7421}"
tcp_port="${SINEW_TCP_PORT:-7420}"
# Flags win over variables, in sinewd as here.
args=("$@")
for ((i = 0; i + 1 < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    --host) host="${args[i + 1]}" ;;
    --ws-port) ws_port="${args[i + 1]}" ;;
    --tcp-port) tcp_port="${args[i + 1]}" ;;
  esac
done
# A wildcard listen address is not one a browser can open: show this machine's loopback instead.
case "$host" in
  0.0.0.0|::|"[::]") open_host=127.0.0.1 ;;
  *:*) open_host="[$host]" ;;
  *) open_host="$host" ;;
esac
echo
echo "  Sinew dashboard:  http://$open_host:$ws_port/      <- open this in a browser"
echo "  health: http://$open_host:$ws_port/healthz   metrics: http://$open_host:$ws_port/metrics"
echo "  TCP protocol on $host:$tcp_port; try: $root/build/release/clients/c/sinew worlds"
echo "  Python: /usr/bin/python3 $root/clients/python/examples/hello_arm.py"
echo
exec "$root/build/release/server/sinewd" --web-root "${SINEW_WEB_ROOT:-$root/build/release/clients/web/dist}" "$@"
