#!/usr/bin/env bash
# A Docker engine for the container test, started and stopped by PID.
#
#   dockerd.sh start    if an engine already answers, use it (and never stop it); otherwise start
#                       dockerd in the background and return once it answers
#   dockerd.sh stop     stop the dockerd that `start` started (by its PID) and wait for it;
#                       does nothing when `start` found an engine already running
#   dockerd.sh status   exit 0 when an engine answers
#
# The engine started here has no bridge network and touches no iptables rules
# (--bridge=none --iptables=false): every container of the test runs with the host's network,
# so nothing needs NAT and the machine's firewall is left as it was. It listens on the default
# socket, /var/run/docker.sock, so `docker` and `docker-compose` find it without DOCKER_HOST.
# Needs root and the `docker.io` package (Debian: apt-get install docker.io).
#
# Environment: DOCKERD_DIR (.cache/dockerd: PID file and log), DOCKERD_START_TIMEOUT seconds (60).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dir="${DOCKERD_DIR:-$root/.cache/dockerd}"
timeout_s="${DOCKERD_START_TIMEOUT:-60}"
pid_file="$dir/dockerd.pid"
log() { echo "[dockerd] $*" >&2; }

answers() { docker version --format '{{.Server.Version}}' >/dev/null 2>&1; }
our_pid() { [ -f "$pid_file" ] && cat "$pid_file"; }
ours_running() {
  local pid
  pid="$(our_pid)" || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

start() {
  if answers; then
    if ours_running; then log "already running (pid $(our_pid))"; else log "using the engine that is already running"; fi
    return 0
  fi
  command -v dockerd >/dev/null || { log "dockerd is not installed (apt-get install docker.io)"; exit 1; }
  [ "$(id -u)" -eq 0 ] || { log "starting dockerd needs root"; exit 1; }
  mkdir -p "$dir"
  rm -f "$pid_file"
  # setsid: its own process group, so a Ctrl-C aimed at the test does not kill it mid-write.
  setsid dockerd --iptables=false --ip6tables=false --bridge=none \
    --pidfile "$dir/dockerd.engine.pid" >>"$dir/dockerd.log" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$pid_file"
  local deadline=$(($(date +%s) + timeout_s))
  until answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "dockerd exited during start-up; last lines of $dir/dockerd.log:"
      tail -n 30 "$dir/dockerd.log" >&2
      rm -f "$pid_file"
      exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "dockerd does not answer after ${timeout_s}s"
      stop
      exit 1
    fi
    sleep 0.2
  done
  log "started (pid $pid, log $dir/dockerd.log)"
}

stop() {
  local pid
  pid="$(our_pid)" || { log "no dockerd of ours to stop"; return 0; }
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    # dockerd stops its containers (10 s each at most) and its containerd before it exits.
    for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      log "dockerd did not stop in 60s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$pid_file"
  log "stopped (pid $pid)"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) answers ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
