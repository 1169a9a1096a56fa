#!/usr/bin/env bash
# Builds both container images (exporter/Dockerfile and the root Dockerfile) with Debian's podman where no image
# registry is reachable, as CI does (test/package/images.integration.test.ts). With a registry, `docker build` or
# `podman build` of each Dockerfile is all a release needs; this script adds what a closed machine lacks:
#
# - a stand-in for the Dockerfiles' base image node:<version>-bookworm-slim, imported under that exact name:
#   Debian's minbase bookworm (mmdebstrap: debootstrap's result, in one apt run), thinned as Debian's slim images
#   are, plus Node <version> from the npm
#   registry's node-linux-<arch> package (bin/node, and include/node, which node-gyp builds the ICMP addon
#   against), npm, and the user node (uid 1000), as the official image has them;
# - builds with --isolation=chroot (no cgroups here), --pull=never and --network=host, trusting this machine's CA
#   bundle (mounted at /etc/ssl/certs, and named by an npmrc mounted as /root/.npmrc), npm's cache mounted so
#   that packages already downloaded are not downloaded again.
#
# Usage: packaging/images/build.sh [--registry PREFIX] [--only base|images]   (for this machine's architecture)
#   --registry  the images' names: PREFIX/exporter:<version> and PREFIX/probekit:<version>
#               (default ghcr.io/probekit, the names the manifests run by default)
#   --only      base: make the stand-in base only; images: build on the base already imported
# Environment: PROBEKIT_IMAGES_CACHE (default /var/tmp/probekit-images): the .debs mmdebstrap and the builds' apt
#   downloaded, kept between runs as apt keeps its own (the base itself is made anew on every run);
#   CONTAINERS_STORAGE_CONF: podman's storage, as for any podman command (.ci/run puts it in memory).
# Prints, last, one line per image: its name and its size in bytes.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MIRROR=http://deb.debian.org/debian
SUITE=bookworm
# The npm the stand-in carries, as the official image carries the one its Node ships with.
NPM_VERSION=11.19.1

arch=$(dpkg --print-architecture)
registry=ghcr.io/probekit
only=
while [ $# -gt 0 ]; do
  case "$1" in
    --registry) registry=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    *) echo "build.sh: unknown argument '$1' (see the usage at the top of $0)" >&2; exit 2 ;;
  esac
done
case "$arch" in
  amd64) node_cpu=x64 ;;
  arm64) node_cpu=arm64 ;;
  *) echo "build.sh: this machine is $arch: Node's images are built for amd64 and arm64" >&2; exit 2 ;;
esac
case "$only" in '' | base | images) ;; *) echo "build.sh: --only $only: expected base or images" >&2; exit 2 ;; esac

# The base both Dockerfiles name (the exporter image's test holds every FROM line to one version).
base=$(sed -n 's/^FROM \(node:[^ ]*-bookworm-slim\).*/\1/p' "$ROOT/exporter/Dockerfile" | head -n 1)
node_version=${base#node:}
node_version=${node_version%-bookworm-slim}
[ -n "$node_version" ] || { echo "build.sh: no 'FROM node:<version>-bookworm-slim' line in exporter/Dockerfile" >&2; exit 1; }
version=$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")

cache=${PROBEKIT_IMAGES_CACHE:-/var/tmp/probekit-images}
mkdir -p "$cache/debs-$arch" "$cache/apt-$arch"
work=$(mktemp -d "${TMPDIR:-/tmp}/probekit-images.XXXXXX")
trap 'rm -rf "$work"' EXIT

seconds() { echo $(($(date +%s) - $1)); }

make_base() {
  local started rootfs=$work/rootfs
  started=$(date +%s)
  # Debian's minimal base, thinned as Debian's slim images are (no documentation, manual pages or translations, in
  # this root and in whatever a Dockerfile installs on it later: the dpkg options stay in the image).
  # The .debs come from and go back to the cache folder (mmdebstrap's own recipe for a package cache).
  # shellcheck disable=SC2016 # "$1" is mmdebstrap's: the root it makes
  mmdebstrap --variant=minbase --mode=root --arch="$arch" --skip=essential/unlink \
    --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' --setup-hook="sync-in $cache/debs-$arch /var/cache/apt/archives/" \
    --customize-hook="sync-out /var/cache/apt/archives $cache/debs-$arch" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias' \
    "$SUITE" "$rootfs" "$MIRROR" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -n 20 "$work/mmdebstrap.log" >&2; exit 1; }
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin
  # Node from the npm registry (npm's cache when it holds it already), laid out as the official image lays it out.
  (cd "$work" && npm pack --silent --prefer-offline "node-linux-$node_cpu@$node_version" "npm@$NPM_VERSION" >/dev/null)
  mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm" "$rootfs/usr/local/include"
  tar -xzf "$work/node-linux-$node_cpu-$node_version.tgz" -C "$work/node" --strip-components=1 package/bin/node package/include
  install -m 0755 "$work/node/bin/node" "$rootfs/usr/local/bin/node"
  cp -a "$work/node/include/node" "$rootfs/usr/local/include/node"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  # The official image's user: node, uid and gid 1000, home /home/node. Written directly rather than with useradd
  # in the root, which would need the root's architecture to run here.
  echo 'node:x:1000:' >>"$rootfs/etc/group"
  echo 'node:x:1000:1000::/home/node:/bin/bash' >>"$rootfs/etc/passwd"
  echo 'node:*:20000:0:99999:7:::' >>"$rootfs/etc/shadow"
  install -d -m 0755 -o 1000 -g 1000 "$rootfs/home/node"
  tar --numeric-owner -C "$rootfs" -c . |
    podman import --quiet --os linux --arch "$arch" --change 'CMD ["node"]' - "$base" >/dev/null
  rm -rf "$rootfs"
  echo "base $base ($arch): made in $(seconds "$started") s" >&2
}

build_images() {
  local npmrc=$work/npmrc name dockerfile started
  # npm's cache where the Dockerfiles' own `rm -rf /root/.npm` cannot reach it.
  printf 'cafile=/etc/ssl/certs/ca-certificates.crt\ncache=/var/cache/npm\nprefer-offline=true\n' >"$npmrc"
  local npm_cache
  npm_cache=$(npm config get cache)
  for name in exporter probekit; do
    dockerfile=$ROOT/Dockerfile
    [ "$name" = exporter ] && dockerfile=$ROOT/exporter/Dockerfile
    started=$(date +%s)
    # --layers=false: no commit of each step (the build stages' node_modules cost more to commit than to install).
    podman build --quiet --layers=false --isolation=chroot --pull=never --network=host --arch "$arch" \
      -v /etc/ssl/certs:/etc/ssl/certs:ro -v "$npmrc:/root/.npmrc:ro" -v "$npm_cache:/var/cache/npm" \
      -v "$cache/apt-$arch:/var/cache/apt/archives" \
      -f "$dockerfile" -t "$registry/$name:$version" "$ROOT" >"$work/$name.log" 2>&1 ||
      { tail -n 40 "$work/$name.log" >&2; exit 1; }
    echo "image $registry/$name:$version: built in $(seconds "$started") s" >&2
  done
  for name in exporter probekit; do
    echo "$registry/$name:$version $(podman image inspect --format '{{.Size}}' "$registry/$name:$version")"
  done
}

[ "$only" = images ] || make_base
[ "$only" = base ] || build_images
