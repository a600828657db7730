#!/usr/bin/env bash
# `npm run local`: Kafka, the vendor sandbox and mailbridge on embedded defaults, in the
# foreground. Ctrl-C (or SIGTERM) stops all three and leaves no process behind.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The project's Node 24 (node_modules/.bin/node), also when not started through npm.
export PATH="$PWD/node_modules/.bin:$PATH"

pids=()
own_broker=false
cleanup() {
  trap - INT TERM EXIT
  echo
  echo "[local] stopping"
  # The service first, so it stops consuming and commits only finished work.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if $own_broker; then bash scripts/kafka/kafka.sh stop; fi
  echo "[local] stopped"
}
trap cleanup INT TERM EXIT

npx --no-install nest build
if [ -z "${KAFKA_BROKERS:-}" ]; then
  own_broker=true
  bash scripts/kafka/kafka.sh start >/dev/null
fi
export MAILBRIDGE_MODE=local
node dist/sandbox/main.js &
sandbox=$!
node dist/main.js &
# The service is stopped before the sandbox it calls.
pids=($! "$sandbox")

cat <<MSG

[local] mailbridge is starting on embedded defaults (MAILBRIDGE_MODE=local):
  Kafka broker      127.0.0.1:9092
  vendor sandbox    http://127.0.0.1:8025   (inbox page: /inbox, record: /_sandbox/requests)
  health, metrics   http://127.0.0.1:3000/health/ready, /metrics

In another terminal:
  npm run emit -- --count 5      publish sample user.signed_up.v1 events
  npm run results                print the result events as they arrive

Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
