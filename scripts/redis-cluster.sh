#!/usr/bin/env bash
# A Redis Cluster on loopback for the tests: three masters with one replica each.
#
#   scripts/redis-cluster.sh start|stop|status
#
# REDIS_CLUSTER_PORT (default 7101) is the first of six consecutive ports; the nodes keep
# their files in /tmp/portcullis-redis-cluster-<port>. Idempotent: `start` on a healthy
# cluster does nothing, `stop` on a stopped one neither. Nothing is persisted (no RDB, no
# AOF): a node restarted after `stop` starts empty and the cluster is created again.
set -euo pipefail

base=${REDIS_CLUSTER_PORT:-7101}
ports=$(seq "$base" $((base + 5)))
dir=/tmp/portcullis-redis-cluster-$base

# Polls a command until it succeeds (never a blind sleep), or fails after $2 seconds.
wait_for() {
  local what=$1 limit=$2; shift 2
  for _ in $(seq 1 $((limit * 10))); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  echo "$what did not happen within ${limit}s" >&2
  return 1
}

ping() { [ "$(redis-cli -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }
cluster_ok() { redis-cli -h 127.0.0.1 -p "$base" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }
known_nodes() { redis-cli -h 127.0.0.1 -p "$base" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_known_nodes://p'; }
# Every node agrees: the cluster is ok from each one's point of view (a node that has not
# learnt the others' slots yet answers MOVED to nowhere), and every replica is known as one.
all_ok() {
  for p in $ports; do redis-cli -h 127.0.0.1 -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1; done
  [ "$(redis-cli -h 127.0.0.1 -p "$base" cluster nodes | grep -c slave)" = 3 ]
}

start_node() {
  local port=$1
  ping "$port" && return 0
  mkdir -p "$dir/$port"
  # cluster-node-timeout 2000: a dead master is noticed and its replica promoted within a
  # few seconds. The node config file is per port; it is deleted so a restart joins fresh.
  rm -f "$dir/$port/nodes.conf"
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir/$port" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --save "" --appendonly no --logfile "$dir/$port/redis.log" --pidfile "$dir/$port/redis.pid"
  wait_for "redis-server on port $port" 30 ping "$port"
}

start() {
  if cluster_ok && [ "$(known_nodes)" = 6 ]; then
    echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is already up"
    return 0
  fi
  for p in $ports; do start_node "$p"; done
  # A partial cluster (some nodes restarted empty) cannot be repaired safely: start over.
  if ! cluster_ok || [ "$(known_nodes)" != 6 ]; then
    for p in $ports; do
      redis-cli -h 127.0.0.1 -p "$p" flushall >/dev/null 2>&1 || true
      redis-cli -h 127.0.0.1 -p "$p" cluster reset hard >/dev/null
    done
    local addresses=()
    for p in $ports; do addresses+=("127.0.0.1:$p"); done
    redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log"
  fi
  wait_for "cluster_state:ok on every node" 60 all_ok
  echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is up"
}

stop() {
  for p in $ports; do
    if ping "$p"; then redis-cli -h 127.0.0.1 -p "$p" shutdown nosave >/dev/null 2>&1 || true; fi
  done
  for p in $ports; do wait_for "redis-server on port $p to stop" 30 bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null"; done
  echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is stopped"
}

status() {
  if cluster_ok; then
    redis-cli -h 127.0.0.1 -p "$base" cluster nodes | awk '{ print $2, $3 }' | sed 's/@[0-9]*//' | sort
  else
    echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is not up" >&2
    return 1
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
