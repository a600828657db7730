#!/usr/bin/env bash
# Copies what mailbridge keeps in one Redis into a Redis Cluster, for a deployment moving from
# one to the other (docs/operations.md, "Moving from one Redis to a Redis Cluster"). Run it with
# every instance stopped, so that nothing changes in the single Redis while it is copied.
#
#   scripts/redis/move-to-cluster.sh FROM_HOST:PORT CLUSTER_NODE_HOST:PORT PREFIX
#
# PREFIX is the deployment's IDEMPOTENCY_KEY_PREFIX (mailbridge:idem: unless set).
# REDIS_FROM_PASSWORD and REDIS_CLUSTER_PASSWORD give the passwords, if any (not on the command
# line, where other users of the host could read them).
#
# 1. The contact-list windows: on one Redis their keys start with `<prefix>win:`, on a cluster
#    with `{<prefix>win}:` (one hash slot for every window key). Each is copied under the
#    cluster's name, on the single Redis, with its expiry (COPY); the originals stay, so that
#    the single Redis can still be gone back to.
# 2. Every key of the single Redis (claims and outcomes, windows, the suppression list, the
#    unsubscribe outbox) goes into the cluster with its expiry: `redis-cli --cluster import
#    --cluster-copy` (MIGRATE … COPY to the node serving each key's slot; the single Redis keeps
#    its keys). A key already in the cluster stops the import: the cluster must be empty of them.
# 3. The keys under PREFIX are counted on both sides; the script fails if the cluster has fewer.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
  exit 64
fi
from="$1" node="$2" prefix="$3"
from_host="${from%:*}" from_port="${from##*:}"
node_host="${node%:*}" node_port="${node##*:}"

single() { REDISCLI_AUTH="${REDIS_FROM_PASSWORD:-}" redis-cli -h "$from_host" -p "$from_port" "$@"; }
cluster() { REDISCLI_AUTH="${REDIS_CLUSTER_PASSWORD:-}" redis-cli -h "$node_host" -p "$node_port" "$@"; }
# A SCAN pattern matching PREFIX literally, whatever glob characters it holds.
pattern="$(printf '%s' "$prefix" | sed 's/[][*?\\]/\\&/g')"

windows=0
while IFS= read -r key; do
  [[ -z "$key" ]] && continue
  single COPY "$key" "{${prefix}win}:${key#"${prefix}win:"}" REPLACE > /dev/null
  windows=$((windows + 1))
done < <(single --scan --pattern "${pattern}win:*")
echo "[move-to-cluster] ${windows} contact-list window keys copied under {${prefix}win}:"

from_auth=()
[[ -n "${REDIS_FROM_PASSWORD:-}" ]] && from_auth=(--cluster-from-pass "$REDIS_FROM_PASSWORD")
REDISCLI_AUTH="${REDIS_CLUSTER_PASSWORD:-}" redis-cli --cluster import "$node" \
  --cluster-from "$from" "${from_auth[@]}" --cluster-copy

count_single="$(single --scan --pattern "${pattern}*" | wc -l)"
count_cluster=0
for primary in $(cluster CLUSTER NODES | awk '$3 ~ /master/ && $3 !~ /fail/ { split($2, a, "@"); print a[1] }'); do
  n="$(REDISCLI_AUTH="${REDIS_CLUSTER_PASSWORD:-}" redis-cli -h "${primary%:*}" -p "${primary##*:}" \
    --scan --pattern "${pattern}*" | wc -l)"
  count_cluster=$((count_cluster + n))
done
echo "[move-to-cluster] keys under the prefix: ${count_single} in the single Redis, ${count_cluster} in the cluster"
if ((count_cluster < count_single)); then
  echo "[move-to-cluster] the cluster has fewer keys than the single Redis: do not start the service on it" >&2
  exit 1
fi
