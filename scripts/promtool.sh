#!/usr/bin/env bash
# promtool, for checking and unit-testing the Prometheus alert rules under deploy/monitoring
# (`promtool check rules`, `promtool test rules`). Runs the binary with the arguments given,
# fetching it first when .cache/tools does not have it yet:
#   bash scripts/promtool.sh test rules deploy/monitoring/mailbridge.rules.test.yml
#
# Where it comes from: Debian's `prometheus` package (bookworm: 2.42), the only registry this
# project reaches that carries promtool (Prometheus' release binaries are on GitHub). The package
# is downloaded with `apt-get download` and unpacked with `dpkg -x`, never installed: installing
# it would add a Prometheus server with a systemd unit and a user of its own, none of which the
# rules need. promtool needs nothing but libc. apt's own signature checks vouch for the package.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

dir=.cache/tools/promtool
bin=$dir/promtool

fetch() {
  command -v apt-get >/dev/null && command -v dpkg >/dev/null || {
    echo "promtool.sh: needs apt-get and dpkg (Debian's prometheus package carries promtool)" >&2
    exit 1
  }
  local tmp
  tmp=$(mktemp -d)
  chmod 755 "$tmp" # apt's sandbox user must be able to write there
  if ! (cd "$tmp" && apt-get download -qq prometheus 2>/dev/null); then
    if [ "$(id -u)" -eq 0 ]; then
      apt-get update -qq
      (cd "$tmp" && apt-get download -qq prometheus 2>/dev/null)
    else
      echo "promtool.sh: apt-get download prometheus failed (run apt-get update as root)" >&2
      rm -rf "$tmp"
      exit 1
    fi
  fi
  dpkg -x "$tmp"/prometheus_*.deb "$tmp/x"
  "$tmp/x/usr/bin/promtool" --version >/dev/null
  mkdir -p "$dir"
  mv "$tmp/x/usr/bin/promtool" "$bin.$$" && mv "$bin.$$" "$bin" # atomic: a parallel run sees all or nothing
  rm -rf "$tmp"
}

[ -x "$bin" ] || fetch
exec "$bin" "$@"
