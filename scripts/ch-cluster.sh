#!/usr/bin/env bash
# Start, stop or inspect N local Debian clickhouse-server (18.16) instances on 127.0.0.1.
#
#   scripts/ch-cluster.sh start|stop|status N PORT_BASE DIR [WEIGHTS]
#
# Server i (0-based) serves HTTP on PORT_BASE+i and native TCP on PORT_BASE+50+i, keeps its
# config, data, logs and PID under DIR/node-i, and carries the same remote_servers in which
# shard i+1 is server i. WEIGHTS is "1,2,1" (default: all 1).
# Environment:
#   CH_CLUSTER_NAME      cluster name in remote_servers (default: scatter)
#   CH_EXTRA_CLUSTERS    more clusters over the same servers: "name=w1,w2,... other=..."
#   CLICKHOUSE_SERVER    server binary (default: /usr/sbin/clickhouse-server)
#   CH_SHARD_DATABASES   databases the shard user may read (default: "default analytics")
#   CH_ADMIN_PASSWORD    the admin user's password (default: admin)
# Users: a request without credentials is "default", the shard functions' read-only user
# (readonly=2, those databases only, resource limits); "admin" creates tables and writes rows.
# Idempotent: start leaves a server whose PID is alive and answers /ping alone; stop waits for
# the process to exit (a restart on the same data dir must not overlap the old process).
# Prints one URL per server on start and status.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=ch-cluster/config.sh
. "$HERE/ch-cluster/config.sh"

usage() { echo "usage: $0 start|stop|status N PORT_BASE DIR [WEIGHTS]" >&2; exit 2; }
[ $# -ge 4 ] || usage
CMD=$1 N=$2 BASE=$3 DIR=$4 WEIGHTS=${5:-}
[[ $N =~ ^[0-9]+$ && $N -ge 1 && $N -le 50 ]] || { echo "N must be 1..50" >&2; exit 2; }
[[ $BASE =~ ^[0-9]+$ ]] || { echo "PORT_BASE must be a number" >&2; exit 2; }
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
BIN=${CLICKHOUSE_SERVER:-/usr/sbin/clickhouse-server}
NAME=${CH_CLUSTER_NAME:-scatter}
if [ -z "$WEIGHTS" ]; then WEIGHTS=$(printf '1%.0s,' $(seq 1 "$N")); WEIGHTS=${WEIGHTS%,}; fi
IFS=, read -r -a W <<<"$WEIGHTS"
[ "${#W[@]}" -eq "$N" ] || { echo "WEIGHTS needs $N comma-separated values, got '$WEIGHTS'" >&2; exit 2; }

http_port() { echo $((BASE + $1)); }
tcp_port() { echo $((BASE + 50 + $1)); }
node_dir() { echo "$DIR/node-$1"; }
# A PID counts only while it is still our server on that node's config: a stale pid file whose
# number the OS has reused for another process must never be signalled.
pid_of() {
  local f pid
  f="$(node_dir "$1")/server.pid"
  [ -f "$f" ] || return 0
  pid=$(cat "$f")
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "--config-file=$(node_dir "$1")/config.xml"; then echo "$pid"; fi
}
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
pinged() { curl -fsS --max-time 1 "http://127.0.0.1:$(http_port "$1")/ping" >/dev/null 2>&1; }

start_one() {
  local i=$1 d pid
  d=$(node_dir "$i")
  pid=$(pid_of "$i")
  # Configs are rewritten even for a running server: 18.16 reloads remote_servers on change.
  ch_write_config "$d" "$(http_port "$i")" "$(tcp_port "$i")" "$REMOTE"
  if alive "$pid" && pinged "$i"; then return 0; fi
  if alive "$pid"; then echo "node-$i: PID $pid is alive but does not answer /ping; stop it first" >&2; return 1; fi
  if pinged "$i"; then echo "node-$i: port $(http_port "$i") is already served by another process" >&2; return 1; fi
  # setsid: the server must outlive this script and not receive the caller's terminal signals.
  setsid "$BIN" --config-file="$d/config.xml" >"$d/log/stdout.log" 2>&1 </dev/null &
  echo $! >"$d/server.pid"
}

wait_up() {
  local i=$1 pid deadline
  pid=$(pid_of "$i")
  deadline=$((SECONDS + 60))
  until pinged "$i"; do
    if ! alive "$pid"; then
      echo "node-$i: clickhouse-server exited during startup; last log lines:" >&2
      tail -n 20 "$(node_dir "$i")/log/error.log" "$(node_dir "$i")/log/stdout.log" >&2 2>/dev/null || true
      return 1
    fi
    [ $SECONDS -lt $deadline ] || { echo "node-$i: no /ping answer within 60 s" >&2; return 1; }
    sleep 0.1
  done
}

stop_one() {
  local i=$1 pid deadline
  pid=$(pid_of "$i")
  if alive "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 30))
    while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; sleep 0.2; fi
  fi
  rm -f "$(node_dir "$i")/server.pid"
}

case "$CMD" in
  start)
    command -v "$BIN" >/dev/null 2>&1 || [ -x "$BIN" ] || { echo "clickhouse-server not found at $BIN (run scripts/install-deps.sh)" >&2; exit 1; }
    # shellcheck disable=SC2086
    REMOTE=$(ch_remote_servers "$N" "$((BASE + 50))" "$NAME=$WEIGHTS" ${CH_EXTRA_CLUSTERS:-})
    for ((i = 0; i < N; i++)); do start_one "$i"; done
    rc=0
    for ((i = 0; i < N; i++)); do
      if wait_up "$i" 2>"$DIR/node-$i.start-failure"; then continue; fi
      # Seen twice in CI under a load of ~15 and never reproduced by hand (30 parallel starts
      # under CPU load all came up): a server that dies during startup with an empty error log.
      # Say so with what the server wrote, then start it once more; a second failure fails.
      echo "node-$i: first start failed, starting once more:" >&2
      cat "$DIR/node-$i.start-failure" >&2
      tail -n 20 "$(node_dir "$i")/log/server.log" >&2 2>/dev/null || true
      stop_one "$i"
      start_one "$i"
      wait_up "$i" || rc=1
    done
    if [ $rc -ne 0 ]; then for ((i = 0; i < N; i++)); do stop_one "$i"; done; exit 1; fi
    for ((i = 0; i < N; i++)); do echo "http://127.0.0.1:$(http_port "$i")"; done
    ;;
  stop)
    for ((i = 0; i < N; i++)); do stop_one "$i" & done
    wait
    ;;
  status)
    rc=0
    for ((i = 0; i < N; i++)); do
      pid=$(pid_of "$i")
      if alive "$pid" && pinged "$i"; then echo "http://127.0.0.1:$(http_port "$i") up pid=$pid"
      elif alive "$pid"; then echo "http://127.0.0.1:$(http_port "$i") starting pid=$pid"; rc=1
      else echo "http://127.0.0.1:$(http_port "$i") down"; rc=1; fi
    done
    exit $rc
    ;;
  *) usage ;;
esac
