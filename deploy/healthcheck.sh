#!/bin/bash
# Exit 0 if sinewd's /healthz answers 200 (serving), 1 otherwise (down, or 503 while shutting down).
# Uses only bash (its /dev/tcp), so the image needs no HTTP client. The port is SINEW_WS_PORT (default
# 7421), or the first argument.
set -euo pipefail
port="${1:-${SINEW_WS_PORT:-7421}}"
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
IFS=' ' read -r -t 3 _ code _ <&3 || exit 1
[[ "$code" == "200" ]]
