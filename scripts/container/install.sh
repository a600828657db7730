#!/usr/bin/env bash
# The system packages the container test needs, from Debian's apt (no registry needed): the Docker
# engine (docker.io: dockerd, containerd, runc), Debian's docker-compose (v1.29; it honours
# `depends_on: condition: service_healthy`) and debootstrap (the stand-in base image).
# Skipped when all three are there. Needs root and apt-get otherwise.
set -euo pipefail
need=()
command -v dockerd >/dev/null || need+=(docker.io)
command -v docker-compose >/dev/null || need+=(docker-compose)
command -v debootstrap >/dev/null || need+=(debootstrap)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "container: please install ${need[*]} (needs root and apt-get)" >&2
  exit 1
fi
echo "container: installing ${need[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
