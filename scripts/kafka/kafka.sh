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
#
# One node of a cluster (scripts/kafka/cluster.sh sets these for each of its nodes): KAFKA_NODE_ID
# (1), KAFKA_VOTERS (the controller quorum, "1@127.0.0.1:CONTROLLER_PORT,..."; this node alone by
# default), KAFKA_CLUSTER_ID (the id every node is formatted with; a random one by default) and
# KAFKA_REPLICAS (1): with 3, topics and the internal ones get replication factor 3 and
# min.insync.replicas 2, as in production.
#
# Secured listeners beside the PLAINTEXT one, for trying out and testing Kafka security (each off
# unless its port is set):
#   KAFKA_SSL_PORT     an SSL listener that requires a client certificate (ssl.client.auth=required).
#                      A CA, the broker's PKCS12 stores and a client certificate are generated into
#                      KAFKA_DIR/tls by certs.sh; clients use tls/ca.pem, tls/client.pem, tls/client.key.
#   KAFKA_SASL_PORT    a SASL_PLAINTEXT listener: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for the users
#                      of KAFKA_SASL_USERS ("name:password name2:password2", no spaces or commas in
#                      either; SCRAM credentials are added when the storage is formatted), and
#                      OAUTHBEARER with Kafka's unsecured validator, which accepts any unsigned JWT
#                      with a `sub` and a future `exp` (tests only).
#   KAFKA_SASL_SSL_PORT  the same SASL mechanisms and users over TLS (SASL_SSL; the broker's
#                      certificate from KAFKA_DIR/tls as above, no client certificate asked for).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
port="${KAFKA_PORT:-9092}"
cport="${KAFKA_CONTROLLER_PORT:-$((port + 1))}"
dir="${KAFKA_DIR:-$root/.cache/kafka/$port}"
heap="${KAFKA_HEAP:-512m}"
timeout_s="${KAFKA_START_TIMEOUT:-90}"
keep_data="${KAFKA_KEEP_DATA:-0}"
ssl_port="${KAFKA_SSL_PORT:-}"
sasl_port="${KAFKA_SASL_PORT:-}"
sasl_ssl_port="${KAFKA_SASL_SSL_PORT:-}"
sasl_users="${KAFKA_SASL_USERS:-}"
node_id="${KAFKA_NODE_ID:-1}"
voters="${KAFKA_VOTERS:-$node_id@127.0.0.1:$cport}"
cluster_id="${KAFKA_CLUSTER_ID:-}"
replicas="${KAFKA_REPLICAS:-1}"
min_isr=$((replicas > 1 ? 2 : 1))
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
  local listeners="PLAINTEXT://127.0.0.1:$port" protocols="PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"
  if [ -n "$ssl_port" ]; then
    listeners="$listeners,SSL://127.0.0.1:$ssl_port" protocols="$protocols,SSL:SSL"
  fi
  if [ -n "$sasl_port" ]; then
    listeners="$listeners,SASL_PLAINTEXT://127.0.0.1:$sasl_port"
    protocols="$protocols,SASL_PLAINTEXT:SASL_PLAINTEXT"
  fi
  if [ -n "$sasl_ssl_port" ]; then
    listeners="$listeners,SASL_SSL://127.0.0.1:$sasl_ssl_port" protocols="$protocols,SASL_SSL:SASL_SSL"
  fi
  cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=$node_id
controller.quorum.voters=$voters
listeners=$listeners,CONTROLLER://127.0.0.1:$cport
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
log.dirs=$dir/data
num.partitions=1
auto.create.topics.enable=true
default.replication.factor=$replicas
min.insync.replicas=$min_isr
unclean.leader.election.enable=false
offsets.topic.replication.factor=$replicas
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=$replicas
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$replicas
share.coordinator.state.topic.min.isr=$min_isr
group.initial.rebalance.delay.ms=0
EOF
  if [ "$replicas" = 1 ]; then
    # One node is both the controller and the only broker. A JVM starved of CPU for more than the
    # default 9 s (stress-ng beside the whole suite) missed its own controller's heartbeat, was
    # fenced, and took every partition and group coordinator offline with it; fencing the only
    # broker protects nothing, so a stalled broker gets 30 s before it is. In a cluster, fencing a
    # dead broker is what moves its leaderships, so the default stands.
    echo "broker.session.timeout.ms=30000" >>"$dir/server.properties"
  fi
  if [ -n "$ssl_port$sasl_ssl_port" ]; then write_ssl_config; fi
  if [ -n "$sasl_port" ]; then write_sasl_config sasl_plaintext; fi
  if [ -n "$sasl_ssl_port" ]; then write_sasl_config sasl_ssl; fi
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

write_ssl_config() {
  bash "$here/certs.sh" "$dir/tls"
  local password
  password="$(cat "$dir/tls/store-password")"
  cat >>"$dir/server.properties" <<EOF
listener.name.ssl.ssl.client.auth=required
ssl.keystore.type=PKCS12
ssl.keystore.location=$dir/tls/broker.p12
ssl.keystore.password=$password
ssl.key.password=$password
ssl.truststore.type=PKCS12
ssl.truststore.location=$dir/tls/truststore.p12
ssl.truststore.password=$password
EOF
}

# write_sasl_config LISTENER: the SASL mechanisms of one listener (by its lower-case name).
write_sasl_config() {
  local user plain="" prefix="listener.name.$1"
  for user in $sasl_users; do plain="$plain user_${user%%:*}=\"${user#*:}\""; done
  cat >>"$dir/server.properties" <<EOF
$prefix.sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
$prefix.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required$plain;
$prefix.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
$prefix.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
$prefix.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker";
EOF
}

# The SCRAM credentials of KAFKA_SASL_USERS, as arguments of the storage format.
scram_arguments() {
  scram_argv=()
  [ -n "$sasl_port$sasl_ssl_port" ] || return 0
  local user mechanism
  for user in $sasl_users; do
    for mechanism in SCRAM-SHA-256 SCRAM-SHA-512; do
      scram_argv+=(--add-scram "$mechanism=[name=${user%%:*},password=${user#*:}]")
    done
  done
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
  local started_at pid skip=0
  started_at=$(date +%s%N)
  java_args
  if [ "$keep_data" = 1 ] && [ -f "$dir/data/meta.properties" ]; then
    # A restart: the log appends, so only lines written after this point may say "started".
    skip=$(wc -l 2>/dev/null <"$dir/broker.log" || echo 0)
    log "keeping the data dir $dir/data"
  else
    rm -rf "$dir"
    write_config
    [ -n "$cluster_id" ] || cluster_id="$("${java_argv[@]}" kafka.tools.StorageTool random-uuid)"
    scram_arguments
    "${java_argv[@]}" kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/server.properties" \
      "${scram_argv[@]}" >"$dir/format.log" 2>&1 ||
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
  if [ -n "$ssl_port" ]; then log "SSL (client certificate required) on 127.0.0.1:$ssl_port; client files in $dir/tls"; fi
  if [ -n "$sasl_port" ]; then log "SASL_PLAINTEXT on 127.0.0.1:$sasl_port"; fi
  if [ -n "$sasl_ssl_port" ]; then log "SASL_SSL on 127.0.0.1:$sasl_ssl_port"; fi
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
