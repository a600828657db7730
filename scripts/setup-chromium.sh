#!/usr/bin/env bash
# Installs Debian's headless Chromium for the sandbox inbox page test (driven by playwright-core,
# which never downloads a browser of its own). Idempotent: does nothing when it is already there.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-chromium: run as root (apt-get install chromium)" >&2
  exit 1
fi
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
