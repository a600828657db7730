#!/usr/bin/env bash
# Installs Debian's headless Chromium for the sandbox inbox page tests (driven by playwright-core,
# which never downloads a browser of its own), and the fonts the templates' locales need to be
# read there: fonts-noto-cjk for Japanese (and Chinese, Korean), fonts-noto-core for Arabic and
# the other scripts. Without them Chromium draws such text as boxes, and
# test/sandbox/locales-in-browser.int-spec.ts fails. Idempotent: installs only what is missing.
set -euo pipefail

missing=()
if [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
for package in fonts-noto-cjk fonts-noto-core; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-chromium: run as root (apt-get install ${missing[*]})" >&2
  exit 1
fi
apt-get update
# Waits for another apt run on the machine rather than failing on its lock.
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  -o DPkg::Lock::Timeout=600 "${missing[@]}"
