#!/usr/bin/env bash
# What 10,000 idle keep-alive connections cost `reshape serve --workers 2` (issue 27): the peer
# benchmark's origin nginx and route, each client sends one GET of the ~3 KB answer and then
# idles; the server's RSS before, while they idle, and after they all closed (bench/idle/idle.py).
#
#   bench/idle/run.sh [RESHAPE_BIN] [idle.py options...]
#   bench/idle/run.sh .build/release/reshape                  # 10,000 clients, all at once
#   bench/idle/run.sh .build/release/reshape --batch 500      # 500 at a time
#
# Build the server first: swift build -c release --product reshape. Needs nginx (Debian's) and
# python3. Only 127.0.0.1 is used; every process started is stopped on the way out.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
BIN="${1:-$ROOT/.build/release/reshape}"
shift || true
[ -x "$BIN" ] || { echo "no server binary at $BIN: swift build -c release --product reshape" >&2; exit 2; }
command -v nginx >/dev/null || { echo "nginx is needed for the origin: apt-get install nginx" >&2; exit 2; }

# 10,000 connections are 10,000 descriptors in the client and 10,000 in the server, which
# inherits this limit.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || ulimit -n 65536 2>/dev/null || true

WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_url() {
  for _ in $(seq 200); do
    [[ $(curl -s -m 5 -o /dev/null -w '%{http_code}' "$1" || true) == 200 ]] && return 0
    sleep 0.1
  done
  echo "nothing answers 200 at $1" >&2; exit 1
}

mkdir -p "$WORK/data" "$WORK/nginx/tmp"
python3 "$ROOT/bench/peers/gen.py" "$WORK/data" >/dev/null
ORIGIN_PORT=$(free_port)
for f in common.conf origin.conf; do
  sed -e "s|@PREFIX@|$WORK/nginx|g" -e "s|@PORT@|$ORIGIN_PORT|g" -e "s|@DATA@|$WORK/data|g" \
    "$ROOT/bench/peers/nginx/$f" >"$WORK/nginx/$f"
done
nginx -p "$WORK/nginx/" -c "$WORK/nginx/origin.conf" -e "$WORK/nginx/error.log" >"$WORK/nginx/console.log" 2>&1 &
PIDS+=($!)
wait_url "http://127.0.0.1:$ORIGIN_PORT/3kb.json"

PORT=$(free_port)
# As a new user would run it, but for the idle timeout: the default 60 s could close the first
# connections before the last of 10,000 have opened on a slow machine.
ORIGIN_URL="http://127.0.0.1:$ORIGIN_PORT" "$BIN" serve --rules "$ROOT/bench/peers/rules" \
  --listen "127.0.0.1:$PORT" --workers 2 --idle-timeout 300000 --no-access-log 2>"$WORK/reshape.err" &
SERVER=$!
PIDS+=("$SERVER")
wait_url "http://127.0.0.1:$PORT/users/3kb"
sleep 1
RSS_START=$(awk '/^VmRSS/ {print $2}' "/proc/$SERVER/status")

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)),"\
     "load $(cut -d' ' -f1-3 /proc/loadavg), $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'),"\
     "RSS at start ${RSS_START} KiB"
timeout 600 python3 "$ROOT/bench/idle/idle.py" "$SERVER" "http://127.0.0.1:$PORT/users/3kb" "$@"
