#!/usr/bin/env bash
# Rate-limit keys against memory: `reshape serve` with a route limited per X-Key, and wrk
# sending a key never seen before with every request (bench/limits/keys.lua), KEYS requests in
# all. A second policy keyed by nothing refuses all but the first, so the upstream is out of
# the way and every request stores one key. Prints VmRSS idle, after the load, and the
# reshape_limit_keys gauge, for each --limit-keys in LIMIT_KEYS.
#
#   bench/limits/run.sh                        # the debug binaries in .build/debug
#   BIN=.build/release KEYS=1000000 LIMIT_KEYS="1000 100000" bench/limits/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN=${BIN:-.build/debug}
KEYS=${KEYS:-1000000}
LIMIT_KEYS=${LIMIT_KEYS:-"1000 100000 1000000"}
CONNECTIONS=${CONNECTIONS:-32}
work=$(mktemp -d)
. scripts/lib/demo-servers.sh
trap 'stop_demo_servers; rm -rf "$work"' EXIT
start_demo_upstream "$BIN" "$work"
cat >"$work/rules.yaml" <<YAML
upstreams:
  demo: { url: "http://127.0.0.1:$upstream_port" }
limits:
  per-key: { rate: 10/s, key: header.X-Key }
  closed: { rate: 1/h, burst: 1, key: header.X-Nothing }
routes:
  - { name: limited, request: "GET /limited/{x}", upstream: demo, path: /users.json, limit: [per-key, closed], transform: [] }
YAML
rss() { awk '/^VmRSS/ { print int($2 / 1024) }' "/proc/$1/status"; }
echo "| --limit-keys | keys sent | req/s | RSS idle MiB | RSS after MiB | growth MiB | reshape_limit_keys |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for limit in $LIMIT_KEYS; do
  start_reshape "$BIN" "$work" --rules "$work/rules.yaml" --workers 2 --no-access-log --limit-keys "$limit"
  curl -s -o /dev/null "http://$address/limited/warm"
  sleep 1
  idle=$(rss "$reshape_pid")
  started=$(date +%s.%N)
  # wrk runs for a time, not a count: a short probe, then long enough for KEYS at its rate.
  wrk -t2 -c"$CONNECTIONS" -d3s -s bench/limits/keys.lua "http://$address" >"$work/probe.txt"
  probe=$(awk '/requests in/ { print $1 }' "$work/probe.txt")
  seconds=$(( (KEYS - probe) * 3 / (probe > 0 ? probe : 1) + 1 ))
  wrk -t2 -c"$CONNECTIONS" -d"${seconds}s" -s bench/limits/keys.lua "http://$address" >"$work/wrk.txt"
  elapsed=$(echo "$(date +%s.%N) - $started" | bc)
  sent=$(( probe + $(awk '/requests in/ { print $1 }' "$work/wrk.txt") ))
  sleep 1
  after=$(rss "$reshape_pid")
  held=$(curl -s "http://$address/_reshape/metrics" | awk '/^reshape_limit_keys / { print $2 }')
  rate=$(echo "$sent / $elapsed" | bc)
  echo "| $limit | $sent | $rate | $idle | $after | $((after - idle)) | $held |"
  kill -TERM "$reshape_pid"
  wait "$reshape_pid" 2>/dev/null || true
  reshape_pid=""
done
