#!/usr/bin/env bash
# The container image, built and run: builds deploy/Dockerfile with Debian's podman (no daemon), then runs
# the image and checks it (tests/deploy/check_image.py says what exactly). scripts/test.sh runs this;
# by hand, as root, after scripts/install-deps.sh and scripts/build.sh release (the Python client's
# generated module comes from that build, and its sinewd is compared with the image's):
#   bash tests/deploy/container.sh
# Environment:
#   SINEW_DEBIAN_IMAGE   the Debian 12 image to build from. Default: debian:12 when podman has it (pulled
#                        by you: this script never pulls), else localhost/sinew-debian:12, made here once
#                        with debootstrap and podman import, and kept for later runs
#   SINEW_DEBIAN_MIRROR  the Debian archive for debootstrap (default http://deb.debian.org/debian)
#   SINEW_EXTRA_CA       the CA bundle given to the build as its extra-ca secret (default: this machine's,
#                        /etc/ssl/certs/ca-certificates.crt, which trusts what this machine trusts, a
#                        TLS-intercepting proxy included; "none": no secret)
#   SINEW_CONTAINER_RUN  auto (default: podman run where this machine allows it, else the chroot
#                        fallback), podman or chroot
#   SINEW_IMAGE          the name to build (default localhost/sinew:test)
# The build log is build/container/build.log. podman keeps the build's layers: a second run rebuilds
# from the first step whose inputs changed (the package layers survive source changes).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
image="${SINEW_IMAGE:-localhost/sinew:test}"
mirror="${SINEW_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
extra_ca="${SINEW_EXTRA_CA:-/etc/ssl/certs/ca-certificates.crt}"
run_mode="${SINEW_CONTAINER_RUN:-auto}"
local_base=localhost/sinew-debian:12
out="$root/build/container"
start=$(date +%s)

if [[ "$(id -u)" -ne 0 ]]; then
  echo "container.sh: run as root (podman's chroot isolation, debootstrap and the run's namespaces need it)" >&2
  exit 2
fi
for tool in podman debootstrap nsenter unshare ip; do
  if ! command -v "$tool" > /dev/null; then
    echo "container.sh: $tool is missing (bash scripts/install-deps.sh installs it)" >&2
    exit 2
  fi
done
gen="$root/build/release/clients/python/gen"
sinewd="$root/build/release/server/sinewd"
if [[ ! -f "$gen/sinew_pb2.py" || ! -x "$sinewd" ]]; then
  echo "container.sh: build the release flavour first (bash scripts/build.sh release)" >&2
  exit 2
fi
mkdir -p "$out"

# ---- the base image ------------------------------------------------------------------------------------
# debootstrap's minbase, with the official image's package sources (security updates included) and
# without the downloaded packages, the package lists or device nodes.
make_base() {
  local dir
  dir="$(mktemp -d /var/tmp/sinew-debootstrap.XXXXXX)"
  # shellcheck disable=SC2064  # expand now: the trap outlives this function's locals
  trap "rm -rf '$dir'" EXIT
  echo "container: making $local_base with debootstrap (minbase, bookworm, $mirror)"
  if ! debootstrap --variant=minbase bookworm "$dir/root" "$mirror" > "$out/debootstrap.log" 2>&1; then
    tail -n 30 "$out/debootstrap.log"
    echo "container: debootstrap failed (log: $out/debootstrap.log)" >&2
    return 1
  fi
  rm -f "$dir/root/etc/apt/sources.list"
  cat > "$dir/root/etc/apt/sources.list.d/debian.sources" << EOF
Types: deb
URIs: $mirror
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -rf "$dir"/root/var/cache/apt/archives/*.deb "$dir"/root/var/lib/apt/lists/* "$dir"/root/dev/* \
    "$dir"/root/var/log/*.log "$dir"/root/var/cache/ldconfig/aux-cache
  tar --numeric-owner -C "$dir/root" -c . \
    | podman import --change 'CMD ["bash"]' --message "debootstrap --variant=minbase bookworm $mirror" \
        - "$local_base" >> "$out/debootstrap.log" 2>&1
  rm -rf "$dir"
  trap - EXIT
}

base_start=$(date +%s)
if [[ -n "${SINEW_DEBIAN_IMAGE:-}" ]]; then
  base="$SINEW_DEBIAN_IMAGE"
  echo "container: base image $base (SINEW_DEBIAN_IMAGE)"
elif podman image exists debian:12; then
  base=debian:12
  echo "container: base image debian:12 (present in podman)"
else
  base="$local_base"
  if podman image exists "$base"; then
    echo "container: base image $base (made $(podman image inspect -f '{{.Created}}' "$base" | cut -d. -f1), kept)"
  else
    make_base
    echo "container: base image $base made in $(($(date +%s) - base_start)) s"
  fi
fi

# ---- the build -----------------------------------------------------------------------------------------
build_args=(--isolation chroot --pull=never --format docker --layers --jobs 2
            --build-arg "DEBIAN_IMAGE=$base" -f "$root/deploy/Dockerfile" -t "$image")
if [[ "$extra_ca" != none ]]; then
  build_args+=(--secret "id=extra-ca,src=$extra_ca")
fi
previous="$(podman image inspect -f '{{.Id}}' "$image" 2> /dev/null || true)"
echo "container: podman build ${build_args[*]} $root"
build_start=$(date +%s)
if ! podman build "${build_args[@]}" "$root" > "$out/build.log" 2>&1; then
  tail -n 60 "$out/build.log"
  echo "container: the image did not build (log: $out/build.log)" >&2
  exit 1
fi
build_s=$(($(date +%s) - build_start))
grep -E '^\[[0-9]+/[0-9]+\] STEP|^with-extra-ca:|^runtime-root: [0-9]|^install-deps:|--> Using cache' "$out/build.log" \
  | sed 's/^/  /' | cut -c1-150
echo "container: built $image in $build_s s"
# The image this build replaced, now nameless: remove it (its layers stay while the cache uses them).
if [[ -n "$previous" && "$previous" != "$(podman image inspect -f '{{.Id}}' "$image")" ]]; then
  podman rmi "$previous" > /dev/null 2>&1 || true
fi

# ---- the checks ----------------------------------------------------------------------------------------
check_args=("$image" --python-gen "$gen" --sinewd "$sinewd" --run "$run_mode")
if [[ "$extra_ca" != none ]]; then
  check_args+=(--ca-bundle "$extra_ca")
fi
check_start=$(date +%s)
/usr/bin/python3 -B "$root/tests/deploy/check_image.py" "${check_args[@]}"
echo "container: build ${build_s} s, checks $(($(date +%s) - check_start)) s, all $(($(date +%s) - start)) s"
