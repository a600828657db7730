#!/usr/bin/env bash
# One-time machine set-up after `npm install`: the system packages the project needs (Java 17+
# and Maven for the local Kafka broker, Chromium and fonts for the inbox page tests, unzip for kubectl),
# then the Kafka jars (cached in ~/.m2), kubectl for rendering deploy/ and promtool for the alert
# rules (both in .cache/tools) and a build.
# Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The project's Node 24 (node_modules/.bin/node), also when not started through npm.
export PATH="$PWD/node_modules/.bin:$PATH"

need=()
java_ok() { command -v java >/dev/null && [[ $(java -version 2>&1) =~ version\ \"(1[7-9]|[2-9][0-9]) ]]; }
java_ok || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need+=(maven)
command -v unzip >/dev/null || need+=(unzip)

if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "setup: please install ${need[*]} (needs root and apt-get)" >&2
    exit 1
  fi
  echo "setup: installing ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

echo "setup: Chromium and the CJK and Arabic fonts (for the sandbox inbox page tests)"
bash scripts/setup-chromium.sh
echo "setup: Kafka jars"
bash scripts/kafka/kafka.sh fetch
echo "setup: kubectl (renders the Kustomize manifests under deploy/)"
bash scripts/kubectl.sh version --client
echo "setup: promtool (checks and tests the alert rules under deploy/monitoring)"
bash scripts/promtool.sh --version | sed -n 1p
echo "setup: building"
npm run build
echo "setup: done (node $(node --version), $(java -version 2>&1 | head -n 1))"
