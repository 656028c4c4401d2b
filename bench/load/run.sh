#!/usr/bin/env bash
# Load run for Reshape: demo upstream + `reshape serve` (release), wrk against the normalized
# keyed collection GET /users, in bounded phases, with the reshape process's VmRSS sampled
# every second. Prints throughput, latency, errors, RSS growth after warm-up, and a baseline
# (wrk straight at the demo upstream's /users.json). Exits non-zero on any error or if RSS
# grows more than MAX_GROWTH_PCT after warm-up.
#
#   bench/load/run.sh                                   # build into .build-load, ~1M requests
#   RESHAPE_BIN=path/reshape UPSTREAM_BIN=path/reshape-demo-upstream bench/load/run.sh
#
# Environment: WORKERS (2), CONNECTIONS (64), THREADS (2), TARGET (1000000 requests),
# WARMUP (10 s), PHASES (4), MAX_PHASE (30 s), MIN_PHASE (5 s), BASELINE (10 s),
# MAX_GROWTH_PCT (10), SCRATCH (.build-load), OUT (directory to keep logs; default a temp dir).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD

WORKERS=${WORKERS:-2}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
TARGET=${TARGET:-1000000}
WARMUP=${WARMUP:-10}
PHASES=${PHASES:-4}
MAX_PHASE=${MAX_PHASE:-30}
MIN_PHASE=${MIN_PHASE:-5}
BASELINE=${BASELINE:-10}
MAX_GROWTH_PCT=${MAX_GROWTH_PCT:-10}
SCRATCH=${SCRATCH:-.build-load}
LUA="$ROOT/bench/load/report.lua"

if [[ -z "${RESHAPE_BIN:-}" || -z "${UPSTREAM_BIN:-}" ]]; then
  swift build -c release --scratch-path "$SCRATCH" --product reshape >&2
  swift build -c release --scratch-path "$SCRATCH" --product reshape-demo-upstream >&2
  BIN=$(swift build -c release --scratch-path "$SCRATCH" --show-bin-path)
  RESHAPE_BIN=${RESHAPE_BIN:-$BIN/reshape}
  UPSTREAM_BIN=${UPSTREAM_BIN:-$BIN/reshape-demo-upstream}
fi

OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT/rules"
cp examples/rules/*.yaml "$OUT/rules/"
UPSTREAM_PID= RESHAPE_PID= SAMPLER_PID=
cleanup() {
  for pid in $SAMPLER_PID $RESHAPE_PID $UPSTREAM_PID; do kill "$pid" 2>/dev/null || true; done
  for pid in $SAMPLER_PID $RESHAPE_PID $UPSTREAM_PID; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_port FILE PATTERN: print the port from the first line of FILE matching PATTERN.
wait_port() {
  for _ in $(seq 300); do
    local line; line=$(grep -m1 -E "$2" "$1" 2>/dev/null || true)
    if [[ -n "$line" ]]; then grep -oE '127\.0\.0\.1:[0-9]+' <<<"$line" | head -1 | cut -d: -f2; return; fi
    sleep 0.1
  done
  echo "no listening line in $1:" >&2; cat "$1" >&2; exit 1
}

"$UPSTREAM_BIN" --listen 127.0.0.1:0 >"$OUT/upstream.out" 2>"$OUT/upstream.err" &
UPSTREAM_PID=$!
UPORT=$(wait_port "$OUT/upstream.out" 'listening on')

DEMO_UPSTREAM_URL="http://127.0.0.1:$UPORT" \
  "$RESHAPE_BIN" serve --rules "$OUT/rules" --listen 127.0.0.1:0 --workers "$WORKERS" --no-access-log \
  >"$OUT/reshape.out" 2>"$OUT/reshape.err" &
RESHAPE_PID=$!
PORT=$(wait_port "$OUT/reshape.err" '"message":"listening"')
URL="http://127.0.0.1:$PORT/users"
UURL="http://127.0.0.1:$UPORT/users.json"

code=$(curl -s -o "$OUT/first.json" -w '%{http_code}' "$URL")
[[ "$code" == 200 ]] || { echo "GET /users answered $code:" >&2; cat "$OUT/first.json" >&2; exit 1; }

rss() { awk '/^VmRSS/ {print $2}' "/proc/$RESHAPE_PID/status" 2>/dev/null || echo 0; }
( while kill -0 "$RESHAPE_PID" 2>/dev/null; do echo "$(date +%s) $(rss)"; sleep 1; done ) >"$OUT/rss.log" &
SAMPLER_PID=$!

echo "machine       $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -sr)"
echo "route         GET /users ($(wc -c <"$OUT/first.json") bytes) -> upstream /users.json"
echo "load          wrk -t$THREADS -c$CONNECTIONS, reshape --workers $WORKERS"
echo "rss start     $(rss) KiB"

TOTAL=0 NON2XX=0 SOCKERR=0
# phase NAME SECONDS URL: run wrk, keep its output, add to totals, print one summary line.
phase() {
  local name=$1 secs=$2 url=$3 f="$OUT/wrk-$1.txt"
  wrk -t "$THREADS" -c "$CONNECTIONS" -d "${secs}s" --latency -s "$LUA" "$url" >"$f" 2>&1 || true
  if ! grep -q '^REPORT requests' "$f"; then echo "wrk failed in $name:" >&2; cat "$f" >&2; exit 1; fi
  get() { awk -v k="$1" '$1=="REPORT" && $2==k {print $3}' "$f"; }
  printf '%-13s %3ss  %8s req  %7s req/s  p50 %6s ms  p90 %6s ms  p99 %6s ms  max %7s ms  non-2xx %s  socket errors %s (%s)  rss %s KiB\n' \
    "$name" "$secs" "$(get requests)" "$(get rps)" "$(get p50)" "$(get p90)" "$(get p99)" "$(get max)" \
    "$(get non2xx)" "$(get sockerr)" "$(get sockdetail)" "$(rss)"
  PH_REQ=$(get requests) PH_RPS=$(get rps)
  if [[ $name != baseline ]]; then
    TOTAL=$((TOTAL + PH_REQ)); NON2XX=$((NON2XX + $(get non2xx))); SOCKERR=$((SOCKERR + $(get sockerr)))
  fi
}

phase warmup "$WARMUP" "$URL"
RSS_WARM=$(rss)
WARM_LINES=$(wc -l <"$OUT/rss.log")
RATE=$PH_RPS
LEFT=$((TARGET - TOTAL))
SECS=$(( (LEFT / (RATE > 0 ? RATE : 1) + PHASES - 1) / PHASES ))
(( SECS < MIN_PHASE )) && SECS=$MIN_PHASE
(( SECS > MAX_PHASE )) && SECS=$MAX_PHASE
echo "plan          $PHASES phases of ${SECS}s at ~$RATE req/s for ~$TARGET requests in all"
for i in $(seq "$PHASES"); do
  phase "phase$i" "$SECS" "$URL"
  P_RPS[$i]=$PH_RPS
  kill -0 "$RESHAPE_PID" 2>/dev/null || { echo "reshape exited during phase $i; stderr:" >&2; tail -50 "$OUT/reshape.err" >&2; exit 1; }
done
RSS_END=$(rss)
kill "$SAMPLER_PID" 2>/dev/null || true; wait "$SAMPLER_PID" 2>/dev/null || true; SAMPLER_PID=
RSS_MAX_AFTER=$(tail -n +$((WARM_LINES + 1)) "$OUT/rss.log" | awk '$2 > m {m = $2} END {print m + 0}')
RSS_MAX_AFTER=${RSS_MAX_AFTER:-$RSS_END}
(( RSS_END > RSS_MAX_AFTER )) && RSS_MAX_AFTER=$RSS_END

phase baseline "$BASELINE" "$UURL"
PROXY_RPS=0; for i in $(seq "$PHASES"); do PROXY_RPS=$((PROXY_RPS + P_RPS[$i])); done; PROXY_RPS=$((PROXY_RPS / PHASES))

GROWTH=$(awk -v a="$RSS_WARM" -v b="$RSS_MAX_AFTER" 'BEGIN {printf "%.3f", b / a}')
echo
echo "total         $TOTAL requests through reshape (warm-up included), non-2xx $NON2XX, socket errors $SOCKERR"
echo "throughput    proxy $PROXY_RPS req/s (mean of measured phases); upstream alone $PH_RPS req/s; ratio $(awk -v a="$PROXY_RPS" -v b="$PH_RPS" 'BEGIN {printf "%.2f", a / b}')"
echo "rss           after warm-up $RSS_WARM KiB, end $RSS_END KiB, max after warm-up $RSS_MAX_AFTER KiB, growth x$GROWTH"
echo "logs          $OUT (wrk-*.txt, rss.log, reshape.err)"
grep -vE '"message":"(listening|ready|starting)' "$OUT/reshape.err" | grep -iE 'error|fatal|warn' | head -5 || true

fail=0
(( NON2XX + SOCKERR > 0 )) && { echo "FAIL: $((NON2XX + SOCKERR)) requests errored" >&2; fail=1; }
awk -v g="$GROWTH" -v m="$MAX_GROWTH_PCT" 'BEGIN {exit !(g > 1 + m / 100)}' && { echo "FAIL: RSS grew more than $MAX_GROWTH_PCT% after warm-up" >&2; fail=1; }
kill -0 "$RESHAPE_PID" 2>/dev/null || { echo "FAIL: reshape is not running" >&2; fail=1; }
(( fail == 0 )) && echo "PASS"
exit $fail
