#!/usr/bin/env bash
# A Redis Cluster on loopback for the tests: three masters with one replica each.
#
#   scripts/redis-cluster.sh start|stop|status
#
# REDIS_SERVER and REDIS_CLI (default redis-server, redis-cli) name the binaries: Valkey's
# (valkey-server, valkey-cli) start a Valkey cluster the same way.
# REDIS_CLUSTER_PORT (default 7101) is the first of six consecutive ports; the nodes keep
# their files in /tmp/portcullis-redis-cluster-<port>. Idempotent: `start` on a healthy
# cluster does nothing, on one with a crashed node restarts that node (it rejoins as a
# replica); `stop` on a stopped one does nothing. Nothing is persisted (no RDB, no AOF):
# `stop` deletes the nodes' files and the next `start` creates a new, empty cluster.
set -euo pipefail

base=${REDIS_CLUSTER_PORT:-7101}
server=${REDIS_SERVER:-redis-server}
cli=${REDIS_CLI:-redis-cli}
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

ping() { [ "$("$cli" -h 127.0.0.1 -p "$1" ping 2>/dev/null)" = PONG ]; }
cluster_ok() { "$cli" -h 127.0.0.1 -p "$base" cluster info 2>/dev/null | grep -q '^cluster_state:ok'; }
known_nodes() { "$cli" -h 127.0.0.1 -p "$base" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_known_nodes://p'; }
# Every node agrees: the cluster is ok from each one's point of view (a node that has not
# learnt the others' slots yet answers MOVED to nowhere), every replica is known as one
# and has synced with its master.
all_ok() {
  for p in $ports; do "$cli" -h 127.0.0.1 -p "$p" cluster info 2>/dev/null | grep -q '^cluster_state:ok' || return 1; done
  [ "$("$cli" -h 127.0.0.1 -p "$base" cluster nodes | grep -c slave)" = 3 ] || return 1
  # A replica that has not finished its first sync cannot be promoted: wait for its link.
  for p in $ports; do
    local replication
    replication=$("$cli" -h 127.0.0.1 -p "$p" info replication 2>/dev/null | tr -d '\r')
    if grep -q '^role:slave' <<<"$replication"; then grep -q '^master_link_status:up' <<<"$replication" || return 1; fi
  done
}

# Starts the node on $1 unless it answers. A node restarted after a crash keeps its
# nodes.conf and rejoins: the cluster makes it a replica of the master that replaced it.
start_node() {
  local port=$1
  ping "$port" && return 0
  mkdir -p "$dir/$port"
  # cluster-node-timeout 2000: a dead master is noticed and its replica promoted within a
  # few seconds. No diskless-sync delay: a replica's first sync starts at once.
  "$server" --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$dir/$port" \
    --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000 \
    --save "" --appendonly no --repl-diskless-sync-delay 0 --logfile "$dir/$port/redis.log" --pidfile "$dir/$port/redis.pid"
  wait_for "$server on port $port" 30 ping "$port"
}

slots_assigned() { "$cli" -h 127.0.0.1 -p "$base" cluster info 2>/dev/null | tr -d '\r' | sed -n 's/^cluster_slots_assigned://p'; }

start() {
  if all_ok && [ "$(known_nodes)" = 6 ]; then
    echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is already up"
    return 0
  fi
  for p in $ports; do start_node "$p"; done
  # Fresh nodes (no slot assigned yet): create the cluster. Otherwise the nodes know their
  # cluster already (a restarted node rejoining), and it only has to settle.
  if [ "$(slots_assigned)" = 0 ]; then
    local addresses=()
    for p in $ports; do addresses+=("127.0.0.1:$p"); done
    "$cli" --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$dir/create.log"
  fi
  if ! wait_for "cluster_state:ok on every node, three replicas" 60 all_ok; then
    echo "the cluster in $dir did not settle: '$0 stop' then '$0 start' creates it afresh" >&2
    return 1
  fi
  echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is up"
}

# Stops every node and deletes their files: the next start creates a new cluster.
stop() {
  for p in $ports; do
    if ping "$p"; then "$cli" -h 127.0.0.1 -p "$p" shutdown nosave >/dev/null 2>&1 || true; fi
  done
  for p in $ports; do wait_for "$server on port $p to stop" 30 bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null"; done
  rm -rf "$dir"
  echo "Redis Cluster on 127.0.0.1:$base-$((base + 5)) is stopped"
}

status() {
  if cluster_ok; then
    "$cli" -h 127.0.0.1 -p "$base" cluster nodes | awk '{ print $2, $3 }' | sed 's/@[0-9]*//' | sort
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
