#!/usr/bin/env bash
# Run one command of the image build trusting an extra CA bundle, when the build was given one as the
# secret "extra-ca" (PEM certificates; Dockerfile steps mount it at /run/secrets/extra-ca):
#   docker build --secret id=extra-ca,src=/path/to/ca-bundle.pem -f deploy/Dockerfile .
#   podman build --secret id=extra-ca,src=/path/to/ca-bundle.pem --format docker -f deploy/Dockerfile .
# For building behind a TLS-intercepting proxy, where npm ci fails with SELF_SIGNED_CERT_IN_CHAIN without
# the proxy's CA. The command sees the system's roots plus the extra ones through the variables that
# OpenSSL, curl, git, Python requests and Node read, and apt through Acquire::https::CAInfo. The bundle is
# a secret mount, present only while the command runs, and the combined file is removed when it ends: no
# layer of any stage holds either. Without the secret the command runs unchanged.
#   with-extra-ca.sh COMMAND [ARG]...
set -euo pipefail
extra=/run/secrets/extra-ca
if [[ ! -s "$extra" ]]; then
  exec "$@"
fi
if ! grep -q -- "-----BEGIN CERTIFICATE-----" "$extra"; then
  echo "with-extra-ca: $extra holds no PEM certificate" >&2
  exit 2
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bundle="$tmp/ca-certificates.crt"
# The system's roots where ca-certificates is installed already (not before install-deps.sh has run).
if [[ -s /etc/ssl/certs/ca-certificates.crt ]]; then
  cat /etc/ssl/certs/ca-certificates.crt > "$bundle"
fi
cat "$extra" >> "$bundle"
printf 'Acquire::https::CAInfo "%s";\n' "$bundle" > "$tmp/apt.conf"
echo "with-extra-ca: trusting $(grep -c -- "-----BEGIN CERTIFICATE-----" "$extra") extra certificates from $extra"
# Node adds NODE_EXTRA_CA_CERTS to its own roots; the others replace theirs, hence the combined bundle.
SSL_CERT_FILE="$bundle" CURL_CA_BUNDLE="$bundle" GIT_SSL_CAINFO="$bundle" REQUESTS_CA_BUNDLE="$bundle" \
  NODE_EXTRA_CA_CERTS="$extra" APT_CONFIG="$tmp/apt.conf" "$@"
