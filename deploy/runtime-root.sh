#!/usr/bin/env bash
# The image's root file system, made from Debian packages without installing a Debian system: the
# packages named in a list (deploy/runtime-packages) and everything they depend on (Depends and
# Pre-Depends as apt resolves them for an empty system; no Recommends), each unpacked as dpkg unpacks it.
# Around them, what a process needs from a root: a dpkg status database that names every package and
# version (image scanners read it), the dynamic loader's cache, /etc/passwd and /etc/group with root,
# nobody and the server's user sinew (10001), /tmp, and the server's home with its models and state directories.
# No maintainer script runs: shared libraries and bash need none to work. As in Debian's slim images,
# manual pages, translations and documentation other than the copyright files are left out (and
# iconv's character set converters, see below).
#   runtime-root.sh PACKAGE-LIST DEST     (as root, on the Debian release the packages are for)
set -euo pipefail
list="$1"
dest="$2"
user_id=10001

mapfile -t packages < <(sed -e 's/#.*//' "$list" | tr -s '[:blank:]' '\n' | sed '/^$/d')
if [[ ${#packages[@]} -eq 0 ]]; then
  echo "runtime-root: no package named in $list" >&2
  exit 2
fi
if [[ -e "$dest" ]]; then
  echo "runtime-root: $dest exists already" >&2
  exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
# Against an empty status file apt fetches the whole closure, not only what this build system lacks.
: > "$work/status"
mkdir -p "$work/debs/partial"
apt-get install -q -y --download-only --no-install-recommends \
  -o Dir::State::status="$work/status" -o Dir::Cache::archives="$work/debs" "${packages[@]}"
rm -rf /var/lib/apt/lists/*

# Debian 12 merges /usr: /bin, /lib, /lib64 and /sbin are links into it (packages still ship files there).
mkdir -p "$dest/usr" "$dest/var/lib/dpkg/info" "$dest/etc"
for d in bin lib lib64 sbin; do
  mkdir -p "$dest/usr/$d"
  ln -s "usr/$d" "$dest/$d"
done
: > "$dest/var/lib/dpkg/status"
for deb in "$work"/debs/*.deb; do
  package="$(dpkg-deb -f "$deb" Package)"
  # dpkg names the files of a Multi-Arch: same package package:arch.
  name="$package"
  if [[ "$(dpkg-deb -f "$deb" Multi-Arch)" == "same" ]]; then
    name="$package:$(dpkg-deb -f "$deb" Architecture)"
  fi
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --keep-directory-symlink
  dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -e 's|^\./|/|' -e 's|^/$|/.|' -e 's|\(.\)/$|\1|' \
    > "$dest/var/lib/dpkg/info/$name.list"
  dpkg-deb --ctrl-tarfile "$deb" | tar -x -O ./md5sums > "$dest/var/lib/dpkg/info/$name.md5sums" 2>/dev/null \
    || rm -f "$dest/var/lib/dpkg/info/$name.md5sums"
  { dpkg-deb -f "$deb" | sed '1a Status: install ok installed'; echo; } >> "$dest/var/lib/dpkg/status"
  echo "runtime-root: $package $(dpkg-deb -f "$deb" Version)"
done
# Left out: manual pages, info, translations and lintian overrides (nobody reads them here); iconv's
# converters between character sets (glibc's gconv modules, a third of the image: no library of the
# server converts with iconv, and expat decodes UTF-8, UTF-16 and Latin-1 itself).
rm -rf "$dest/usr/share/man" "$dest/usr/share/info" "$dest/usr/share/locale" "$dest/usr/share/lintian" \
  "$dest"/usr/lib/*-linux-gnu*/gconv
if [[ -d "$dest/usr/share/doc" ]]; then
  find "$dest/usr/share/doc" -mindepth 2 ! -type d ! -name copyright -delete
  find "$dest/usr/share/doc" -mindepth 1 -type d -empty -delete
fi

# sh is bash (in POSIX mode when called sh): for the packages' few shell scripts and for `docker exec
# ... sh`. dash, Debian's sh, would bring dpkg along.
if [[ ! -e "$dest/usr/bin/sh" ]]; then
  ln -s bash "$dest/usr/bin/sh"
fi

# The loader's configuration as libc-bin (not shipped: ldconfig is not needed at run time) has it.
printf 'include /etc/ld.so.conf.d/*.conf\n' > "$dest/etc/ld.so.conf"
ldconfig -r "$dest"

cat > "$dest/etc/passwd" <<EOF
root:x:0:0:root:/root:/bin/bash
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
sinew:x:$user_id:$user_id:sinewd:/var/lib/sinew:/usr/sbin/nologin
EOF
cat > "$dest/etc/group" <<EOF
root:x:0:
nogroup:x:65534:
sinew:x:$user_id:
EOF
printf 'passwd: files\ngroup: files\nhosts: files dns\n' > "$dest/etc/nsswitch.conf"
mkdir -p "$dest/proc" "$dest/sys" "$dest/dev" "$dest/run" "$dest/root"
chmod 0700 "$dest/root"
mkdir -p "$dest/tmp"
chmod 1777 "$dest/tmp"
mkdir -p "$dest/var/lib/sinew/models" "$dest/var/lib/sinew/state"
chown -R "$user_id:$user_id" "$dest/var/lib/sinew"
echo "runtime-root: ${#packages[@]} packages listed, $(grep -c '^Package:' "$dest/var/lib/dpkg/status") with dependencies, $(du -sh "$dest" | cut -f1)"
