#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft mode) for local runs, tests and benchmarks, built from
# the jars on Maven Central: no Docker, no tarball. Java 17+ and Maven are the only requirements.
#
#   kafka.sh fetch          resolve the jars into ~/.m2 (cached) and write the classpath
#   kafka.sh start          format a fresh data dir, start the broker in the background, and
#                           return once it accepts clients (prints the bootstrap address)
#   kafka.sh stop           stop the broker started from the same KAFKA_DIR and wait for it
#   kafka.sh restart        stop, then start again on the same data dir (topics, offsets and
#                           groups survive, as in a real broker restart)
#   kafka.sh status         exit 0 when the broker of KAFKA_DIR is running
#
# Environment: KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (KAFKA_PORT+1), KAFKA_DIR (.cache/kafka/PORT),
# KAFKA_HEAP (512m), KAFKA_START_TIMEOUT seconds (90), KAFKA_KEEP_DATA (0; 1 makes `start` reuse
# a data dir that is already formatted instead of formatting a fresh one).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
port="${KAFKA_PORT:-9092}"
cport="${KAFKA_CONTROLLER_PORT:-$((port + 1))}"
dir="${KAFKA_DIR:-$root/.cache/kafka/$port}"
heap="${KAFKA_HEAP:-512m}"
timeout_s="${KAFKA_START_TIMEOUT:-90}"
keep_data="${KAFKA_KEEP_DATA:-0}"
classpath_file="$root/.cache/kafka/classpath.txt"

log() { echo "[kafka] $*" >&2; }

fetch() {
  if [ -s "$classpath_file" ] && [ "$classpath_file" -nt "$here/pom.xml" ] && all_jars_present; then
    return 0
  fi
  command -v mvn >/dev/null || { log "Maven (mvn) is not installed: run 'npm run setup'"; exit 1; }
  mkdir -p "$(dirname "$classpath_file")"
  log "resolving Apache Kafka jars from Maven Central (cached in ~/.m2)"
  mvn -q -B -f "$here/pom.xml" dependency:build-classpath -Dmdep.outputFile="$classpath_file" >&2
}

all_jars_present() {
  local jar
  while IFS= read -r jar; do [ -f "$jar" ] || return 1; done < <(tr ':' '\n' <"$classpath_file")
}

pid_of() { [ -f "$dir/broker.pid" ] && cat "$dir/broker.pid"; }

running() {
  local pid
  pid="$(pid_of)" || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

write_config() {
  mkdir -p "$dir"
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
  cat >"$dir/log4j2.properties" <<EOF
rootLogger.level=INFO
rootLogger.appenderRef.file.ref=file
appender.file.type=File
appender.file.name=file
appender.file.fileName=$dir/broker.log
appender.file.layout.type=PatternLayout
appender.file.layout.pattern=[%d] %p %m (%c)%n
logger.kafka.name=kafka
logger.kafka.level=INFO
logger.state.name=state.change.logger
logger.state.level=WARN
EOF
}

java_args() {
  java_argv=(java -Xms"$heap" -Xmx"$heap" -XX:+UseG1GC -Djava.awt.headless=true
    -Dlog4j2.configurationFile="$dir/log4j2.properties" -cp "$(cat "$classpath_file")")
}

start() {
  if running; then
    log "already running (pid $(pid_of)) on 127.0.0.1:$port"
    echo "127.0.0.1:$port"
    return 0
  fi
  command -v java >/dev/null || { log "Java 17+ is not installed: run 'npm run setup'"; exit 1; }
  fetch
  local started_at cluster_id pid skip=0
  started_at=$(date +%s%N)
  java_args
  if [ "$keep_data" = 1 ] && [ -f "$dir/data/meta.properties" ]; then
    # A restart: the log appends, so only lines written after this point may say "started".
    skip=$(wc -l 2>/dev/null <"$dir/broker.log" || echo 0)
    log "keeping the data dir $dir/data"
  else
    rm -rf "$dir"
    write_config
    cluster_id="$("${java_argv[@]}" kafka.tools.StorageTool random-uuid)"
    "${java_argv[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" >"$dir/format.log" 2>&1 ||
      { log "storage format failed:"; cat "$dir/format.log" >&2; exit 1; }
  fi
  # setsid: the broker gets its own process group, so a Ctrl-C aimed at a foreground npm script
  # does not kill it mid-write; 'stop' shuts it down cleanly instead.
  setsid "${java_argv[@]}" kafka.Kafka "$dir/server.properties" >>"$dir/stdout.log" 2>&1 </dev/null &
  pid=$!
  echo "$pid" >"$dir/broker.pid"
  # Ready means the broker logged that it started and its client port accepts connections.
  local deadline=$(($(date +%s) + timeout_s))
  until grep -q "Kafka Server started" < <(tail -n +$((skip + 1)) "$dir/broker.log" 2>/dev/null) && (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      log "broker exited during start-up; last lines:"
      tail -n 30 "$dir/stdout.log" "$dir/broker.log" >&2 2>/dev/null || true
      exit 1
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      log "broker not ready after ${timeout_s}s"
      stop
      exit 1
    fi
    sleep 0.2
  done
  log "ready on 127.0.0.1:$port in $((($(date +%s%N) - started_at) / 1000000)) ms (pid $pid, logs in $dir)"
  echo "127.0.0.1:$port"
}

stop() {
  local pid
  pid="$(pid_of)" || { log "not running"; return 0; }
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      log "broker did not stop in 30s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$dir/broker.pid"
  log "stopped"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  restart) stop; keep_data=1; start ;;
  status) running ;;
  *) echo "usage: $0 fetch|start|stop|restart|status" >&2; exit 2 ;;
esac
