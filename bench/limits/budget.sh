#!/usr/bin/env bash
# The memory budget under load (issue 29): one worker in front of the peer benchmark's origin
# nginx and ~150 KB documents, wrk with 64 and then 2,000 connections, with and without
# --max-inflight-bytes. For each run: req/s, the 200/non-200 split, socket errors, p50/p99,
# peak RSS (VmHWM of a fresh process), RSS idle before and 10 s after the load.
# Usage: RESHAPE_BIN=.build/release/reshape bench/limits/budget.sh
# Knobs: DURATION (15 s), SIZE (150kb), BUDGETS ("0 256MiB"), CONNS ("64 2000").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PEERS=$ROOT/bench/peers
BIN=${RESHAPE_BIN:-$ROOT/.build/release/reshape}
DURATION=${DURATION:-15}
SIZE=${SIZE:-150kb}
BUDGETS=${BUDGETS:-"0 256MiB"}
CONNS=${CONNS:-"64 2000"}
WORK=$(mktemp -d)
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
hwm_kb() { awk '/^VmHWM/ {print $2}' "/proc/$1/status"; }

python3 "$PEERS/gen.py" "$WORK/data" >/dev/null
ORIGIN_PORT=$(free_port)
prefix=$WORK/origin
mkdir -p "$prefix/tmp"
for f in common.conf origin.conf; do
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@PORT@|$ORIGIN_PORT|g" -e "s|@DATA@|$WORK/data|g" "$PEERS/nginx/$f" >"$prefix/$f"
done
taskset -c 1 nginx -p "$prefix/" -c "$prefix/origin.conf" -e "$prefix/error.log" &
PIDS+=($!)
export ORIGIN_URL=http://127.0.0.1:$ORIGIN_PORT
sleep 0.5

echo "| budget | clients | req/s | 200 | non-200 | answers by status (server's count) | socket errors | p50 ms | p99 ms | RSS idle MB | peak RSS MB | RSS 10 s after MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
for budget in $BUDGETS; do
  for conns in $CONNS; do
    port=$(free_port)
    taskset -c 0 "$BIN" serve --rules "$PEERS/rules" --listen "127.0.0.1:$port" --workers 1 --no-access-log \
      --max-inflight-bytes "$budget" >"$WORK/serve.log" 2>&1 &
    pid=$!
    PIDS+=($pid)
    for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/_reshape/ready" >/dev/null && break; sleep 0.1; done
    curl -sf -o /dev/null "http://127.0.0.1:$port/users/$SIZE"
    sleep 1
    idle=$(rss_kb $pid)
    taskset -c 1 wrk -t1 -c"$conns" -d"${DURATION}s" --latency --timeout 10s -s "$ROOT/bench/load/report.lua" \
      "http://127.0.0.1:$port/users/$SIZE" >"$WORK/wrk.txt" 2>&1 || true
    peak=$(hwm_kb $pid)
    sleep 10
    after=$(rss_kb $pid)
    statuses=$(curl -sf "http://127.0.0.1:$port/_reshape/metrics" |
      awk -F'status="' '/^reshape_requests_total\{route="users"/ {split($2, a, "\""); split($0, b, " "); n[a[1]] += b[2]}
        END {for (k in n) printf "%s: %d ", k, n[k]}')
    r() { awk -v k="$1" '$1=="REPORT" && $2==k {print $3}' "$WORK/wrk.txt"; }
    requests=$(r requests) non2xx=$(r non2xx)
    echo "| $budget | $conns | $(r rps) | $((requests - non2xx)) | $non2xx | ${statuses% } | $(r sockerr) | $(r p50) | $(r p99) | $((idle / 1024)) | $((peak / 1024)) | $((after / 1024)) |"
    kill $pid
    wait $pid 2>/dev/null || true
  done
done
