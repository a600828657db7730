#!/usr/bin/env bash
# A three-node Apache Kafka cluster (KRaft, each node a broker and a controller) on loopback, for
# the tests and chaos runs that lose a broker: replication factor 3 and min.insync.replicas 2, as in
# production. Each node is scripts/kafka/kafka.sh with its own port, data dir and pid file.
#
#   cluster.sh start        format three fresh nodes, start them together (a quorum needs two) and
#                           return once all accept clients (prints the bootstrap list)
#   cluster.sh stop         stop every node, by the PID each was started with
#   cluster.sh kill N       kill -9 node N (1-3), as a crash; its data dir stays
#   cluster.sh revive N     start node N again on its data dir
#   cluster.sh pid N        the PID of node N
#   cluster.sh bootstrap    the bootstrap list, "127.0.0.1:PORT1,127.0.0.1:PORT2,127.0.0.1:PORT3"
#
# Environment: KAFKA_CLUSTER_PORT (29192): node N listens on PORT+2(N-1) and its controller on the
# port after; KAFKA_CLUSTER_DIR (.cache/kafka-cluster/PORT); KAFKA_HEAP (384m each).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
base="${KAFKA_CLUSTER_PORT:-29192}"
dir="${KAFKA_CLUSTER_DIR:-$root/.cache/kafka-cluster/$base}"
nodes=(1 2 3)

log() { echo "[kafka-cluster] $*" >&2; }
port_of() { echo $((base + 2 * ($1 - 1))); }
voters() {
  local n list=()
  for n in "${nodes[@]}"; do list+=("$n@127.0.0.1:$(($(port_of "$n") + 1))"); done
  (IFS=,; echo "${list[*]}")
}
bootstrap() {
  local n list=()
  for n in "${nodes[@]}"; do list+=("127.0.0.1:$(port_of "$n")"); done
  (IFS=,; echo "${list[*]}")
}

# node N COMMAND: kafka.sh COMMAND for node N.
node() {
  local n=$1
  shift
  KAFKA_PORT="$(port_of "$n")" KAFKA_DIR="$dir/node-$n" KAFKA_NODE_ID="$n" KAFKA_VOTERS="$(voters)" \
    KAFKA_CLUSTER_ID="$(cat "$dir/cluster-id")" KAFKA_REPLICAS=3 KAFKA_HEAP="${KAFKA_HEAP:-384m}" \
    bash "$here/kafka.sh" "$@"
}

check_node() {
  [[ "${1:-}" =~ ^[123]$ ]] || { echo "usage: $0 $2 1|2|3" >&2; exit 2; }
}

start() {
  bash "$here/kafka.sh" fetch
  stop_all 2>/dev/null || true
  rm -rf "$dir"
  mkdir -p "$dir"
  # Every node is formatted with the same cluster id, or they refuse each other.
  local cp
  cp="$(cat "$root/.cache/kafka/classpath.txt")"
  java -cp "$cp" kafka.tools.StorageTool random-uuid >"$dir/cluster-id"
  local n pids=() failed=0
  for n in "${nodes[@]}"; do
    node "$n" start >/dev/null &
    pids+=($!)
  done
  for n in "${!pids[@]}"; do wait "${pids[$n]}" || failed=1; done
  if [ "$failed" = 1 ]; then
    log "a node did not start; stopping the others"
    stop_all
    exit 1
  fi
  log "three nodes ready: $(bootstrap)"
  bootstrap
}

# Together: a node stopped after the others cannot finish its controlled shutdown without a
# controller quorum, and waits out kafka.sh's 30 s bound.
stop_all() {
  local n pids=()
  for n in "${nodes[@]}"; do
    if [ -f "$dir/node-$n/broker.pid" ]; then
      node "$n" stop &
      pids+=($!)
    fi
  done
  for n in "${pids[@]}"; do wait "$n" || true; done
}

kill_node() {
  local pid
  pid="$(cat "$dir/node-$1/broker.pid")"
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
  rm -f "$dir/node-$1/broker.pid"
  log "node $1 (pid $pid, 127.0.0.1:$(port_of "$1")) killed"
}

case "${1:-}" in
  start) start ;;
  stop) stop_all ;;
  kill) check_node "${2:-}" kill; kill_node "$2" ;;
  revive) check_node "${2:-}" revive; KAFKA_KEEP_DATA=1 node "$2" start >/dev/null ;;
  pid) check_node "${2:-}" pid; cat "$dir/node-$2/broker.pid" ;;
  bootstrap) bootstrap ;;
  *) echo "usage: $0 start|stop|kill N|revive N|pid N|bootstrap" >&2; exit 2 ;;
esac
