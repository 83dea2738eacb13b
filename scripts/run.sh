#!/usr/bin/env bash
# The main job: install what is needed, build, and run sinewd in the foreground with its demo world and
# the dashboard. Open the address it prints in a browser: printed once the server has bound its ports
# (read from its --port-file), so port 0 (any free port) shows the real one. Flags after the script go to
# sinewd (see build/release/server/sinewd --help); Ctrl-C stops it cleanly.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh" --build-only
bash "$root/scripts/build.sh" release
host="${SINEW_HOST:-127.0.0.1}"
port_file="${SINEW_PORT_FILE:-}"
# Flags win over variables, in sinewd as here.
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    --host) host="${args[i + 1]:-$host}" ;;
    --host=*) host="${args[i]#--host=}" ;;
    --port-file) port_file="${args[i + 1]:-}" ;;
    --port-file=*) port_file="${args[i]#--port-file=}" ;;
  esac
done
tmp=""
if [[ -z "$port_file" ]]; then
  tmp="$(mktemp -d)"
  port_file="$tmp/ports"
  args+=(--port-file "$port_file")
fi
rm -f "$port_file"

sinewd="$root/build/release/server/sinewd"
"$sinewd" --web-root "${SINEW_WEB_ROOT:-$root/build/release/clients/web/dist}" "${args[@]}" &
pid=$!
# Ctrl-C or a TERM reaches sinewd, which shuts down cleanly; this script waits for it and exits with it.
trap 'kill -TERM "$pid" 2> /dev/null || true' INT TERM
trap '[[ -n "$tmp" ]] && rm -rf "$tmp"' EXIT

# The ports once bound (sinewd writes the file after both listeners are up), for at most 30 s.
for ((tries = 0; tries < 300; ++tries)); do
  if [[ -s "$port_file" ]] || ! kill -0 "$pid" 2> /dev/null; then
    break
  fi
  sleep 0.1
done
if [[ -s "$port_file" ]]; then
  tcp_port="$(sed -n 's/^tcp=//p' "$port_file")"
  ws_port="$(sed -n 's/^ws=//p' "$port_file")"
  # A wildcard listen address is not one a browser can open: show this machine's loopback instead.
  case "$host" in
    0.0.0.0) open_host=127.0.0.1 ;;
    ::|"[::]") open_host="[::1]" ;;
    *:*) open_host="[$host]" ;;
    *) open_host="$host" ;;
  esac
  echo
  if [[ "$ws_port" == "0" || -z "$ws_port" ]]; then
    echo "  No HTTP port (--ws-port -1): no dashboard."
  else
    echo "  Sinew dashboard:  http://$open_host:$ws_port/      <- open this in a browser"
    echo "  health: http://$open_host:$ws_port/healthz   metrics: http://$open_host:$ws_port/metrics"
  fi
  echo "  TCP protocol on $host:$tcp_port; try: SINEW_TCP_PORT=$tcp_port $root/build/release/clients/c/sinew worlds"
  echo "  Python: see README.md, \"The Python client\" (SINEW_TCP_PORT=$tcp_port tells it the port)"
  echo
fi
status=0
wait "$pid" || status=$?
# A signal interrupted the first wait: sinewd is shutting down; wait for its exit status.
if kill -0 "$pid" 2> /dev/null; then
  wait "$pid" || status=$?
fi
exit "$status"
