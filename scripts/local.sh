#!/usr/bin/env bash
# `npm run local`: Kafka, the vendor sandbox and mailbridge on embedded defaults, in the
# foreground. Ctrl-C (or SIGTERM, to npm or to this script) stops all three and leaves no process
# behind (test/local-run.int-spec.ts). npm runs this script with `exec`, so that the SIGTERM npm
# passes on reaches this shell's trap rather than an `sh -c` between them.
# Other ports: KAFKA_PORT (own broker), SANDBOX_PORT, HTTP_PORT, UNSUBSCRIBE_HTTP_PORT; KAFKA_BROKERS uses that broker.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The project's Node 24 (node_modules/.bin/node), also when not started through npm.
export PATH="$PWD/node_modules/.bin:$PATH"

# Job control: the sandbox and the service get process groups of their own, so a Ctrl-C in the
# terminal reaches this script alone, and each of them gets exactly one signal, the SIGTERM below
# (a second signal tells the service to give up its clean stop).
set -m
pids=()
own_broker=false
cleanup() {
  # Ignored, not reset: npm passes on the Ctrl-C the terminal already sent, and that second
  # signal must not cut the stop short. The service bounds its own stop (SHUTDOWN_TIMEOUT_MS).
  trap '' INT TERM
  trap - EXIT
  echo
  echo "[local] stopping"
  # The service first, so it stops consuming and commits only finished work.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if $own_broker; then bash scripts/kafka/kafka.sh stop; fi
  echo "[local] stopped"
}
trap cleanup INT TERM EXIT

# Builds only when a source is newer than the build: a current build is left as it is, so
# nothing else running from dist/ (the test suite runs several spec files at once) sees it
# deleted and rewritten. `npm run build` always builds.
if [ ! -f dist/main.js ] || [ -n "$(find src tsconfig.json tsconfig.build.json nest-cli.json -newer dist/main.js -print -quit)" ]; then
  npx --no-install nest build
fi
if [ -z "${KAFKA_BROKERS:-}" ]; then
  own_broker=true
  bash scripts/kafka/kafka.sh start >/dev/null
  export KAFKA_BROKERS="127.0.0.1:${KAFKA_PORT:-9092}"
fi
export MAILBRIDGE_MODE=local
# Another sandbox port (SANDBOX_PORT) moves the vendor addresses with it.
sandbox_port="${SANDBOX_PORT:-8025}"
if [ "$sandbox_port" != 8025 ]; then
  export VENDOR_RELAY_BASE_URL="http://127.0.0.1:$sandbox_port/relay/v1"
  export VENDOR_BASE_URL="http://127.0.0.1:$sandbox_port/v1"
fi
# The sandbox merges attributes as the service is told the vendor does.
node dist/sandbox/main.js --port "$sandbox_port" --merge-escapes-html "${VENDOR_MERGE_ESCAPES_HTML:-true}" &
sandbox=$!
node dist/main.js &
# The service is stopped before the sandbox it calls.
pids=($! "$sandbox")

cat <<MSG

[local] mailbridge is starting on embedded defaults (MAILBRIDGE_MODE=local):
  Kafka broker      $KAFKA_BROKERS
  vendor sandbox    http://127.0.0.1:$sandbox_port   (inbox page: /inbox, record: /_sandbox/requests)
  health, metrics   http://127.0.0.1:${HTTP_PORT:-3000}/health/ready, /metrics
  unsubscribe links http://127.0.0.1:${UNSUBSCRIBE_HTTP_PORT:-3001}/unsubscribe/<token>

In another terminal:
  npm run example:publish -- user.signed_up.v1 --count 5   publish sample sign-ups
  npm run example:subscribe                               print the results, decoded

Ctrl-C stops everything.
MSG
wait -n "${pids[@]}" || true
