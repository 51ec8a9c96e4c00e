#!/usr/bin/env bash
# A PgBouncer in transaction pooling mode in front of the local test PostgreSQL, for the
# tests that check the SQL stores behind a pooler (packages/sql-adapter/test/pgbouncer*).
#
# Usage: scripts/pgbouncer.sh start|stop|restart|status
#
# Listens on 127.0.0.1:$PGBOUNCER_PORT (default 6432) only, trusts every client (loopback,
# test database), and keeps its config, pid and log in $PGBOUNCER_DIR (default
# /tmp/portcullis-pgbouncer), outside the repository. Debian's pgbouncer refuses to run as
# root, so under root it drops to the `postgres` user (-u). `stop` is an immediate shutdown
# (SIGTERM): clients in the middle of a query see their connection close, which is what the
# restart-under-load test wants.
set -euo pipefail

port=${PGBOUNCER_PORT:-6432}
dir=${PGBOUNCER_DIR:-/tmp/portcullis-pgbouncer}
pg_host=${PGBOUNCER_PG_HOST:-127.0.0.1}
pg_port=${PGBOUNCER_PG_PORT:-5432}
# What PgBouncer ignores instead of refusing the connection (see the config below); a test
# sets it to less, to meet a pooler that refuses statement_timeout.
ignore=${PGBOUNCER_IGNORE_STARTUP_PARAMETERS-extra_float_digits, statement_timeout}
bin=${PGBOUNCER_BIN:-$(command -v pgbouncer || echo /usr/sbin/pgbouncer)}
pidfile="$dir/pgbouncer.pid"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

running_pid() {
  local pid
  pid=$(cat "$pidfile" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# Polls (never a blind sleep) until `$@` succeeds, or fails after $1 tenths of a second.
poll() {
  local tenths=$1; shift
  for _ in $(seq 1 "$tenths"); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  return 1
}

write_config() {
  mkdir -p "$dir"
  # The user name must be listed even with auth_type = trust; the password is not checked.
  echo '"postgres" ""' >"$dir/userlist.txt"
  cat >"$dir/pgbouncer.ini" <<EOF
[databases]
* = host=$pg_host port=$pg_port

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir =
auth_type = trust
auth_file = $dir/userlist.txt
pool_mode = transaction
; Tests open many pools at once (10 connections each); the server side stays small, as in
; production, so clients queue in PgBouncer rather than in PostgreSQL.
max_client_conn = 1000
default_pool_size = 20
; pg sends statement_timeout (the adapter's per-statement limit) as a startup parameter,
; other clients extra_float_digits; PgBouncer refuses unknown ones unless told to ignore them. The
; server-side limit then comes from the role or database (docs/deploy.md).
ignore_startup_parameters = $ignore
; PgBouncer 1.18 (Debian 12) has no max_prepared_statements: the adapter sends only
; unnamed statements, which transaction pooling handles.
logfile = $dir/pgbouncer.log
pidfile = $pidfile
EOF
  if [ "$(id -u)" = 0 ]; then chown -R postgres: "$dir"; fi
}

start() {
  if pid=$(running_pid); then
    echo "pgbouncer: already running (pid $pid) on 127.0.0.1:$port"
    return 0
  fi
  write_config
  local as=()
  if [ "$(id -u)" = 0 ]; then as=(-u postgres); fi
  "$bin" -d "${as[@]}" "$dir/pgbouncer.ini"
  if ! poll 100 port_open "$port"; then
    echo "pgbouncer: did not listen on 127.0.0.1:$port within 10 s; see $dir/pgbouncer.log" >&2
    tail -n 20 "$dir/pgbouncer.log" >&2 || true
    return 1
  fi
  echo "pgbouncer: running (pid $(running_pid)) on 127.0.0.1:$port, transaction pooling in front of $pg_host:$pg_port"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    echo "pgbouncer: not running"
    return 0
  fi
  kill -TERM "$pid"
  if ! poll 100 eval '! kill -0 '"$pid"' 2>/dev/null'; then
    echo "pgbouncer: pid $pid did not stop within 10 s" >&2
    return 1
  fi
  echo "pgbouncer: stopped"
}

status() {
  if pid=$(running_pid) && port_open "$port"; then
    echo "pgbouncer: running (pid $pid) on 127.0.0.1:$port"
  else
    echo "pgbouncer: not running"
    return 3
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  restart) stop && start ;;
  status) status ;;
  *) echo "usage: $0 start|stop|restart|status" >&2; exit 2 ;;
esac
